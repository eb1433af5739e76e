import { describe, it } from 'vitest';
import { gatewayLedger, ledgerAccount } from '../../src/domain/gateway-ledger.ts';
import {
  BalanceSettled,
  GatewayPaymentCredited,
  WithdrawalPaid,
  WithdrawalRequested,
} from '../../src/events/gateway.ts';
import { specification } from '../support/decider.ts';

// A credit is booked, and settles, by when its money moved; a payout by when its transfer left.

const given = specification(gatewayLedger);
const merchantId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
const adminId = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const merchantUser = '2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e';
const holdingId = '3c1d2b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const paymentId = '00000000-0000-4000-8000-000000000001';
const withdrawalId = '00000000-0000-4000-8000-000000000003';
const holding = ledgerAccount.holding(holdingId);
const pending = ledgerAccount.pending(merchantId);
const settled = ledgerAccount.settled(merchantId);
const onHold = ledgerAccount.onHold(merchantId);

// Thursday 30 October 2025, 23:59:40 WIB, seen by the service at 00:02 on Friday
const paidAt = new Date('2025-10-30T16:59:40.000Z');
const seenAt = new Date('2025-10-30T17:02:00.000Z');
const fridayCutoff = new Date('2025-10-30T17:00:00.000Z');

const credit = (paid?: string) =>
  GatewayPaymentCredited({
    merchantId,
    paymentId,
    holdingAccountId: holdingId,
    totalAmount: 100_010,
    fee: 900,
    net: 99_100,
    completedAt: seenAt.toISOString(),
    postings: [
      { account: holding, amount: 100_010 },
      { account: pending, amount: -99_100 },
      { account: ledgerAccount.fees, amount: -900 },
      { account: ledgerAccount.uniqueCodes, amount: -10 },
    ],
    uniqueCode: 10,
    ...(paid ? { paidAt: paid } : {}),
  });

const settle = (cutoff: Date) => ({ type: 'SettleDue' as const, merchantId, cutoff, now: seenAt });

describe('effective time in the gateway ledger', () => {
  it('a payment is credited with the time its money moved', () => {
    given([])
      .when({
        type: 'CreditGatewayPayment',
        merchantId,
        paymentId,
        holdingAccountId: holdingId,
        totalAmount: 100_010,
        fee: 900,
        uniqueCode: 10,
        completedAt: seenAt,
        paidAt,
        now: seenAt,
      })
      .then([credit(paidAt.toISOString())]);
  });

  it("a payment paid before Friday's 00:00 and seen after it settles at Friday's cutoff", () => {
    given([credit(paidAt.toISOString())])
      .when(settle(fridayCutoff))
      .then([
        BalanceSettled({
          merchantId,
          paymentIds: [paymentId],
          amount: 99_100,
          cutoff: fridayCutoff.toISOString(),
          settledAt: seenAt.toISOString(),
          postings: [
            { account: pending, amount: 99_100 },
            { account: settled, amount: -99_100 },
          ],
        }),
      ]);
  });

  it('a credit from before the ledger kept paidAt settles by its completion, as it always did', () => {
    given([credit()]).when(settle(fridayCutoff)).then([]);
  });

  it('a payout keeps when its transfer left; a transfer after now is refused', () => {
    const requested = WithdrawalRequested({
      merchantId,
      withdrawalId,
      amount: 60_000,
      bankCode: 'BCA',
      accountNumber: '1234567890',
      accountHolderName: 'Joko Wijaya',
      requestedBy: merchantUser,
      requestedAt: '2025-11-03T03:00:00.000Z',
      postings: [
        { account: settled, amount: 60_000 },
        { account: onHold, amount: -60_000 },
      ],
    });
    const now = new Date('2025-11-03T17:10:00.000Z');
    const transferredAt = new Date('2025-11-03T16:50:00.000Z');
    const pay = {
      type: 'PayWithdrawal' as const,
      merchantId,
      withdrawalId,
      reference: 'BCA-TRF-0311',
      holdingAccountId: holdingId,
      paidBy: adminId,
      now,
    };
    given([requested])
      .when({ ...pay, transferredAt })
      .then([
        WithdrawalPaid({
          merchantId,
          withdrawalId,
          amount: 60_000,
          reference: 'BCA-TRF-0311',
          holdingAccountId: holdingId,
          paidBy: adminId,
          paidAt: now.toISOString(),
          postings: [
            { account: onHold, amount: 60_000 },
            { account: holding, amount: -60_000 },
          ],
          transferredAt: transferredAt.toISOString(),
        }),
      ]);
    given([requested])
      .when({ ...pay, transferredAt: new Date(now.getTime() + 1) })
      .thenThrows('INVALID_INPUT');
  });
});
