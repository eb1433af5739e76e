import { describe, expect, it } from 'vitest';
import { maxOtpAttempts, usableSession, walletLogin, type WalletLogin } from '../../src/domain/wallet-login.ts';
import {
  OtpRejected,
  OtpRequested,
  SecondOtpRequired,
  WalletLoginCompleted,
  WalletLoginFailed,
  type WalletLoginEvent,
} from '../../src/events/wallet-login.ts';
import { specification } from '../support/decider.ts';

const given = specification(walletLogin);
const sessionId = '6a0c1d2e-3f40-4152-8364-758697a8b9c0';
const nextSessionId = '7b1d2e3f-4051-4263-9475-8697a8b9c0d1';
const ownerId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
const accountId = '3c1d2b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const t0 = new Date('2026-01-05T03:00:00.000Z');
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
const sealed = { iv: 'i', tag: 't', data: 'd' };
const requested = (previous: string | null = null, id = sessionId) =>
  OtpRequested({
    sessionId: id,
    ownerId,
    providerCode: 'WALLET-C',
    phoneNumber: '081200000000',
    purpose: { kind: 'new', providerCode: 'WALLET-C', accountName: 'C', intervalMinutes: 60 },
    pin: null,
    challengeId: 'ch-1',
    channel: 'MESSENGER',
    previousSessionId: previous,
    requestedAt: t0.toISOString(),
    expiresAt: at(5).toISOString(),
  });
const fold = (events: WalletLoginEvent[]): WalletLogin => events.reduce(walletLogin.evolve, walletLogin.initialState());

describe('wallet login decider', () => {
  it('locks the session after the last allowed wrong code', () => {
    const rejections = Array.from({ length: maxOtpAttempts - 1 }, (_, i) =>
      OtpRejected({ sessionId, attempts: i + 1, at: at(1).toISOString() }),
    );
    given([requested(), ...rejections])
      .when({ type: 'RecordWrongOtp', now: at(2) })
      .then([
        OtpRejected({ sessionId, attempts: maxOtpAttempts, at: at(2).toISOString() }),
        WalletLoginFailed({ sessionId, reason: 'too-many-attempts', at: at(2).toISOString() }),
      ]);
  });

  describe.each([
    ['completed', 0],
    ['failed', 1],
    ['moved on to a second OTP', 2],
  ] as const)('is usable once: %s, nothing more', (_case, which) => {
    const done = WalletLoginCompleted({
      sessionId,
      ownerId,
      providerCode: 'WALLET-C',
      phoneNumber: '081200000000',
      purpose: { kind: 'relogin', accountId },
      accountId,
      pin: null,
      providerSession: sealed,
      holderName: 'SITI',
      completedAt: at(1).toISOString(),
    });
    const ended = [
      done,
      WalletLoginFailed({ sessionId, reason: 'provider-refused', at: at(1).toISOString() }),
      SecondOtpRequired({ sessionId, nextSessionId, at: at(1).toISOString() }),
    ][which]!;

    it('completes no login', () =>
      given([requested(), ended])
        .when({ type: 'CompleteLogin', newAccountId: accountId, providerSession: sealed, holderName: null, now: at(2) })
        .thenThrows('OTP_SESSION_INVALID'));

    it('counts no wrong OTP', () =>
      given([requested(), ended])
        .when({ type: 'RecordWrongOtp', now: at(2) })
        .thenThrows('OTP_SESSION_INVALID'));
  });

  const drawn = '9d8c7b6a-5f4e-4d3c-8b2a-190807060504';

  it('completes a new login with the drawn account id', () => {
    given([requested()])
      .when({ type: 'CompleteLogin', newAccountId: drawn, providerSession: sealed, holderName: 'SITI', now: at(1) })
      .then([
        WalletLoginCompleted({
          sessionId,
          ownerId,
          providerCode: 'WALLET-C',
          phoneNumber: '081200000000',
          purpose: { kind: 'new', providerCode: 'WALLET-C', accountName: 'C', intervalMinutes: 60 },
          accountId: drawn,
          pin: null,
          providerSession: sealed,
          holderName: 'SITI',
          completedAt: at(1).toISOString(),
        }),
      ]);
  });

  it('completes a relogin with its own account', () => {
    const relogin = OtpRequested({ ...requested().data, purpose: { kind: 'relogin', accountId } });
    given([relogin])
      .when({ type: 'CompleteLogin', newAccountId: drawn, providerSession: sealed, holderName: null, now: at(1) })
      .then([
        WalletLoginCompleted({
          sessionId,
          ownerId,
          providerCode: 'WALLET-C',
          phoneNumber: '081200000000',
          purpose: { kind: 'relogin', accountId },
          accountId,
          pin: null,
          providerSession: sealed,
          holderName: null,
          completedAt: at(1).toISOString(),
        }),
      ]);
  });

  it('lets a session be used only by its owner, for its provider and step, before it expires', () => {
    const first = fold([requested()]);
    const check = { ownerId, providerCode: 'WALLET-C', step: 'first' as const, now: at(4) };
    expect(usableSession(first, check).sessionId).toBe(sessionId);
    expect(() => usableSession(first, { ...check, now: at(5) })).toThrow(
      expect.objectContaining({ code: 'OTP_SESSION_INVALID' }),
    );
    expect(() => usableSession(first, { ...check, ownerId: nextSessionId })).toThrow(
      expect.objectContaining({ code: 'OTP_SESSION_INVALID' }),
    );
    expect(() => usableSession(first, { ...check, providerCode: 'WALLET-B' })).toThrow(
      expect.objectContaining({ code: 'OTP_SESSION_INVALID' }),
    );
    // an old step-1 session is refused at step 3, and a second-OTP session at step 2
    expect(() => usableSession(first, { ...check, step: 'second' })).toThrow(
      expect.objectContaining({ code: 'OTP_SESSION_INVALID' }),
    );
    const second = fold([requested(sessionId, nextSessionId)]);
    expect(usableSession(second, { ...check, step: 'second' }).sessionId).toBe(nextSessionId);
    expect(() => usableSession(second, check)).toThrow(expect.objectContaining({ code: 'OTP_SESSION_INVALID' }));
    expect(() => usableSession(fold([]), check)).toThrow(expect.objectContaining({ code: 'OTP_SESSION_INVALID' }));
  });
});
