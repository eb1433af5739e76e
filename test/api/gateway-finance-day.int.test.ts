import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../src/db/pool.ts';
import { fee } from '../../src/domain/gateway-fees.ts';
import { findHoldingCash } from '../../src/projections/gateway-ledger.ts';
import type { GatewayReconciliation } from '../../src/audit/gateway-reconciliation.ts';
import {
  billOf,
  caughtUp,
  emptyHoldingAccounts,
  expectBalancesAgree,
  providerBalance,
  synced,
  type PlatformAccount,
  clockTo as movedClock,
} from '../support/finance.ts';
import { approvedMerchant, signedInAdmin, type Admin } from '../support/gateway.ts';
import { paymentBody } from '../support/payments.ts';
import { sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * A finance day end to end over HTTP, the service's clock moved by its test-clock route (TEST_CLOCK=true): Monday
 * 5 January 2026, payments of both fee modes in the morning, a stray credit allocated to a merchant, a partial virtual
 * account transfer refunded before the full one pays; the 00:00 WIB settlement; on Tuesday a withdrawal paid through
 * WALLET-A, one recorded as paid elsewhere, one rejected; then the reconciliation of those days: balanced, each holding
 * account tied to its provider's balance, and each statement's last balances those of /api/v1/gateway.
 */
let service: TestService;
let admin: Admin;
let accounts: { qris: PlatformAccount; va: PlatformAccount };
type Merchant = Awaited<ReturnType<typeof approvedMerchant>>;
let paysFees: Merchant;
let passesFees: Merchant;
const sandbox = () => sandboxOf(service);
const settings = () => service.deps.config.gateway;
const bank = { bankCode: 'BCA', accountNumber: '1234567890', accountHolderName: 'Joko Wijaya' };

beforeAll(async () => {
  service = await startTestService({ TEST_CLOCK: 'true', TEST_CLOCK_FORCE: 'true', REGISTER_LIMIT_PER_IP: '1000' });
  admin = await signedInAdmin(service);
  accounts = await emptyHoldingAccounts(service, admin);
  paysFees = await approvedMerchant(service, admin);
  passesFees = await approvedMerchant(service, admin, { feeToCustomer: true });
}, 120_000);
afterAll(async () => service?.close());

/** Moves the service's clock as a tester does: its test-clock route. */
const clockTo = (at: string) => movedClock(service, at);

/** A gateway payment created by the merchant's key, paid by its customer exactly, and completed once its holding account synchronised. */
async function paidPayment(merchant: Merchant, type: 'QRIS-DYNAMIC' | 'VA-BANK1', amount: number) {
  const created = await merchant.call('POST', '/api/v1/payments', paymentBody('GATEWAY', { type, amount }));
  expect(created.statusCode, created.body).toBe(200);
  const { id } = created.json().data as { id: string };
  await caughtUp(service);
  const bill = await billOf(service, id);
  await (type === 'QRIS-DYNAMIC'
    ? sandbox().pay({ qris: bill.qris! })
    : sandbox().pay({ vaNumber: bill.vaNumber!, amount: bill.totalAmount }));
  await synced(service, admin, type === 'QRIS-DYNAMIC' ? accounts.qris : accounts.va);
  const shown = (await merchant.call('GET', `/api/v1/payments/status/${id}`)).json().data;
  expect(shown).toMatchObject({ status: 'COMPLETED' });
  return { id, ...bill, shown };
}

type Entry = {
  type: string;
  amount: number;
  gross?: number;
  fee?: number;
  net?: number;
  balance: Record<string, number>;
};
const statement = async (merchant: Merchant): Promise<Entry[]> =>
  (await merchant.call('GET', '/api/v1/gateway/transactions?limit=100')).json().data;
const balance = async (merchant: Merchant) =>
  (await merchant.call('GET', '/api/v1/gateway')).json().data.balance as {
    settled: number;
    pending: number;
    onHold: number;
    available: number;
  };
type Item = {
  id: string;
  amount: number;
  holdingAccountId: string;
  suggestion: { paymentId: string; reason: string } | null;
};
const openSuspense = async (): Promise<Item[]> =>
  (await admin.session('GET', '/api/admin/gateway/suspense?status=OPEN')).json().data;

const net = { paysFees: 0, passesFees: 0 };
/** the unique codes the buyers paid on top: the platform's income */
let codes = 0;
const cash = { qris: 0, va: 0 };

describe('a finance day', () => {
  it('morning (Monday 10:00 WIB): payments of both fee modes, each with its fee and net, on the statements', async () => {
    expect(service.clock.now().toISOString()).toBe('2026-01-05T03:00:01.000Z');
    const qris = await paidPayment(paysFees, 'QRIS-DYNAMIC', 150_000);
    const qrisFee = fee('QRIS-DYNAMIC', 150_000, settings());
    // the merchant is credited 150,000 less its fee; the unique code on top is the platform's
    expect(qris.shown.metadata).toEqual({ fee: qrisFee, net: 150_000 - qrisFee });
    const va = await paidPayment(passesFees, 'VA-BANK1', 200_000);
    // the customer pays the fee: the merchant is credited what it asked for
    expect(va.amount).toBe(200_000 + settings().vaFee);
    expect(va.shown.metadata).toEqual({ baseAmount: 200_000, fee: settings().vaFee, net: 200_000 });
    const grossed = await paidPayment(passesFees, 'QRIS-DYNAMIC', 80_000);
    expect(grossed.shown.metadata).toMatchObject({ baseAmount: 80_000 });
    expect((grossed.shown.metadata as { net: number }).net).toBe(80_000);
    net.paysFees += 150_000 - qrisFee;
    net.passesFees += 200_000 + 80_000;
    codes += qris.totalAmount - qris.amount + (grossed.totalAmount - grossed.amount);
    cash.qris += qris.totalAmount + grossed.totalAmount;
    cash.va += va.totalAmount;
    expect((await statement(paysFees)).map(e => [e.type, e.gross, e.fee, e.net])).toEqual([
      ['PAYMENT', 150_000, qrisFee, 150_000 - qrisFee],
    ]);
    expect((await statement(passesFees)).map(e => e.type)).toEqual(['PAYMENT', 'PAYMENT']);
    expect(await balance(passesFees)).toMatchObject({ pending: net.passesFees, settled: 0 });
  });

  it('a stray credit goes to suspense and is allocated to the merchant it was for, less the QRIS fee', async () => {
    await sandbox().addTransaction({
      providerCode: 'WALLET-D',
      accountRef: accounts.qris.phoneNumber,
      type: 'CREDIT',
      amount: 25_000,
      senderName: 'SALAH KIRIM',
    });
    await synced(service, admin, accounts.qris);
    cash.qris += 25_000;
    const [stray] = (await openSuspense()).filter(i => i.amount === 25_000);
    expect(stray).toMatchObject({ holdingAccountId: accounts.qris.accountId, suggestion: null });
    const allocated = await admin.session('POST', `/api/admin/gateway/suspense/${stray!.id}/allocate`, {
      userId: paysFees.id,
      note: 'pembayaran tanpa tagihan, milik Toko Maju',
    });
    expect(allocated.statusCode, allocated.body).toBe(200);
    const charged = fee('QRIS-DYNAMIC', 25_000, settings());
    net.paysFees += 25_000 - charged;
    expect((await statement(paysFees))[0]).toMatchObject({
      type: 'ADJUSTMENT',
      gross: 25_000,
      fee: charged,
      net: 25_000 - charged,
    });
  });

  it('a partial virtual account transfer goes to suspense naming its payment, is refunded, and the full transfer pays the payment', async () => {
    const created = await paysFees.call(
      'POST',
      '/api/v1/payments',
      paymentBody('GATEWAY', { type: 'VA-BANK1', amount: 120_000 }),
    );
    expect(created.statusCode, created.body).toBe(200);
    const { id } = created.json().data as { id: string };
    await caughtUp(service);
    const bill = await billOf(service, id);
    await sandbox().pay({ vaNumber: bill.vaNumber!, amount: 70_000 });
    await synced(service, admin, accounts.va);
    const [partial] = (await openSuspense()).filter(i => i.amount === 70_000);
    expect(partial).toMatchObject({
      holdingAccountId: accounts.va.accountId,
      suggestion: { paymentId: id, reason: 'VA_NUMBER_IN_REFERENCE' },
    });
    const refunded = await admin.session('POST', `/api/admin/gateway/suspense/${partial!.id}/refund`, {
      reference: 'REFUND-VA-0501',
      note: 'transfer sebagian, dikembalikan',
    });
    expect(refunded.statusCode, refunded.body).toBe(200);
    // the admin's transfer back to the customer, as the provider shows it
    await sandbox().addTransaction({
      providerCode: 'WALLET-A',
      accountRef: accounts.va.phoneNumber,
      type: 'DEBIT',
      amount: 70_000,
      description: 'REFUND-VA-0501',
      reference: 'REFUND-VA-0501',
    });
    await sandbox().pay({ vaNumber: bill.vaNumber!, amount: 120_000 });
    await synced(service, admin, accounts.va);
    expect((await paysFees.call('GET', `/api/v1/payments/status/${id}`)).json().data).toMatchObject({
      status: 'COMPLETED',
    });
    net.paysFees += 120_000 - settings().vaFee;
    cash.va += 120_000;
    expect(await openSuspense()).toEqual([]);
    expect(await balance(paysFees)).toMatchObject({ pending: net.paysFees, settled: 0 });
  });

  it("00:00 WIB: the day's credits settle, each statement says so", async () => {
    await clockTo('2026-01-06T00:00:05+07:00');
    await caughtUp(service);
    await service.gatewaySettlement.tick(); // what the settler's timer does within a second of the move
    await caughtUp(service);
    for (const [merchant, owed] of [
      [paysFees, net.paysFees],
      [passesFees, net.passesFees],
    ] as const) {
      expect(await balance(merchant)).toEqual({ pending: 0, settled: owed, onHold: 0, available: owed });
      expect((await statement(merchant))[0]).toMatchObject({ type: 'SETTLEMENT', amount: owed });
    }
  });

  it('Tuesday: a withdrawal paid through WALLET-A, one recorded as paid elsewhere, one rejected', async () => {
    await clockTo('2026-01-06T09:00:00+07:00');
    // the provider session of WALLET-A lasts a day: the payout account is used within it
    const withdraw = async (merchant: Merchant, amount: number) => {
      const asked = await merchant.session('POST', '/api/dashboard/gateway/withdrawals', { amount, ...bank });
      expect(asked.statusCode, asked.body).toBe(201);
      return asked.json().data.id as string;
    };
    const throughWalletA = await withdraw(paysFees, 100_000);
    const paid = await admin.session('POST', `/api/admin/gateway/withdrawals/${throughWalletA}/pay`);
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json().data).toMatchObject({ status: 'PAID', reference: throughWalletA });
    cash.va -= 100_000;
    // booked when the money left: the provider's time of the transfer's DEBIT
    const left = await query<{ transferred_at: string; created_at: Date }>(
      service.pool,
      'TestPayoutTransferredAt',
      `select e.data->>'transferredAt' as transferred_at, m.created_at from es_events e
       join es_events t on t.type = 'TransferCompleted' and t.data->>'transferId' = e.data->>'reference'
       join mutations m on m.id = (t.data->>'mutationId')::uuid
       where e.type = 'WithdrawalPaid' and e.data->>'withdrawalId' = $1`,
      [throughWalletA],
    );
    expect(left.rows).toHaveLength(1);
    expect(left.rows[0]!.transferred_at).toBe(left.rows[0]!.created_at.toISOString());

    const elsewhere = await withdraw(passesFees, 60_000);
    const recorded = await admin.session('POST', `/api/admin/gateway/withdrawals/${elsewhere}/paid`, {
      reference: 'BCA-TRF-0601',
      holdingAccountId: accounts.qris.accountId,
    });
    expect(recorded.statusCode, recorded.body).toBe(200);
    await sandbox().addTransaction({
      providerCode: 'WALLET-D',
      accountRef: accounts.qris.phoneNumber,
      type: 'DEBIT',
      amount: 60_000,
      description: 'BCA-TRF-0601',
      reference: 'BCA-TRF-0601',
    });
    cash.qris -= 60_000;

    const refused = await withdraw(paysFees, 50_000);
    const rejected = await admin.session('POST', `/api/admin/gateway/withdrawals/${refused}/reject`, {
      note: 'nama pemilik rekening berbeda',
    });
    expect(rejected.statusCode, rejected.body).toBe(200);
    await caughtUp(service);
    expect(await balance(paysFees)).toEqual({
      pending: 0,
      settled: net.paysFees - 100_000,
      onHold: 0,
      available: net.paysFees - 100_000,
    });
    expect(await balance(passesFees)).toEqual({
      pending: 0,
      settled: net.passesFees - 60_000,
      onHold: 0,
      available: net.passesFees - 60_000,
    });
    expect((await statement(paysFees)).slice(0, 4).map(e => e.type)).toEqual([
      'WITHDRAWAL_REJECTED',
      'WITHDRAWAL_REQUESTED',
      'WITHDRAWAL_PAID',
      'WITHDRAWAL_REQUESTED',
    ]);
  });

  it('the reconciliation of those days: balanced, each holding account tied to its provider, statements ending at /api/v1/gateway', async () => {
    for (const account of [accounts.qris, accounts.va]) await synced(service, admin, account);
    for (const k of ['qris', 'va'] as const) {
      expect(await findHoldingCash(service.pool, accounts[k].accountId), k).toBe(cash[k]);
      expect(await providerBalance(service, accounts[k]), k).toBe(cash[k]);
    }
    const response = await admin.session('GET', '/api/admin/gateway/reconciliation?from=2026-01-05&to=2026-01-06');
    expect(response.statusCode, response.body).toBe(200);
    const data: GatewayReconciliation = response.json().data;
    expect(data.balanced).toBe(true);
    expect(data.trialBalance).toMatchObject({ balanced: true, unbalancedEntries: [] });
    expect(data.trialBalance.total).toMatchObject({
      difference: 0,
      holding: cash.qris + cash.va,
      suspense: 0,
      other: 0,
    });
    expect(data.merchants).toMatchObject({
      balanced: true,
      comparedWithReadModel: true,
      inconsistent: 0,
      differing: 0,
    });
    expect(data.holdingAccounts).toMatchObject({ balanced: true, tied: true });
    for (const k of ['qris', 'va'] as const) {
      expect(
        data.holdingAccounts.accounts.find(h => h.accountId === accounts[k].accountId),
        k,
      ).toMatchObject({
        opening: 0,
        closing: cash[k],
        providerBalance: cash[k],
        difference: 0,
        consistent: true,
      });
    }
    expect(data.suspense).toMatchObject({ open: 0, allocated: 25_000, refunded: 70_000 });
    expect(data.payouts.map(p => [p.amount, p.reference])).toEqual([
      [100_000, expect.any(String)],
      [60_000, 'BCA-TRF-0601'],
    ]);
    expect(data.fees.balanced).toBe(true);
    expect(data.fees.total.uniqueCodes).toBe(codes);
    expect(data.trialBalance.total.uniqueCodes).toBe(-codes);
    for (const merchant of [paysFees, passesFees]) {
      const row = data.merchants.rows.find(m => m.merchantId === merchant.id)!;
      expect(row).toMatchObject({ opening: { pending: 0, settled: 0, onHold: 0 }, consistent: true, differences: [] });
      const shown = await expectBalancesAgree(service, merchant);
      expect(row.closing).toEqual({ pending: shown.pending, settled: shown.settled, onHold: shown.onHold });
    }
    // the day alone: Monday closes with everything pending, Tuesday opens there
    const monday: GatewayReconciliation = (
      await admin.session('GET', '/api/admin/gateway/reconciliation?from=2026-01-05&to=2026-01-05')
    ).json().data;
    const tuesday: GatewayReconciliation = (
      await admin.session('GET', '/api/admin/gateway/reconciliation?from=2026-01-06&to=2026-01-06')
    ).json().data;
    for (const merchant of [paysFees, passesFees]) {
      const closed = monday.merchants.rows.find(m => m.merchantId === merchant.id)!;
      expect(closed).toMatchObject({
        closing: { pending: merchant === paysFees ? net.paysFees : net.passesFees, settled: 0, onHold: 0 },
        consistent: true,
      });
      expect(tuesday.merchants.rows.find(m => m.merchantId === merchant.id)).toMatchObject({
        opening: closed.closing,
        consistent: true,
      });
    }
  });
});
