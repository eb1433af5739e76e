import { randomUUID } from 'node:crypto';
import { DomainError, refuse, type ErrorCode } from '../errors.ts';
import type { WalletLoginCompleted } from '../events/wallet-login.ts';
import type { EventOf } from '../events/event.ts';
import { findProvider } from '../providers/catalogue.ts';
import { ProviderError } from '../providers/connector.ts';
import { StreamDeleted, type Position } from '../store/event-store.ts';
import type { Clock } from '../clock.ts';
import { account, accountNotFound, accountStream } from '../domain/account.ts';
import { handleCommand, load, type CommandContext, type EventSourcing } from '../store/commands/handle.ts';
import { ensurePointsToLink, loadOwnedAccount, providerFailure, recordLinkedAccount } from './link-account.ts';
import type { CommandDeps } from './deps.ts';
import {
  maxOtpAttempts,
  sessionExpiredOrNotFound,
  usableSession,
  walletLogin,
  walletLoginStream,
  type LoginPurpose,
} from '../domain/wallet-login.ts';

/** The wallets that log in by OTP through POST /api/v1/accounts actions. */
export const otpWallets = ['WALLET-A', 'WALLET-B', 'WALLET-C'] as const;
export type OtpWallet = (typeof otpWallets)[number];

export type OtpLoginDeps = CommandDeps & { otpSessionTtlMinutes: number };

export type SendOtpInput = {
  wallet: OtpWallet;
  phoneNumber: string;
  pin?: string | undefined;
  channel: 'MESSENGER' | 'SMS';
  purpose: LoginPurpose;
};

export type VerifyOtpInput = {
  wallet: OtpWallet;
  /** 'first' answers the code of step 1; 'second' the second code wallet C may ask for */
  step: 'first' | 'second';
  sessionId: string;
  otp: string;
  pin?: string | undefined;
  accountId?: string | undefined;
};

export type VerifyOutcome = { kind: 'completed'; accountId: string } | { kind: 'second-otp'; sessionId: string };

const invalid = (field: string, message: string, code: ErrorCode = 'VALIDATION_ERROR') =>
  refuse(code, { message, errors: [{ path: field, message }] });

export const verificationIncomplete = (fields: string[]) =>
  refuse('VERIFICATION_INCOMPLETE', {
    message: `Verification data incomplete: ${fields.join(', ')} required`,
    errors: fields.map(path => ({ path, message: 'required' })),
  });

const verificationFailed = (triesLeft: number) =>
  refuse('OTP_VERIFICATION_FAILED', {
    message:
      triesLeft > 0
        ? `OTP wrong or verification failed; ${triesLeft} ${triesLeft === 1 ? 'try' : 'tries'} left`
        : 'OTP wrong or verification failed; the OTP session is locked, start again from step 1',
  });

/** Phone numbers compare by their national number: 0812..., 62812... and +62 812... are one phone. */
export function nationalNumber(phone: string): string {
  const digits = phone.replace(/[^0-9]/g, '');
  return digits.startsWith('62') ? `0${digits.slice(2)}` : digits;
}

/**
 * Step 1: checks what the login is for (a new account of this wallet with enough points, or the caller's own
 * account of this wallet), asks the provider to send a code, and opens an OTP session that expires.
 */
export async function sendOtp(
  deps: OtpLoginDeps,
  ownerId: string,
  input: SendOtpInput,
): Promise<{ sessionId: string; expiresAt: string }> {
  let phoneNumber = input.phoneNumber;
  if (input.purpose.kind === 'new') {
    const provider = findProvider(input.purpose.providerCode);
    if (!provider)
      throw invalid('providerCode', `Provider ${input.purpose.providerCode} not found`, 'UNKNOWN_PROVIDER');
    if (provider.providerCode !== input.wallet)
      throw invalid(
        'providerCode',
        `${provider.providerCode} does not log in with this action; its OTP flow is for ${input.wallet} only`,
      );
    await ensurePointsToLink(deps, ownerId, input.purpose.intervalMinutes);
  } else {
    const linked = await loadOwnedAccount(deps, ownerId, input.purpose.accountId);
    if (linked.providerCode !== input.wallet)
      throw invalid(
        'accountId',
        `The account is a ${linked.providerCode} account; this action logs in to ${input.wallet}`,
      );
    if (nationalNumber(linked.accountRef) !== nationalNumber(input.phoneNumber))
      throw invalid('phoneNumber', 'phoneNumber is not the phone number of this account');
    phoneNumber = linked.accountRef; // the provider knows the account by the number it was linked with
  }

  let challenge: Awaited<ReturnType<CommandDeps['connector']['sendOtp']>>;
  try {
    challenge = await deps.connector.sendOtp(input.wallet, { phoneNumber, pin: input.pin, channel: input.channel });
  } catch (err) {
    if (err instanceof ProviderError) throw providerFailure(err);
    throw err;
  }

  const sessionId = randomUUID();
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + deps.otpSessionTtlMinutes * 60_000);
  await handleCommand(
    deps,
    walletLoginStream(sessionId),
    walletLogin,
    {
      type: 'RequestOtp',
      sessionId,
      ownerId,
      providerCode: input.wallet,
      phoneNumber,
      purpose: input.purpose,
      pin: input.pin ? deps.vault.seal({ pin: input.pin }) : null,
      challengeId: challenge.challengeId,
      channel: input.channel,
      previousSessionId: null,
      now,
      expiresAt,
    },
    { actor: `user:${ownerId}`, now },
  );
  return { sessionId, expiresAt: expiresAt.toISOString() };
}

/** One verification under way: the caller, what it answered, and the session's stream. */
type Verifying = {
  deps: OtpLoginDeps;
  ownerId: string;
  input: VerifyOtpInput;
  stream: string;
  context: () => CommandContext;
};

type ProviderAnswer = Awaited<ReturnType<CommandDeps['connector']['verifyOtp']>>;
type Session = ReturnType<typeof usableSession>;

/**
 * Steps 2 and 3: the session must be the caller's, of this wallet and step, pending and unexpired. The provider
 * decides: a wrong code counts against the session, a second OTP opens a new session, a login completes this
 * one, and the account is then linked or reactivated (again by the wallet-login saga if we stop half-way).
 */
export async function verifyOtp(deps: OtpLoginDeps, ownerId: string, input: VerifyOtpInput): Promise<VerifyOutcome> {
  const v: Verifying = {
    deps,
    ownerId,
    input,
    stream: walletLoginStream(input.sessionId),
    context: () => ({ actor: `user:${ownerId}`, now: deps.clock.now(), correlationId: input.sessionId }),
  };
  const session = await verifiableSession(v);
  const answer = await askProvider(v, session);
  if (answer.kind === 'second-otp') return openSecondOtp(v, session, answer.challengeId);
  return completeLogin(v, answer);
}

/** The caller's pending session of this wallet and step, ended first when it has expired. */
async function verifiableSession({ deps, ownerId, input, stream, context }: Verifying): Promise<Session> {
  const { state } = await load(deps, stream, walletLogin);
  if (state.status === 'pending' && state.ownerId === ownerId && deps.clock.now().toISOString() >= state.expiresAt) {
    await endSession(deps, stream, 'expired', context());
    throw sessionExpiredOrNotFound();
  }
  const session = usableSession(state, {
    ownerId,
    providerCode: input.wallet,
    step: input.step,
    now: deps.clock.now(),
  });
  const reloginOf = session.purpose.kind === 'relogin' ? session.purpose.accountId : null;
  if (input.accountId !== undefined && input.accountId !== reloginOf)
    throw invalid(
      'accountId',
      reloginOf
        ? 'accountId is not the account this OTP session logs in to'
        : 'this OTP session links a new account; leave accountId out',
    );
  // wallets A and B name the account again when they verify a relogin
  if (reloginOf && input.accountId === undefined && input.wallet !== 'WALLET-C')
    throw verificationIncomplete(['accountId']);
  return session;
}

/** The provider's answer to the code; a refusal counts one try less against the session. */
async function askProvider({ deps, input, stream, context }: Verifying, session: Session): Promise<ProviderAnswer> {
  try {
    return await deps.connector.verifyOtp(input.wallet, {
      challengeId: session.challengeId,
      otp: input.otp,
      pin: input.pin,
    });
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    if (err.failure === 'unavailable') throw providerFailure(err);
    // the provider's code is gone (expired, locked, or used by a request racing this one, which may still be
    // completing the login): nothing to record here
    if (err.failure === 'challenge-expired' || err.failure === 'session-expired') throw sessionExpiredOrNotFound();
    // a wrong code, a refused PIN or any other refusal: one try less
    const counted = await handleCommand(
      deps,
      stream,
      walletLogin,
      { type: 'RecordWrongOtp', now: deps.clock.now() },
      context(),
    );
    throw verificationFailed(counted.state.status === 'pending' ? maxOtpAttempts - counted.state.attempts : 0);
  }
}

/** The provider asks a second code: a new session for step 3, which this one points to. */
async function openSecondOtp(
  { deps, ownerId, input, stream, context }: Verifying,
  session: Session,
  challengeId: string,
): Promise<VerifyOutcome> {
  // only wallet C has a step 3, and only one
  if (input.step === 'second' || input.wallet !== 'WALLET-C') {
    await endSession(deps, stream, 'provider-refused', context());
    throw verificationFailed(0);
  }
  const nextSessionId = randomUUID();
  const now = deps.clock.now();
  await handleCommand(
    deps,
    walletLoginStream(nextSessionId),
    walletLogin,
    {
      type: 'RequestOtp',
      sessionId: nextSessionId,
      ownerId,
      providerCode: session.providerCode,
      phoneNumber: session.phoneNumber,
      purpose: session.purpose,
      pin: session.pin,
      challengeId,
      channel: session.channel,
      previousSessionId: session.sessionId,
      now,
      expiresAt: new Date(now.getTime() + deps.otpSessionTtlMinutes * 60_000),
    },
    context(),
  );
  await handleCommand(deps, stream, walletLogin, { type: 'RequireSecondOtp', nextSessionId, now }, context());
  return { kind: 'second-otp', sessionId: nextSessionId };
}

/** The provider logged in: the session completes and the account is linked or reactivated. */
async function completeLogin(
  { deps, stream, context }: Verifying,
  answer: Exclude<ProviderAnswer, { kind: 'second-otp' }>,
): Promise<VerifyOutcome> {
  const done = await handleCommand(
    deps,
    stream,
    walletLogin,
    {
      type: 'CompleteLogin',
      newAccountId: randomUUID(),
      providerSession: deps.vault.seal(answer.session),
      holderName: answer.holderName,
      now: deps.clock.now(),
    },
    context(),
  );
  const completed = done.events.find(e => e.type === 'WalletLoginCompleted') as
    EventOf<typeof WalletLoginCompleted> | undefined;
  if (!completed) throw sessionExpiredOrNotFound();
  const applied = await applyWalletLogin(deps, completed.data, context());
  if (applied === 'account-gone') throw refuse('ACCOUNT_NOT_FOUND');
  // null: the saga linked it first, somewhere after our completion
  await deps.readModels.waitFor(applied ?? (await deps.store.headPosition()));
  return { kind: 'completed', accountId: completed.data.accountId };
}

/** Ends a session that can no longer complete; a session another request ended already stays as it is. */
async function endSession(
  deps: OtpLoginDeps,
  stream: string,
  reason: 'expired' | 'provider-refused',
  context: CommandContext,
) {
  try {
    await handleCommand(deps, stream, walletLogin, { type: 'FailLogin', reason, now: deps.clock.now() }, context);
  } catch (err) {
    if (!(err instanceof DomainError && err.code === 'OTP_SESSION_INVALID')) throw err;
  }
}

/**
 * What a completed login does to the account: links the new account, or restores the session of the existing
 * one (isActive true, schedule resumed). Idempotent, so the request and the saga may both run it.
 */
export async function applyWalletLogin(
  deps: EventSourcing & { clock: Clock },
  login: EventOf<typeof WalletLoginCompleted>['data'],
  context: CommandContext,
): Promise<Position | null | 'account-gone'> {
  const stream = accountStream(login.accountId);
  const now = deps.clock.now();
  try {
    if (login.purpose.kind === 'new') {
      return await recordLinkedAccount(
        deps,
        {
          type: 'LinkAccount',
          accountId: login.accountId,
          ownerId: login.ownerId,
          accountType: 'ewallet',
          providerCode: login.providerCode,
          accountName: login.purpose.accountName,
          accountNumber: null,
          phoneNumber: login.phoneNumber,
          holderName: login.holderName,
          intervalMinutes: login.purpose.intervalMinutes,
          credentials: login.pin,
          session: login.providerSession,
          isActive: true,
          now,
        },
        context,
        'link-unpaid',
      );
    }
    const result = await handleCommand(
      deps,
      stream,
      account,
      {
        type: 'RestoreProviderSession',
        session: login.providerSession,
        credentials: login.pin,
        loginSessionId: login.sessionId,
        now,
      },
      context,
    );
    return result.position;
  } catch (err) {
    // the account was deleted while its owner logged in: nothing to link or reactivate
    if (err instanceof StreamDeleted) return 'account-gone';
    if (err instanceof DomainError && err.code === accountNotFound().code) return 'account-gone';
    throw err;
  }
}
