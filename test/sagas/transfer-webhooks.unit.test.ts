import { describe, it } from 'vitest';
import { transfer, transferStream } from '../../src/domain/transfer.ts';
import {
  BankTransferValidated,
  TransferCompleted,
  TransferFailed,
  TransferSubmitted,
  TransferUnconfirmed,
} from '../../src/events/transfer.ts';
import { deterministicUuid } from '../../src/ids.ts';
import { publishWebhook } from '../../src/sagas/reaction.ts';
import { readStream } from '../../src/sagas/reads.ts';
import { transferWebhooks } from '../../src/sagas/transfer-webhooks.ts';
import { reactionSpecification, stored } from './reaction-specification.ts';

const transferId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
const accountId = '3c1d2b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const ownerId = '6a0c1d2e-3f40-4152-8364-758697a8b9c0';
const mutationId = '7b1d2e3f-4051-4263-9475-8697a8b9c0d1';
const destination = {
  instId: 'BCA',
  instLocalName: 'BCA',
  payMethod: 'BANK',
  payOption: 'TRANSFER',
  accountNumber: '1234567890',
  accountName: 'Budi Santoso',
};
const validated = BankTransferValidated({
  transferId,
  accountId,
  ownerId,
  destination,
  amount: 50_000,
  validatedAt: '2026-03-02T03:00:00.000Z',
  expiresAt: '2026-03-02T03:15:00.000Z',
});
const submittedAt = '2026-03-02T03:01:00.000Z';
const bankSubmitted = TransferSubmitted({
  transferId,
  accountId,
  ownerId,
  kind: 'bank',
  amount: 50_000,
  qris: null,
  requestHash: null,
  submittedAt,
});
const qrisSubmitted = TransferSubmitted({
  transferId,
  accountId,
  ownerId,
  kind: 'qris',
  amount: 51_000,
  qris: { merchantName: 'Warung Sari', payload: 'qr', tip: 1_000 },
  requestHash: null,
  submittedAt,
});
const completed = TransferCompleted({
  transferId,
  accountId,
  ownerId,
  transactionId: 'TX1',
  mutationId,
  completedAt: '2026-03-02T03:02:00.000Z',
});
const unconfirmed = TransferUnconfirmed({
  transferId,
  accountId,
  ownerId,
  reason: 'timeout',
  mutationId,
  unconfirmedAt: '2026-03-02T03:02:00.000Z',
});
const failed = TransferFailed({
  transferId,
  accountId,
  ownerId,
  reason: 'rekening ditutup',
  reversalMutationId: mutationId,
  failedAt: '2026-03-02T03:07:00.000Z',
});
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
