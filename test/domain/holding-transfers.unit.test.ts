import { describe, it } from 'vitest';
import {
  holdingTransfers,
  type HoldingTransferCommand,
  type SeenMutation,
} from '../../src/domain/holding-transfers.ts';
import {
  HoldingTransferCreditReleased,
  HoldingTransferMutationMatched,
  HoldingTransferRecorded,
} from '../../src/events/holding-transfers.ts';
import { specification } from '../support/decider.ts';

const given = specification(holdingTransfers);
const qris = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const walletA = '2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e';
const adminId = '3c4d5e6f-7a8b-4c9d-8e0f-2a3b4c5d6e7f';
const transferId = '4d5e6f7a-8b9c-4d0e-9f1a-3b4c5d6e7f8a';
const mutationId = '5e6f7a8b-9c0d-4e1f-8a2b-4c5d6e7f8a9b';
const now = new Date('2026-01-05T03:00:00.000Z');

type Record = Extract<HoldingTransferCommand, { type: 'RecordHoldingTransfer' }>;
const record = (fields: Partial<Record> = {}): Record => ({
  type: 'RecordHoldingTransfer',
  transferId,
  fromAccountId: qris,
  toAccountId: walletA,
  amount: 1_000_000,
  reference: 'HAND-1',
  note: null,
  sourceCash: 2_992_600,
  holdingAccountIds: [qris, walletA],
  seen: [],
  adminId,
  now,
  ...fields,
});
const recorded = HoldingTransferRecorded({
  transferId,
  fromAccountId: qris,
  toAccountId: walletA,
  amount: 1_000_000,
  reference: 'HAND-1',
  note: null,
  recordedBy: adminId,
  recordedAt: now.toISOString(),
  postings: [
    { account: `holding:${walletA}`, amount: 1_000_000 },
    { account: `holding:${qris}`, amount: -1_000_000 },
  ],
});
const mutation = (side: 'DEBIT' | 'CREDIT', fields: Partial<SeenMutation> = {}): SeenMutation => ({
  mutationId,
  accountId: side === 'DEBIT' ? qris : walletA,
  side,
  amount: 1_000_000,
  occurredAt: '2026-01-05T02:58:00.000Z',
  ...fields,
});
const matched = (m: SeenMutation) => HoldingTransferMutationMatched({ transferId, ...m });

describe('holding transfers', () => {
  it('books the destination debited and the source credited', () => {
    given([]).when(record()).then([recorded]);
  });

  it('is booked once: recording it again changes nothing', () => {
    given([recorded]).when(record()).then([]);
  });

  it("refuses more than the source's ledger cash", () => {
    given([])
      .when(record({ sourceCash: 999_999 }))
      .thenThrows('HOLDING_CASH_SHORT');
  });

  it("takes all of the source's ledger cash", () => {
    given([])
      .when(record({ sourceCash: 1_000_000 }))
      .then([recorded]);
  });

  it('refuses a transfer from an account to itself', () => {
    given([])
      .when(record({ toAccountId: qris }))
      .thenThrows('HOLDING_TRANSFER_INVALID');
  });

  it("refuses a transfer to an account that is not the platform's", () => {
    given([])
      .when(record({ holdingAccountIds: [qris] }))
      .thenThrows('HOLDING_TRANSFER_INVALID');
  });

  it('takes the DEBIT synchronised before it as its source side, and is dated by it', () => {
    const debit = mutation('DEBIT');
    const dated = { ...recorded, data: { ...recorded.data, transferredAt: debit.occurredAt } };
    given([])
      .when(record({ seen: [mutation('DEBIT', { amount: 999 }), debit] }))
      .then([dated, matched(debit)]);
  });

  describe('a CREDIT in suspense on the destination', () => {
    const suspenseId = '6f7a8b9c-0d1e-4f2a-9b3c-5d6e7f8a9b0c';
    const credit = mutation('CREDIT');

    it("is taken as its side: suspense debited, the destination's cash counted once", () => {
      const debit = mutation('DEBIT', { mutationId: transferId });
      const outOfSuspense = {
        ...recorded,
        data: {
          ...recorded.data,
          transferredAt: debit.occurredAt,
          suspenseId,
          postings: [
            { account: 'platform:suspense', amount: 1_000_000 },
            { account: `holding:${qris}`, amount: -1_000_000 },
          ],
        },
      };
      given([])
        .when(record({ seen: [debit], suspenseCredit: { suspenseId, mutation: credit } }))
        .then([outOfSuspense, matched(debit), matched(credit)]);
    });

    it("is not taken when it is not the destination's: booked as ever", () => {
      given([])
        .when(record({ suspenseCredit: { suspenseId, mutation: mutation('CREDIT', { accountId: qris }) } }))
        .then([recorded]);
    });

    it('is not taken when it is not of the amount: booked as ever', () => {
      given([])
        .when(record({ suspenseCredit: { suspenseId, mutation: mutation('CREDIT', { amount: 999 }) } }))
        .then([recorded]);
    });

    it('is not taken when another transfer took it already: booked as ever', () => {
      const otherId = '7a8b9c0d-1e2f-4a3b-8c4d-6e7f8a9b0c1d';
      const other = { ...recorded, data: { ...recorded.data, transferId: otherId, reference: 'HAND-0' } };
      given([other, HoldingTransferMutationMatched({ ...credit, transferId: otherId })])
        .when(record({ suspenseCredit: { suspenseId, mutation: credit } }))
        .then([recorded]);
    });
  });

  it('is not dated again by a DEBIT matched after it was recorded', () => {
    const debit = mutation('DEBIT');
    given([recorded])
      .when({ type: 'MatchHoldingTransferMutation', mutation: debit })
      .then([matched(debit)]);
  });

  describe('matching a side', () => {
    const credit = mutation('CREDIT');

    it('matches the destination side by account and amount', () => {
      given([recorded])
        .when({ type: 'MatchHoldingTransferMutation', mutation: credit })
        .then([matched(credit)]);
    });

    it('matches a side once: the same mutation again changes nothing', () => {
      given([recorded, matched(credit)])
        .when({ type: 'MatchHoldingTransferMutation', mutation: credit })
        .then([]);
    });

    it('matches no second mutation for a side already matched', () => {
      given([recorded, matched(credit)])
        .when({ type: 'MatchHoldingTransferMutation', mutation: { ...credit, mutationId: transferId } })
        .then([]);
    });

    it('matches no CREDIT on another account', () => {
      given([recorded])
        .when({ type: 'MatchHoldingTransferMutation', mutation: mutation('CREDIT', { accountId: qris }) })
        .then([]);
    });

    it('matches no DEBIT of another amount', () => {
      given([recorded])
        .when({ type: 'MatchHoldingTransferMutation', mutation: mutation('DEBIT', { amount: 1_000_001 }) })
        .then([]);
    });
  });

  describe('a suspense credit it took, given back', () => {
    const suspenseId = '6f7a8b9c-0d1e-4f2a-9b3c-5d6e7f8a9b0c';
    const credit = mutation('CREDIT');
    const tookCredit = HoldingTransferRecorded({
      ...recorded.data,
      suspenseId,
      postings: [
        { account: 'platform:suspense', amount: 1_000_000 },
        { account: `holding:${qris}`, amount: -1_000_000 },
      ],
    });
    const release = (fields: Partial<Extract<HoldingTransferCommand, { type: 'ReleaseSuspenseCredit' }>> = {}) => ({
      type: 'ReleaseSuspenseCredit' as const,
      transferId,
      suspenseId,
      reason: 'Pembayaran pelanggan',
      adminId,
      now,
      ...fields,
    });
    const released = HoldingTransferCreditReleased({
      transferId,
      suspenseId,
      mutationId,
      toAccountId: walletA,
      amount: 1_000_000,
      reason: 'Pembayaran pelanggan',
      releasedBy: adminId,
      releasedAt: now.toISOString(),
      postings: [
        { account: `holding:${walletA}`, amount: 1_000_000 },
        { account: 'platform:suspense', amount: -1_000_000 },
      ],
    });

    it("books the destination as a transfer's (suspense credited again)", () => {
      given([tookCredit, matched(credit)])
        .when(release())
        .then([released]);
    });

    it('awaits a later CREDIT as its destination side', () => {
      const later = mutation('CREDIT', { mutationId: '8b9c0d1e-2f3a-4b4c-9d5e-7f8a9b0c1d2e' });
      given([tookCredit, matched(credit), released])
        .when({ type: 'MatchHoldingTransferMutation', mutation: later })
        .then([matched(later)]);
    });

    it('leaves the credit free for another transfer whose destination side it was', () => {
      const otherId = '7a8b9c0d-1e2f-4a3b-8c4d-6e7f8a9b0c1d';
      const other = record({
        transferId: otherId,
        reference: 'HAND-2',
        suspenseCredit: { suspenseId, mutation: credit },
      });
      const taken = HoldingTransferRecorded({ ...tookCredit.data, transferId: otherId, reference: 'HAND-2' });
      given([tookCredit, matched(credit), released])
        .when(other)
        .then([taken, HoldingTransferMutationMatched({ ...credit, transferId: otherId })]);
    });

    it('is refused once given back', () => {
      given([tookCredit, matched(credit), released])
        .when(release())
        .thenThrows('SUSPENSE_ALREADY_UNTRANSFERRED');
    });

    it('is refused for a transfer that took no suspense credit', () => {
      given([recorded, matched(credit)])
        .when(release())
        .thenThrows('SUSPENSE_ALREADY_UNTRANSFERRED');
    });

    it('is refused for a credit other than the one it took', () => {
      given([tookCredit, matched(credit)])
        .when(release({ suspenseId: transferId }))
        .thenThrows('SUSPENSE_ALREADY_UNTRANSFERRED');
    });

    it('is refused without a reason', () => {
      given([tookCredit, matched(credit)])
        .when(release({ reason: ' ' }))
        .thenThrows('INVALID_INPUT');
    });
  });
});
