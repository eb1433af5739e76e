import { describe, it } from 'vitest';
import { suspense, type SuspenseCommand } from '../../src/domain/gateway-suspense.ts';
import {
  SuspenseCreditAllocated,
  SuspenseCreditReceived,
  SuspenseCreditTransferred,
  SuspenseCreditUntransferred,
} from '../../src/events/gateway-suspense.ts';
import { specification } from '../support/decider.ts';

const given = specification(suspense);
const suspenseId = '6f7a8b9c-0d1e-4f2a-9b3c-5d6e7f8a9b0c';
const mutationId = '5e6f7a8b-9c0d-4e1f-8a2b-4c5d6e7f8a9b';
const qris = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const adminId = '3c4d5e6f-7a8b-4c9d-8e0f-2a3b4c5d6e7f';
const transferId = '4d5e6f7a-8b9c-4d0e-9f1a-3b4c5d6e7f8a';
const otherTransfer = '7a8b9c0d-1e2f-4a3b-8c4d-6e7f8a9b0c1d';
const merchantId = '8b9c0d1e-2f3a-4b4c-9d5e-7f8a9b0c1d2e';
const now = new Date('2026-01-05T03:00:00.000Z');

const received = SuspenseCreditReceived({
  suspenseId,
  mutationId,
  accountId: qris,
  providerCode: 'WALLET-D',
  amount: 250_000,
  senderName: 'Pindah dana',
  reference: null,
  receivedAt: '2026-01-05T02:58:00.000Z',
  postings: [
    { account: `holding:${qris}`, amount: 250_000 },
    { account: 'platform:suspense', amount: -250_000 },
  ],
});
const transferred = (by = transferId) =>
  SuspenseCreditTransferred({
    suspenseId,
    transferId: by,
    accountId: qris,
    amount: 250_000,
    resolvedBy: adminId,
    resolvedAt: '2026-01-05T02:59:00.000Z',
  });
const untransfer = (reason = 'Pembayaran pelanggan, bukan pemindahan'): SuspenseCommand => ({
  type: 'UntransferSuspenseCredit',
  suspenseId,
  reason,
  adminId,
  now,
});
const untransferred = (by = transferId) =>
  SuspenseCreditUntransferred({
    suspenseId,
    transferId: by,
    accountId: qris,
    amount: 250_000,
    reason: 'Pembayaran pelanggan, bukan pemindahan',
    untransferredBy: adminId,
    untransferredAt: now.toISOString(),
  });

/** the credit allocated to a merchant without a payment */
const allocation = {
  suspenseId,
  merchantId,
  paymentId: null,
  amount: 250_000,
  fee: 1_750,
  net: 248_250,
  note: null,
  allocatedBy: adminId,
  allocatedAt: now.toISOString(),
};

describe('a suspense credit given back from the hand transfer that took it', () => {
  it('goes back naming the transfer, with the reason trimmed', () => {
    given([received, transferred()])
      .when(untransfer('  Pembayaran pelanggan, bukan pemindahan '))
      .then([untransferred()]);
  });

  it('is OPEN again once given back: allocated as any', () => {
    given([received, transferred(), untransferred()])
      .when({
        type: 'AllocateSuspenseCredit',
        suspenseId,
        merchantId,
        paymentId: null,
        fee: 1_750,
        uniqueCode: 0,
        note: null,
        adminId,
        now,
      })
      .then([SuspenseCreditAllocated(allocation)]);
  });

  it('is refused for an open credit no transfer took', () => {
    given([received]).when(untransfer()).thenThrows('SUSPENSE_NOT_TRANSFERRED');
  });

  it('is refused for an allocated credit', () => {
    given([received, SuspenseCreditAllocated(allocation)])
      .when(untransfer())
      .thenThrows('SUSPENSE_NOT_TRANSFERRED');
  });

  it('is refused for an unknown credit', () => {
    given([]).when(untransfer()).thenThrows('SUSPENSE_NOT_FOUND');
  });

  it('is refused as such when given back already', () => {
    given([received, transferred(), untransferred()]).when(untransfer()).thenThrows('SUSPENSE_ALREADY_UNTRANSFERRED');
  });

  it('goes back from another transfer that took it again', () => {
    given([received, transferred(), untransferred(), transferred(otherTransfer)])
      .when(untransfer())
      .then([untransferred(otherTransfer)]);
  });

  it('needs a reason', () => {
    given([received, transferred()]).when(untransfer('   ')).thenThrows('INVALID_INPUT');
  });
});
