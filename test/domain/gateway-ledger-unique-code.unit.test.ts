import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { GatewaySettings } from '../../src/config.ts';
import { gatewayBill, type GatewayMethod } from '../../src/domain/gateway-fees.ts';
import {
  gatewayLedger,
  ledgerAccount,
  merchantBalance,
  type GatewayLedgerCommand,
} from '../../src/domain/gateway-ledger.ts';
import { serialise } from '../../src/events/event.ts';
import { BalanceSettled, GatewayPaymentCredited, GatewaySuspenseAllocated } from '../../src/events/gateway.ts';
import { specification } from '../support/decider.ts';

// The interface's gateway rules 3 and 4: the merchant is credited the requested amount less its fee (fee deducted) or
// exactly the requested amount (fee to the customer); the unique code the buyer pays on top is the platform's.

const limitsTable: GatewaySettings = {
  vaFee: 3000,
  qrisFee: { rateBp: 70, flat: 200 },
  limits: { qris: { min: 1000, max: 10_000_000 }, va: { min: 10_000, max: 50_000_000 } },
  minWithdrawal: 50_000,
};
const t0 = new Date('2026-03-02T03:00:00.000Z');
const merchantId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
const adminId = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const holdingId = '3c1d2b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const paymentId = '00000000-0000-4000-8000-000000000001';
const suspenseId = '00000000-0000-4000-8000-000000000002';
const holding = ledgerAccount.holding(holdingId);
const pending = ledgerAccount.pending(merchantId);

type Credit = Extract<GatewayLedgerCommand, { type: 'CreditGatewayPayment' }>;
const credit = (totalAmount: number, fee: number, uniqueCode: number): Credit => ({
  type: 'CreditGatewayPayment',
  merchantId,
  paymentId,
  holdingAccountId: holdingId,
  totalAmount,
  fee,
  uniqueCode,
  completedAt: t0,
  now: t0,
});
const credited = (totalAmount: number, fee: number, uniqueCode: number, net: number) =>
  GatewayPaymentCredited({
    merchantId,
    paymentId,
    holdingAccountId: holdingId,
    totalAmount,
    fee,
    net,
    completedAt: t0.toISOString(),
    postings: [
      { account: holding, amount: totalAmount },
      { account: pending, amount: -net },
      ...(fee > 0 ? [{ account: ledgerAccount.fees, amount: -fee }] : []),
      ...(uniqueCode > 0 ? [{ account: ledgerAccount.uniqueCodes, amount: -uniqueCode }] : []),
    ],
    uniqueCode,
  });

describe('a gateway credit and its unique code', () => {
  const given = specification(gatewayLedger);

  it('given the fee deducted, when 100,000 is paid with code 10 (100,010), then the merchant is owed 99,100 and the platform 900 and 10', () =>
    given([])
      .when(credit(100_010, 900, 10))
      .then([credited(100_010, 900, 10, 99_100)]));

  it('given the fee to the customer, when the bill of 100,000 (100,906, fee 906) is paid with code 10, then the merchant is owed exactly 100,000', () => {
    const bill = gatewayBill('QRIS-DYNAMIC', 100_000, true, limitsTable);
    expect(bill).toMatchObject({ amount: 100_906, fee: 906 });
    given([])
      .when(credit(bill.amount + 10, bill.fee, 10))
      .then([credited(100_916, 906, 10, 100_000)]);
  });

  it('given a virtual account (no code), when it is paid, then nothing goes to the unique codes and the event says 0', () =>
    given([])
      .when(credit(103_000, 3000, 0))
      .then([credited(103_000, 3000, 0, 100_000)]));

  it('refuses a credit whose fee and code are more than what was paid', () =>
    given([])
      .when(credit(1000, 995, 10))
      .thenThrows('INVALID_INPUT'));

  it('keeps what an old credit booked: the code in the merchant net, settled as such', () => {
    const old = GatewayPaymentCredited({
      merchantId,
      paymentId,
      holdingAccountId: holdingId,
      totalAmount: 100_010,
      fee: 900,
      net: 99_110,
      completedAt: t0.toISOString(),
      postings: [
        { account: holding, amount: 100_010 },
        { account: pending, amount: -99_110 },
        { account: ledgerAccount.fees, amount: -900 },
      ],
    });
    const state = gatewayLedger.evolve(gatewayLedger.initialState(), old);
    expect(merchantBalance(state, merchantId).pending).toBe(99_110);
    const cutoff = new Date(t0.getTime() + 86_400_000);
    given([old])
      .when({ type: 'SettleDue', merchantId, cutoff, now: cutoff })
      .then([
        BalanceSettled({
          merchantId,
          paymentIds: [paymentId],
          amount: 99_110,
          cutoff: cutoff.toISOString(),
          settledAt: cutoff.toISOString(),
          postings: [
            { account: pending, amount: 99_110 },
            { account: ledgerAccount.settled(merchantId), amount: -99_110 },
          ],
        }),
      ]);
  });

  it('allocates a suspense credit of exactly its payment total as the payment: its own fee, its code to the platform', () =>
    given([])
      .when({
        type: 'AllocateSuspense',
        merchantId,
        suspenseId,
        paymentId,
        holdingAccountId: holdingId,
        amount: 10_450,
        fee: 270,
        uniqueCode: 450,
        allocatedBy: adminId,
        now: t0,
      })
      .then([
        GatewaySuspenseAllocated({
          merchantId,
          suspenseId,
          paymentId,
          holdingAccountId: holdingId,
          amount: 10_450,
          fee: 270,
          net: 9_730,
          allocatedBy: adminId,
          allocatedAt: t0.toISOString(),
          postings: [
            { account: ledgerAccount.suspense, amount: 10_450 },
            { account: pending, amount: -9_730 },
            { account: ledgerAccount.fees, amount: -270 },
            { account: ledgerAccount.uniqueCodes, amount: -450 },
          ],
          uniqueCode: 450,
        }),
      ]));
});

const gatewayMethod = fc.constantFrom<GatewayMethod>('QRIS-DYNAMIC', 'VA-BANK1', 'VA-BANK2', 'VA-BANK3');

describe('a gateway credit, any amount and code', () => {
  test.prop([gatewayMethod, fc.integer({ min: 1, max: 50_000_000 }), fc.boolean(), fc.integer({ min: 1, max: 999 })], {
    numRuns: 500,
  })(
    'the merchant gets exactly amount - fee (or the request, fee to the customer), the platform exactly the fee and the code, debits equal credits',
    (method, requested, feeToCustomer, pick) => {
      let bill;
      try {
        bill = gatewayBill(method, requested, feeToCustomer, limitsTable);
      } catch {
        return; // outside the method's limits: never billed
      }
      const uniqueCode = bill.highestCode === null ? 0 : (pick % bill.highestCode) + 1;
      const [event] = gatewayLedger.decide(
        gatewayLedger.initialState(),
        credit(bill.amount + uniqueCode, bill.fee, uniqueCode),
      );
      if (event?.type !== 'GatewayPaymentCredited') throw new Error('no credit');
      serialise(event); // the schema refuses an unbalanced entry
      const on = (account: string) =>
        event.data.postings.filter(p => p.account === account).reduce((s, p) => s + p.amount, 0);
      const expected = feeToCustomer ? requested : requested - bill.fee;
      expect(0 - on(pending)).toBe(expected);
      expect(event.data.net).toBe(expected);
      expect(0 - on(ledgerAccount.fees)).toBe(bill.fee);
      expect(0 - on(ledgerAccount.uniqueCodes)).toBe(uniqueCode);
      expect(event.data.uniqueCode).toBe(uniqueCode);
      expect(on(holding)).toBe(bill.amount + uniqueCode);
      expect(event.data.postings.reduce((s, p) => s + p.amount, 0)).toBe(0);
      const state = gatewayLedger.evolve(gatewayLedger.initialState(), event);
      expect(merchantBalance(state, merchantId).pending).toBe(expected);
    },
  );
});
