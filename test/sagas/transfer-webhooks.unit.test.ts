import { describe, it } from 'vitest';
import { transfer, transferStream } from '../../src/domain/transfer.ts';
import { deterministicUuid } from '../../src/ids.ts';
import { publishWebhook } from '../../src/sagas/reaction.ts';
import { readStream } from '../../src/sagas/reads.ts';
import { transferWebhooks } from '../../src/sagas/transfer-webhooks.ts';
import {
  accountId,
  bankTransferValidated,
  mutationId,
  ownerId,
  transferCompleted,
  transferFailed,
  transferId,
  transferSubmitted,
  transferUnconfirmed,
} from '../support/account-fixtures.ts';
import { reactionSpecification, stored } from './reaction-specification.ts';

const validated = bankTransferValidated('2026-03-02T03:00:00.000Z', '2026-03-02T03:15:00.000Z');
const submittedAt = '2026-03-02T03:01:00.000Z';
const bankSubmitted = transferSubmitted(submittedAt);
const qrisSubmitted = transferSubmitted(submittedAt, {
  kind: 'qris',
  amount: 51_000,
  qris: { merchantName: 'Warung Sari', payload: 'qr', tip: 1_000 },
});
const completed = transferCompleted('TX1', mutationId, '2026-03-02T03:02:00.000Z');
const unconfirmed = transferUnconfirmed(mutationId, '2026-03-02T03:02:00.000Z');
const failed = transferFailed('rekening ditutup', mutationId, '2026-03-02T03:07:00.000Z');
const at = { streamId: transferStream(transferId), revision: 2 };

describe('transfer webhooks reaction', () => {
  const { given } = reactionSpecification(transferWebhooks);

  it('reads the transfer from its stream', () =>
    given([])
      .when(stored(failed, at))
      .reads(readStream(transferStream(transferId), transfer)));

  it('publishes transfer.completed for a bank transfer with its destination, under an id derived from the transfer', () =>
    given([validated, bankSubmitted, completed])
      .when(stored(completed, at))
      .then([
        publishWebhook({
          ownerId,
          eventId: deterministicUuid(`webhook:${transferId}:transfer.completed`),
          type: 'transfer.completed',
          createdAt: '2026-03-02T03:02:00.000Z',
          data: {
            id: transferId,
            accountId,
            kind: 'bank',
            amount: 50_000,
            status: 'COMPLETED',
            destination: {
              instId: 'BCA',
              instLocalName: 'BCA',
              accountNumber: '1234567890',
              accountName: 'Budi Santoso',
            },
            submittedAt,
          },
        }),
      ]));

  it('publishes transfer.failed for an unconfirmed QR transfer with its merchant, tip and reason', () =>
    given([qrisSubmitted, unconfirmed, failed])
      .when(stored(failed, at))
      .then([
        publishWebhook({
          ownerId,
          eventId: deterministicUuid(`webhook:${transferId}:transfer.failed`),
          type: 'transfer.failed',
          createdAt: '2026-03-02T03:07:00.000Z',
          data: {
            id: transferId,
            accountId,
            kind: 'qris',
            amount: 51_000,
            status: 'FAILED',
            merchantName: 'Warung Sari',
            tip: 1_000,
            reason: 'rekening ditutup',
            submittedAt,
          },
        }),
      ]));

  it('publishes nothing for a transfer whose stream is gone or holds only its validation', () => {
    given([]).when(stored(completed, at)).then([]);
    given([validated]).when(stored(completed, at)).then([]);
  });
});
