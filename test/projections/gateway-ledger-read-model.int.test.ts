import { describe, it } from 'vitest';
import { gatewayLedgerStream, ledgerAccount } from '../../src/domain/gateway-ledger.ts';
import {
  BalanceSettled,
  GatewayPaymentCredited,
  WithdrawalPaid,
  WithdrawalRejected,
  WithdrawalRequested,
} from '../../src/events/gateway.ts';
import {
  findGatewayBalance,
  findGatewayWithdrawal,
  findHoldingCash,
  gatewayLedgerProjection,
} from '../../src/projections/gateway-ledger.ts';
import { projectionSpec, type SpecEvent } from '../support/projection-spec.ts';

const merchantId = '5d2e3f40-5162-4738-8495-a6b7c8d9e0f1';
const holdingAccountId = '3c1d2b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const paymentId = '6a0c1d2e-3f40-4152-8364-758697a8b9c0';
const withdrawalId = '8c2e3f40-5162-4738-8495-a6b7c8d9e0f2';
const adminId = '9d3f4051-6273-4849-95a6-b7c8d9e0f1a2';

/** The merchant's ledger stream, as the ledger's commands append to it. */
const inLedger = (event: SpecEvent): SpecEvent => ({ ...event, streamId: gatewayLedgerStream(merchantId) });

// 100,123 paid: 99,100 owed to the merchant, a fee of 900 and the unique code of 123 the platform's
const credited = inLedger(
  GatewayPaymentCredited({
    merchantId,
    paymentId,
    holdingAccountId,
    totalAmount: 100_123,
    fee: 900,
    net: 99_100,
    uniqueCode: 123,
    completedAt: '2026-03-02T03:10:05.000Z',
    paidAt: '2026-03-02T03:10:00.000Z',
    postings: [
      { account: ledgerAccount.holding(holdingAccountId), amount: 100_123 },
      { account: ledgerAccount.pending(merchantId), amount: -99_100 },
      { account: ledgerAccount.fees, amount: -900 },
      { account: ledgerAccount.uniqueCodes, amount: -123 },
    ],
  }),
);
const settled = inLedger(
  BalanceSettled({
    merchantId,
    paymentIds: [paymentId],
    amount: 99_100,
    cutoff: '2026-03-02T17:00:00.000Z',
    settledAt: '2026-03-03T17:00:00.000Z',
    postings: [
      { account: ledgerAccount.pending(merchantId), amount: 99_100 },
      { account: ledgerAccount.settled(merchantId), amount: -99_100 },
    ],
  }),
);
const requested = inLedger(
  WithdrawalRequested({
    merchantId,
    withdrawalId,
    amount: 50_000,
    bankCode: 'BCA',
    accountNumber: '1234567890',
    accountHolderName: 'BUDI',
    requestedBy: merchantId,
    requestedAt: '2026-03-04T02:00:00.000Z',
    postings: [
      { account: ledgerAccount.settled(merchantId), amount: 50_000 },
      { account: ledgerAccount.onHold(merchantId), amount: -50_000 },
    ],
  }),
);
const paidOut = inLedger(
  WithdrawalPaid({
    merchantId,
    withdrawalId,
    amount: 50_000,
    reference: 'TRF-1',
    holdingAccountId,
    paidBy: adminId,
    paidAt: '2026-03-04T03:00:00.000Z',
    postings: [
      { account: ledgerAccount.onHold(merchantId), amount: 50_000 },
      { account: ledgerAccount.holding(holdingAccountId), amount: -50_000 },
    ],
  }),
);
const rejected = inLedger(
  WithdrawalRejected({
    merchantId,
    withdrawalId,
    amount: 50_000,
    note: 'wrong account',
    rejectedBy: adminId,
    rejectedAt: '2026-03-04T03:00:00.000Z',
    postings: [
      { account: ledgerAccount.onHold(merchantId), amount: 50_000 },
      { account: ledgerAccount.settled(merchantId), amount: -50_000 },
    ],
  }),
);

const balance = (db: Parameters<typeof findGatewayBalance>[0]) => findGatewayBalance(db, merchantId);
const withdrawalStatus = async (db: Parameters<typeof findGatewayWithdrawal>[0]) => {
  const w = await findGatewayWithdrawal(db, withdrawalId);
  return w && { status: w.status, processed_by: w.processed_by, reference: w.reference, note: w.note };
};

describe('gateway ledger read model', () => {
  const spec = projectionSpec(gatewayLedgerProjection);

  it("owes the merchant a credited payment's net as pending", () =>
    spec.given([]).when([credited]).then(balance, { pending: 99_100, settled: 0, onHold: 0, available: 0 }));

  it('records each posting of a credit under the merchant and its stream revision, effective when the money moved', () =>
    spec
      .given([])
      .when([credited])
      .then(
        `select account, amount, reference_id, stream_revision, effective_at from gateway_postings order by account`,
        [
          ['holding:' + holdingAccountId, 100_123],
          [`merchant:${merchantId}:pending`, -99_100],
          ['platform:fees', -900],
          ['platform:unique-codes', -123],
        ].map(([account, amount]) => ({
          account,
          amount,
          reference_id: paymentId,
          stream_revision: 0,
          effective_at: new Date('2026-03-02T03:10:00.000Z'),
        })),
      ));

  it('holds the cash a credit brought into its holding account', () =>
    spec
      .given([])
      .when([credited])
      .then(db => findHoldingCash(db, holdingAccountId), 100_123));

  it('keeps a credit waiting for settlement, due by when its money moved', () =>
    spec
      .given([])
      .when([credited])
      .then(`select payment_id, merchant_id, net, completed_at from gateway_unsettled`, [
        {
          payment_id: paymentId,
          merchant_id: merchantId,
          net: 99_100,
          completed_at: new Date('2026-03-02T03:10:00.000Z'),
        },
      ]));

  it('moves a settled credit from pending to available and off the settlement work list', () =>
    spec
      .given([credited])
      .when([settled])
      .then(
        async db => ({ balance: await balance(db), waiting: (await db.query('select * from gateway_unsettled')).rows }),
        { balance: { pending: 0, settled: 99_100, onHold: 0, available: 99_100 }, waiting: [] },
      ));

  it('holds a requested withdrawal out of what is available', () =>
    spec
      .given([credited, settled])
      .when([requested])
      .then(balance, { pending: 0, settled: 99_100, onHold: 50_000, available: 49_100 }));

  it('lists a requested withdrawal as requested, processed by no one', () =>
    spec
      .given([credited, settled])
      .when([requested])
      .then(withdrawalStatus, { status: 'REQUESTED', processed_by: null, reference: null, note: null }));

  it('pays a withdrawal out of the holding account it left', () =>
    spec
      .given([credited, settled, requested])
      .when([paidOut])
      .then(async db => ({ balance: await balance(db), cash: await findHoldingCash(db, holdingAccountId) }), {
        balance: { pending: 0, settled: 49_100, onHold: 0, available: 49_100 },
        cash: 50_123,
      }));

  it('records who paid a withdrawal and its transfer reference', () =>
    spec
      .given([credited, settled, requested])
      .when([paidOut])
      .then(withdrawalStatus, { status: 'PAID', processed_by: adminId, reference: 'TRF-1', note: null }));

  it('gives a rejected withdrawal back to what is available, with the reason', () =>
    spec
      .given([credited, settled, requested])
      .when([rejected])
      .then(async db => ({ balance: await balance(db), withdrawal: await withdrawalStatus(db) }), {
        balance: { pending: 0, settled: 99_100, onHold: 0, available: 99_100 },
        withdrawal: { status: 'REJECTED', processed_by: adminId, reference: null, note: 'wrong account' },
      }));

  it('keeps a paid withdrawal paid when a rejection follows', () =>
    spec
      .given([credited, settled, requested, paidOut])
      .when([rejected])
      .then(db => findGatewayWithdrawal(db, withdrawalId).then(w => w?.status), 'PAID'));
});
