import { describe, it } from 'vitest';
import { transfer } from '../../src/domain/transfer.ts';
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
import { specification } from '../support/decider.ts';

const now = new Date('2026-03-02T03:00:00.000Z');
const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
const validated = bankTransferValidated(now.toISOString(), at(15).toISOString());
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
const submitted = transferSubmitted(at(1).toISOString());
const completed = transferCompleted('TX1', mutationId, at(2).toISOString());
const unconfirmed = transferUnconfirmed(mutationId, at(2).toISOString());
const keyed = transferSubmitted(at(1).toISOString(), { requestHash: 'h' });
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
      .then([transferFailed('failed', mutationId, at(3).toISOString())]);
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
