import { describe, it } from 'vitest';
import { transfer } from '../../src/domain/transfer.ts';
import {
  BankTransferValidated,
  TransferCompleted,
  TransferFailed,
  TransferSubmitted,
  TransferUnconfirmed,
} from '../../src/events/transfer.ts';
import { specification } from '../support/decider.ts';

const now = new Date('2026-03-02T03:00:00.000Z');
const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
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
  validatedAt: now.toISOString(),
  expiresAt: at(15).toISOString(),
});
const submit = {
  type: 'SubmitTransfer' as const,
  transferId,
  accountId,
  ownerId,
  kind: 'bank' as const,
  amount: 50_000,
  qris: null,
  requestHash: null,
};
const submitted = TransferSubmitted({
  transferId,
  accountId,
  ownerId,
  kind: 'bank',
  amount: 50_000,
  qris: null,
  requestHash: null,
  submittedAt: at(1).toISOString(),
});

const ours = { transferId, accountId, ownerId };
const completed = TransferCompleted({ ...ours, transactionId: 'TX1', mutationId, completedAt: at(2).toISOString() });
const unconfirmed = TransferUnconfirmed({
  ...ours,
  reason: 'timeout',
  mutationId,
  unconfirmedAt: at(2).toISOString(),
});
const keyed = TransferSubmitted({ ...submitted.data, requestHash: 'h' });
const given = specification(transfer);

describe('a transfer: validated and sent', () => {
  it('sends a validated bank transfer of the validated amount', () => {
    given([validated])
      .when({ ...submit, now: at(1) })
      .then([submitted]);
  });

  it('sends a bank transfer once: its index is used', () => {
    given([validated, submitted])
      .when({ ...submit, now: at(2) })
      .thenThrows('BANK_ACCOUNT_INDEX_INVALID');
  });

  it('refuses an index that expired', () => {
    given([validated])
      .when({ ...submit, now: at(15) })
      .thenThrows('BANK_ACCOUNT_INDEX_INVALID');
  });

  it('refuses an unknown index', () => {
    given([])
      .when({ ...submit, now: at(1) })
      .thenThrows('BANK_ACCOUNT_INDEX_INVALID');
  });

  it("refuses another account's index", () => {
    given([validated])
      .when({ ...submit, accountId: ownerId, now: at(1) })
      .thenThrows('BANK_ACCOUNT_INDEX_INVALID');
  });

  it('refuses an amount other than the validated one', () => {
    given([validated])
      .when({ ...submit, amount: 50_001, now: at(1) })
      .thenThrows('TRANSFER_AMOUNT_MISMATCH');
  });

  it('answers the same request again (same Idempotency-Key and body) by changing nothing', () => {
    given([validated, keyed])
      .when({ ...submit, requestHash: 'h', now: at(2) })
      .then([]);
  });

  it('refuses the same index under another request', () => {
    given([validated, keyed])
      .when({ ...submit, requestHash: 'other', now: at(2) })
      .thenThrows('BANK_ACCOUNT_INDEX_INVALID');
  });
});

describe('a transfer: its outcome', () => {
  it('completes a submitted transfer', () => {
    given([validated, submitted])
      .when({ type: 'CompleteTransfer', transactionId: 'TX1', mutationId, now: at(2) })
      .then([completed]);
  });

  it('marks a submitted transfer unconfirmed', () => {
    given([validated, submitted])
      .when({ type: 'MarkTransferUnconfirmed', reason: 'timeout', mutationId, now: at(2) })
      .then([unconfirmed]);
  });

  it('fails an unconfirmed transfer', () => {
    given([validated, submitted, unconfirmed])
      .when({ type: 'FailTransfer', reason: 'failed', reversalMutationId: mutationId, now: at(3) })
      .then([
        TransferFailed({ ...ours, reason: 'failed', reversalMutationId: mutationId, failedAt: at(3).toISOString() }),
      ]);
  });

  it('never fails a completed transfer', () => {
    given([validated, submitted, completed])
      .when({ type: 'FailTransfer', reason: 'late', reversalMutationId: null, now: at(3) })
      .then([]);
  });

  it('completes a transfer once', () => {
    given([validated, submitted, completed])
      .when({ type: 'CompleteTransfer', transactionId: 'TX2', mutationId, now: at(3) })
      .then([]);
  });
});
