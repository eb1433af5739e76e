import { refuse } from '../errors.ts';
import {
  OtpRejected,
  OtpRequested,
  SecondOtpRequired,
  WalletLoginCompleted,
  WalletLoginFailed,
  type WalletLoginEvent,
} from '../events/wallet-login.ts';
import type { Sealed } from '../events/account.ts';
import type { Decider } from './decider.ts';

export const walletLoginStream = (sessionId: string) => `wallet-login-${sessionId}`;

/** Wrong codes allowed on one OTP session before it is locked. */
export const maxOtpAttempts = 5;

export type LoginPurpose =
  | { kind: 'new'; providerCode: string; accountName: string; intervalMinutes: number }
  | { kind: 'relogin'; accountId: string };

export type PendingLogin = {
  status: 'pending';
  sessionId: string;
  ownerId: string;
  providerCode: string;
  phoneNumber: string;
  purpose: LoginPurpose;
  pin: Sealed | null;
  challengeId: string;
  channel: 'MESSENGER' | 'SMS';
  previousSessionId: string | null;
  expiresAt: string;
  attempts: number;
};

export type WalletLogin =
  | { status: 'none' }
  | PendingLogin
  | { status: 'second-otp-required'; sessionId: string }
  | { status: 'completed'; sessionId: string; accountId: string }
  | { status: 'failed'; sessionId: string };

export type WalletLoginCommand =
  | {
      type: 'RequestOtp';
      sessionId: string;
      ownerId: string;
      providerCode: string;
      phoneNumber: string;
      purpose: LoginPurpose;
      pin: Sealed | null;
      challengeId: string;
      channel: 'MESSENGER' | 'SMS';
      previousSessionId: string | null;
      now: Date;
      expiresAt: Date;
    }
  | { type: 'RecordWrongOtp'; now: Date }
  | { type: 'RequireSecondOtp'; nextSessionId: string; now: Date }
  | { type: 'CompleteLogin'; newAccountId: string; providerSession: Sealed; holderName: string | null; now: Date }
  | { type: 'FailLogin'; reason: 'provider-refused' | 'expired'; now: Date };

export const sessionExpiredOrNotFound = () => refuse('OTP_SESSION_INVALID');

/**
 * The session a verification may use: pending, not expired, the caller's own, of the right provider, and of the
 * right step (a step-1 session cannot answer a second OTP, nor the other way round).
 */
export function usableSession(
  state: WalletLogin,
  check: { ownerId: string; providerCode: string; step: 'first' | 'second'; now: Date },
): PendingLogin {
  if (state.status !== 'pending') throw sessionExpiredOrNotFound();
  if (state.ownerId !== check.ownerId || state.providerCode !== check.providerCode) throw sessionExpiredOrNotFound();
  if ((check.step === 'second') !== (state.previousSessionId !== null)) throw sessionExpiredOrNotFound();
  if (check.now.toISOString() >= state.expiresAt) throw sessionExpiredOrNotFound();
  return state;
}

function evolve(state: WalletLogin, event: WalletLoginEvent): WalletLogin {
  switch (event.type) {
    case 'OtpRequested': {
      const d = event.data;
      return {
        status: 'pending',
        sessionId: d.sessionId,
        ownerId: d.ownerId,
        providerCode: d.providerCode,
        phoneNumber: d.phoneNumber,
        purpose: d.purpose,
        pin: d.pin,
        challengeId: d.challengeId,
        channel: d.channel,
        previousSessionId: d.previousSessionId,
        expiresAt: d.expiresAt,
        attempts: 0,
      };
    }
    case 'OtpRejected':
      return state.status === 'pending' ? { ...state, attempts: event.data.attempts } : state;
    case 'SecondOtpRequired':
      return { status: 'second-otp-required', sessionId: event.data.sessionId };
    case 'WalletLoginCompleted':
      return { status: 'completed', sessionId: event.data.sessionId, accountId: event.data.accountId };
    case 'WalletLoginFailed':
      return { status: 'failed', sessionId: event.data.sessionId };
    default: {
      const never: never = event;
      return never;
    }
  }
}

function decide(state: WalletLogin, command: WalletLoginCommand): WalletLoginEvent[] {
  if (command.type === 'RequestOtp') {
    if (state.status !== 'none') throw sessionExpiredOrNotFound();
    return [
      OtpRequested({
        sessionId: command.sessionId,
        ownerId: command.ownerId,
        providerCode: command.providerCode,
        phoneNumber: command.phoneNumber,
        purpose: command.purpose,
        pin: command.pin,
        challengeId: command.challengeId,
        channel: command.channel,
        previousSessionId: command.previousSessionId,
        requestedAt: command.now.toISOString(),
        expiresAt: command.expiresAt.toISOString(),
      }),
    ];
  }
  // a session is used once: whatever ended it, nothing more happens to it
  if (state.status !== 'pending') throw sessionExpiredOrNotFound();
  const at = command.now.toISOString();
  switch (command.type) {
    case 'RecordWrongOtp': {
      const attempts = state.attempts + 1;
      const rejected = OtpRejected({ sessionId: state.sessionId, attempts, at });
      return attempts >= maxOtpAttempts
        ? [rejected, WalletLoginFailed({ sessionId: state.sessionId, reason: 'too-many-attempts', at })]
        : [rejected];
    }
    case 'RequireSecondOtp':
      return [SecondOtpRequired({ sessionId: state.sessionId, nextSessionId: command.nextSessionId, at })];
    case 'CompleteLogin':
      return [
        WalletLoginCompleted({
          sessionId: state.sessionId,
          ownerId: state.ownerId,
          providerCode: state.providerCode,
          phoneNumber: state.phoneNumber,
          purpose: state.purpose,
          // a relogin reactivates its account; a new login links the account whose id the caller drew
          accountId: state.purpose.kind === 'relogin' ? state.purpose.accountId : command.newAccountId,
          pin: state.pin,
          providerSession: command.providerSession,
          holderName: command.holderName,
          completedAt: at,
        }),
      ];
    case 'FailLogin':
      return [WalletLoginFailed({ sessionId: state.sessionId, reason: command.reason, at })];
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const walletLogin: Decider<WalletLogin, WalletLoginCommand, WalletLoginEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};
