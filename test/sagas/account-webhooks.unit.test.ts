import { describe, it } from 'vitest';
import { account, accountStream } from '../../src/domain/account.ts';
import {
  AccountLinked,
  AccountSyncFailed,
  MutationRecorded,
  ProviderSessionExpired,
} from '../../src/events/account.ts';
import { deterministicUuid } from '../../src/ids.ts';
import { accountWebhooks, newsForMs, syncFailuresReported } from '../../src/sagas/account-webhooks.ts';
import { publishWebhook } from '../../src/sagas/reaction.ts';
import { readStream } from '../../src/sagas/reads.ts';
import { reactionSpecification, stored, t0 } from './reaction-specification.ts';

const ownerId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
const accountId = '5b7c1d2e-3f4a-4b5c-8d6e-7f8a9b0c1d2e';
const mutationId = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const at = t0.toISOString();
const linked = AccountLinked({
  accountId,
  ownerId,
  type: 'bank',
  providerCode: 'BANK-BNI',
  accountName: 'Toko',
  accountNumber: '5500000001',
  phoneNumber: null,
  holderName: null,
  intervalMinutes: 10,
  credentials: null,
  session: null,
  isActive: true,
  linkedAt: at,
});
const where = (revision: number) => ({ streamId: accountStream(accountId), revision });
const recorded = stored(
  MutationRecorded({
    accountId,
    mutationId,
    providerTransactionId: 'tx-1',
    type: 'CREDIT',
    amount: 42_000,
    description: 'Transfer masuk',
    senderName: 'BUDI',
    reference: null,
    occurredAt: '2026-03-02T02:59:00.000Z',
    recordedAt: at,
  }),
  where(1),
);
const failed = (consecutiveFailures: number) =>
  stored(
    AccountSyncFailed({
      accountId,
      reason: 'unavailable',
      failedAt: at,
      consecutiveFailures,
      retryAt: '2026-03-02T03:04:00.000Z',
    }),
    where(1 + consecutiveFailures),
  );
const expired = stored(ProviderSessionExpired({ accountId, expiredAt: at }), where(2));
const about = { accountId, accountType: 'bank', providerCode: 'BANK-BNI' };

describe('account webhooks reaction', () => {
  const { given } = reactionSpecification(accountWebhooks);

  it("reads the account's stream for its owner", () =>
    given([linked])
      .when(recorded)
      .reads(readStream(accountStream(accountId), account)));

  it('publishes mutation.created as the mutations list shows it, under the mutation id, about its account and type', () =>
    given([linked])
      .when(recorded)
      .then([
        publishWebhook({
          ownerId,
          eventId: deterministicUuid(`webhook:${mutationId}:mutation.created`),
          type: 'mutation.created',
          createdAt: at,
          data: {
            id: mutationId,
            accountId,
            accountType: 'bank',
            amount: 42_000,
            type: 'CREDIT',
            description: 'Transfer masuk',
            senderName: 'BUDI',
            reference: null,
            status: 'SUCCESS',
            createdAt: '2026-03-02T02:59:00.000Z',
          },
          subject: { accountId, mutationType: 'CREDIT' },
        }),
      ]));

  it('sends nothing for history: an event older than a day when the reaction reads it (a replay of the log)', () => {
    given([linked])
      .when(recorded, new Date(t0.getTime() + newsForMs + 1))
      .then([]);
    given([linked])
      .when(expired, new Date(t0.getTime() + newsForMs + 1))
      .then([]);
  });

  it('sends nothing for an account no longer linked', () => given([]).when(recorded).then([]));

  it('publishes account.needs_relogin when the provider session could not be renewed', () =>
    given([linked])
      .when(expired)
      .then([
        publishWebhook({
          ownerId,
          eventId: deterministicUuid(`webhook:${expired.metadata.eventId}:account.needs_relogin`),
          type: 'account.needs_relogin',
          createdAt: at,
          data: { ...about, reason: 'session-expired', at },
          subject: { accountId },
        }),
      ]));

  it(`publishes account.sync_failed once a run of failures, at its ${syncFailuresReported}rd failure`, () => {
    for (const n of [1, 2, syncFailuresReported + 1, syncFailuresReported + 5])
      given([linked]).when(failed(n)).then([]);
    given([linked])
      .when(failed(syncFailuresReported))
      .then([
        publishWebhook({
          ownerId,
          eventId: deterministicUuid(`webhook:${failed(3).metadata.eventId}:account.sync_failed`),
          type: 'account.sync_failed',
          createdAt: at,
          data: {
            ...about,
            reason: 'unavailable',
            at,
            consecutiveFailures: 3,
            retryAt: '2026-03-02T03:04:00.000Z',
          },
          subject: { accountId },
        }),
      ]);
  });
});
