import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { account, type AccountCommand, type FetchedTransaction } from '../../src/domain/account.ts';
import { retryDelayMinutes } from '../../src/commands/sync-account.ts';
import {
  AccountSettingsChanged,
  AccountSyncFailed,
  AccountSyncPaused,
  CredentialsChanged,
  MutationRecorded,
  ProviderSessionExpired,
  ProviderSessionRestored,
  StaticQrisCaptured,
} from '../../src/events/account.ts';
import type { AccountEvent } from '../../src/events/account.ts';
import { accountId, accountLinked, accountSynced } from '../support/account-fixtures.ts';
import { specification } from '../support/decider.ts';

const given = specification(account);
const ownerId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
const t0 = new Date('2026-01-05T03:00:00.000Z');
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
const sealedSession = { iv: 'i', tag: 't', data: 'd' };
/** A BCA bank account syncing every 5 minutes, its credentials and session sealed. */
const bank = {
  providerCode: 'BANK-BCA',
  accountName: 'Ops',
  accountNumber: '1234567890',
  phoneNumber: null,
  holderName: 'BUDI',
  intervalMinutes: 5,
  credentials: sealedSession,
  session: sealedSession,
};
const linked = accountLinked(t0.toISOString(), { ownerId, type: 'bank', ...bank });
const tx = (id: string, amount = 1000): FetchedTransaction => ({
  id,
  mutationId: `00000000-0000-4000-8000-${id.padStart(12, '0')}`,
  type: 'CREDIT',
  amount,
  description: 'transfer',
  senderName: 'SITI',
  reference: null,
  occurredAt: t0.toISOString(),
});
const recorded = (t: FetchedTransaction, now: Date): AccountEvent =>
  MutationRecorded({
    accountId,
    mutationId: t.mutationId,
    providerTransactionId: t.id,
    type: t.type,
    amount: t.amount,
    description: t.description,
    senderName: t.senderName,
    reference: t.reference,
    occurredAt: t.occurredAt,
    recordedAt: now.toISOString(),
  });
const sync = (slot: Date | null, transactions: FetchedTransaction[], now = at(1)): AccountCommand => ({
  type: 'RecordSync',
  slot: slot?.toISOString() ?? null,
  trigger: slot ? 'schedule' : 'refresh',
  balance: 5000,
  transactions,
  now,
});

/** A sync `minutes` after t0 that found a balance of 5,000. */
const synced = (minutes: number, fields: Parameters<typeof accountSynced>[1]) =>
  accountSynced(at(minutes).toISOString(), { balance: 5000, ...fields });

describe('account: linking and settings', () => {
  const link: AccountCommand = {
    type: 'LinkAccount',
    accountId,
    ownerId,
    accountType: 'bank',
    ...bank,
    isActive: true,
    syncsPaidUntil: null,
    now: t0,
  };

  it('links an account', () => {
    given([]).when(link).then([linked]);
  });

  it('links an account once: a retried link of the same id changes nothing', () => {
    given([linked]).when(link).then([]);
  });

  it("changes the owner's account name, interval and credentials", () => {
    const credentials = { iv: 'i2', tag: 't2', data: 'd2' };
    given([linked])
      .when({
        type: 'ChangeAccountSettings',
        ownerId,
        accountName: 'Shop',
        intervalMinutes: 15,
        credentials,
        now: at(1),
      })
      .then([
        AccountSettingsChanged({ accountId, accountName: 'Shop', intervalMinutes: 15, changedAt: at(1).toISOString() }),
        CredentialsChanged({ accountId, credentials, session: null, changedAt: at(1).toISOString() }),
      ]);
  });

  it("answers not-found to another owner's change", () => {
    given([linked])
      .when({
        type: 'ChangeAccountSettings',
        ownerId: '11111111-1111-4111-8111-111111111111',
        accountName: 'x',
        now: at(1),
      })
      .thenThrows('ACCOUNT_NOT_FOUND');
  });

  it("captures the merchant's static QRIS", () => {
    given([linked])
      .when({ type: 'CaptureStaticQris', payload: '000201', now: at(1) })
      .then([StaticQrisCaptured({ accountId, payload: '000201', capturedAt: at(1).toISOString() })]);
  });

  it('captures the same static QRIS once', () => {
    given([linked, StaticQrisCaptured({ accountId, payload: '000201', capturedAt: at(1).toISOString() })])
      .when({ type: 'CaptureStaticQris', payload: '000201', now: at(2) })
      .then([]);
  });
});

describe('account: the provider session', () => {
  const expired = ProviderSessionExpired({ accountId, expiredAt: at(3).toISOString() });
  const restoredBy = (loginSessionId: string | null, minutes: number) =>
    ProviderSessionRestored({
      accountId,
      session: sealedSession,
      loginSessionId,
      credentials: null,
      restoredAt: at(minutes).toISOString(),
    });

  it('marks the account inactive when the provider session expires', () => {
    given([linked])
      .when({ type: 'ExpireProviderSession', now: at(3) })
      .then([expired]);
  });

  it('marks the account inactive once', () => {
    given([linked, expired])
      .when({ type: 'ExpireProviderSession', now: at(4) })
      .then([]);
  });

  it('restores the session an OTP login gives', () => {
    given([linked, expired])
      .when({ type: 'RestoreProviderSession', session: sealedSession, loginSessionId: 'login-1', now: at(5) })
      .then([restoredBy('login-1', 5)]);
  });

  it('restores once per OTP login: the same login applied again changes nothing', () => {
    given([linked, expired, restoredBy('login-1', 5)])
      .when({ type: 'RestoreProviderSession', session: sealedSession, loginSessionId: 'login-1', now: at(6) })
      .then([]);
  });
});

describe('account: sync', () => {
  it('records new transactions and the balance of a sync', () => {
    given([linked])
      .when(sync(t0, [tx('1'), tx('2')]))
      .then([
        recorded(tx('1'), at(1)),
        recorded(tx('2'), at(1)),
        synced(1, { slot: t0.toISOString(), cursor: '2', trigger: 'schedule' }),
      ]);
  });

  it('records a transaction once even when the same page comes again', () => {
    const first = [recorded(tx('1'), at(1)), synced(1, { cursor: '1' })];
    given([linked, ...first])
      .when(sync(null, [tx('1'), tx('2'), tx('2')], at(2)))
      .then([recorded(tx('2'), at(2)), synced(2, { cursor: '2' })]);
  });

  it('serves a slot once: a second job for the same or an older slot does nothing', () => {
    const done = synced(1, { slot: at(5).toISOString(), trigger: 'schedule' });
    given([linked, done])
      .when(sync(at(5), [tx('9')]))
      .then([]);
  });

  it('serves no slot older than the last one served', () => {
    const done = synced(1, { slot: at(5).toISOString(), trigger: 'schedule' });
    given([linked, done])
      .when(sync(at(0), [tx('9')]))
      .then([]);
  });

  it('counts consecutive failures and asks when to retry', () => {
    const failed = (n: number) =>
      AccountSyncFailed({
        accountId,
        reason: 'unavailable',
        failedAt: at(1).toISOString(),
        consecutiveFailures: n,
        retryAt: at(1 + n).toISOString(),
      });
    given([linked, failed(1)])
      .when({ type: 'RecordSyncFailure', reason: 'unavailable', now: at(1), retryAt: n => at(1 + n) })
      .then([failed(2)]);
  });

  it('pauses a sync the owner has no points for', () => {
    given([linked])
      .when({ type: 'PauseSync', reason: 'not-enough-points', now: at(1) })
      .then([AccountSyncPaused({ accountId, reason: 'not-enough-points', pausedAt: at(1).toISOString() })]);
  });

  it('answers not-found to a sync of an account that does not exist', () => {
    given([]).when(sync(t0, [])).thenThrows('ACCOUNT_NOT_FOUND');
  });

  test.prop([fc.array(fc.array(fc.integer({ min: 1, max: 30 }), { maxLength: 10 }), { maxLength: 8 })])(
    'whatever pages arrive, in whatever overlap, each provider transaction is recorded exactly once',
    pages => {
      let history: AccountEvent[] = [linked];
      pages.forEach((page, i) => {
        const events = account.decide(
          history.reduce(account.evolve, account.initialState()),
          sync(
            null,
            page.map(n => tx(String(n))),
            at(i + 1),
          ),
        );
        history = [...history, ...events];
      });
      const ids = history
        .filter(e => e.type === 'MutationRecorded')
        .map(e => (e.data as { providerTransactionId: string }).providerTransactionId);
      expect(new Set(ids).size).toBe(ids.length);
      expect(new Set(ids)).toEqual(new Set(pages.flat().map(String)));
    },
  );
});

describe('retry backoff', () => {
  test.prop([fc.integer({ min: 1, max: 100 }), fc.integer({ min: 5, max: 1440 })])(
    'doubles from one minute and never exceeds the interval',
    (n, interval) => {
      const delay = retryDelayMinutes(n, interval);
      expect(delay).toBeGreaterThanOrEqual(1);
      expect(delay).toBeLessThanOrEqual(interval);
      if (n > 1) expect(delay).toBeGreaterThanOrEqual(Math.min(retryDelayMinutes(n - 1, interval), interval));
    },
  );
});
