import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fee } from '../../src/domain/gateway-fees.ts';
import { query } from '../../src/db/pool.ts';
import { findGatewayBalance, findHoldingCash } from '../../src/projections/gateway-ledger.ts';
import { periodBalances } from '../../src/audit/gateway-period-balances.ts';
import { reconciliationPeriod, type GatewayReconciliation } from '../../src/audit/gateway-reconciliation.ts';
import { approvedMerchant, holdingAccount, signedInAdmin, type Admin } from '../support/gateway.ts';
import { registerUser } from '../support/http.ts';
import { paymentBody, statusOf } from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let admin: Admin;
let qris: { accountId: string; phoneNumber: string };
let va: { accountId: string; phoneNumber: string };
type Merchant = Awaited<ReturnType<typeof approvedMerchant>>;
let merchants: Merchant[] = [];

const settle = async () => service.projections.waitFor(await service.store.headPosition(), 10_000);
type Item = {
  id: string;
  amount: number;
  status: string;
  holdingAccountId: string;
  reference: string | null;
  suggestion: { paymentId: string; merchantId: string; reason: string } | null;
};
const list = async (status = 'OPEN'): Promise<Item[]> =>
  (await admin.session('GET', `/api/admin/gateway/suspense?status=${status}`)).json().data;

/** A credit into a holding account that pays nothing: synchronised, then in suspense. */
async function strayCredit(
  account: { accountId: string; phoneNumber: string },
  providerCode: string,
  amount: number,
  reference?: string,
) {
  await sandboxOf(service).addTransaction({
    providerCode,
    accountRef: account.phoneNumber,
    type: 'CREDIT',
    amount,
    senderName: 'SALAH KIRIM',
    ...(reference ? { reference } : {}),
  });
  return suspended(account.accountId, amount);
}
async function suspended(accountId: string, amount: number): Promise<Item> {
  return eventually(async () => {
    await admin.call('GET', `/api/v1/accounts/${accountId}/refresh`);
    await settle();
    return (await list()).find(i => i.holdingAccountId === accountId && i.amount === amount);
  });
}

beforeAll(async () => {
  service = await startTestService({ REGISTER_LIMIT_PER_IP: '1000' });
  admin = await signedInAdmin(service);
  qris = await holdingAccount(service, admin, 'qris', 'WALLET-D');
  va = await holdingAccount(service, admin, 'va');
  merchants = [await approvedMerchant(service, admin), await approvedMerchant(service, admin, { feeToCustomer: true })];
}, 120_000);
afterAll(async () => service?.close());

describe('the platform suspense', () => {
  it("takes a stray credit into a holding account: the holding account's cash up, listed OPEN with no suggestion", async () => {
    const cash = await findHoldingCash(service.pool, qris.accountId);
    const item = await strayCredit(qris, 'WALLET-D', 12_345);
    expect(item).toMatchObject({ status: 'OPEN', amount: 12_345, suggestion: null });
    expect(await findHoldingCash(service.pool, qris.accountId)).toBe(cash + 12_345);
    expect(await list('ALLOCATED')).toEqual([]);
    expect((await admin.session('GET', '/api/admin/gateway/suspense?status=LOST')).statusCode).toBe(400);
  });

  it('refuses an allocation to nobody, to two, to a non-merchant, of an unknown credit, changing nothing', async () => {
    const item = (await list()).find(i => i.amount === 12_345)!;
    const user = await registerUser(service);
    for (const [body, status, code] of [
      [{}, 400, 'VALIDATION_ERROR'],
      [{ userId: merchants[0]!.id, paymentId: merchants[0]!.id }, 400, 'VALIDATION_ERROR'],
      [{ userId: user.id }, 400, 'SUSPENSE_TARGET_INVALID'],
      [{ paymentId: user.id }, 400, 'SUSPENSE_TARGET_INVALID'],
    ] as const) {
      const refused = await admin.session('POST', `/api/admin/gateway/suspense/${item.id}/allocate`, body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(status);
      expect(refused.json()).toMatchObject({ code });
    }
    const unknown = await admin.session('POST', `/api/admin/gateway/suspense/${merchants[0]!.id}/allocate`, {
      userId: merchants[0]!.id,
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'SUSPENSE_NOT_FOUND' });
    expect(
      (
        await merchants[0]!.session('POST', `/api/admin/gateway/suspense/${item.id}/allocate`, {
          userId: merchants[0]!.id,
        })
      ).statusCode,
    ).toBe(403);
    expect((await list()).find(i => i.id === item.id)).toMatchObject({ status: 'OPEN' });
    expect(await findGatewayBalance(service.pool, merchants[0]!.id)).toMatchObject({ pending: 0 });
  });

  it('allocates to a merchant: pending up by the amount less the QRIS fee, on the statement as an ADJUSTMENT, once', async () => {
    const item = (await list()).find(i => i.amount === 12_345)!;
    const charged = fee('QRIS-DYNAMIC', 12_345, service.deps.config.gateway);
    const allocated = await admin.session('POST', `/api/admin/gateway/suspense/${item.id}/allocate`, {
      userId: merchants[0]!.id,
      note: 'salah kirim, milik Toko Maju',
    });
    expect(allocated.statusCode, allocated.body).toBe(200);
    expect(allocated.json().data).toMatchObject({
      status: 'ALLOCATED',
      allocation: { merchantId: merchants[0]!.id, paymentId: null, fee: charged, net: 12_345 - charged },
      note: 'salah kirim, milik Toko Maju',
      resolvedBy: admin.id,
    });
    expect(await findGatewayBalance(service.pool, merchants[0]!.id)).toMatchObject({ pending: 12_345 - charged });
    const statement = (await merchants[0]!.call('GET', '/api/v1/gateway/transactions')).json().data;
    expect(statement).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'ADJUSTMENT', gross: 12_345, fee: charged, net: 12_345 - charged }),
      ]),
    );
    const again = await admin.session('POST', `/api/admin/gateway/suspense/${item.id}/allocate`, {
      userId: merchants[1]!.id,
    });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'SUSPENSE_NOT_OPEN' });
    expect(await findGatewayBalance(service.pool, merchants[1]!.id)).toMatchObject({ pending: 0 });
  });

  it("suggests the virtual account's payment for a partial transfer to it", async () => {
    const created = await merchants[0]!.call(
      'POST',
      '/api/v1/payments',
      paymentBody('GATEWAY', { type: 'VA-BANK1', amount: 150_000 }),
    );
    expect(created.statusCode, created.body).toBe(200);
    const { id } = created.json().data as { id: string };
    await settle();
    const vaNumber = (
      await query<{ account_number: string }>(
        service.pool,
        'FindVa',
        'select account_number from payments where id = $1',
        [id],
      )
    ).rows[0]!.account_number;
    await sandboxOf(service).pay({ vaNumber, amount: 100_000 });
    const item = await suspended(va.accountId, 100_000);
    expect(item.suggestion).toEqual({ paymentId: id, merchantId: merchants[0]!.id, reason: 'VA_NUMBER_IN_REFERENCE' });
    expect((await statusOf(merchants[0]!, id)).status).toBe('PENDING');
  });

  it("suggests the expired payment a late exact credit was for, and allocates to it as its completion: its own fee, its code the platform's (the payment stays EXPIRED)", async () => {
    const merchant = merchants[1]!;
    const created = await merchant.call(
      'POST',
      '/api/v1/payments',
      paymentBody('GATEWAY', { type: 'QRIS-DYNAMIC', amount: 40_000 }),
    );
    expect(created.statusCode, created.body).toBe(200);
    const { id, totalAmount, uniqueCode, expiresAt, metadata } = created.json().data as {
      id: string;
      totalAmount: number;
      uniqueCode: number;
      expiresAt: string;
      metadata: { fee: number };
    };
    service.clock.set(new Date(Date.parse(expiresAt) + 60_000).toISOString());
    await service.paymentExpiry.tick();
    await eventually(async () => {
      await settle();
      return (await statusOf(merchant, id)).status === 'EXPIRED';
    });
    const item = await strayCredit(qris, 'WALLET-D', totalAmount);
    expect(item.suggestion).toEqual({ paymentId: id, merchantId: merchant.id, reason: 'LATE_EXACT_PAYMENT' });
    const allocated = await admin.session('POST', `/api/admin/gateway/suspense/${item.id}/allocate`, { paymentId: id });
    expect(allocated.statusCode, allocated.body).toBe(200);
    // the payment's own fee (on its raised bill, not on the credit with its code): the buyer paid the fee, so
    // the merchant gets exactly the 40,000 asked for and the platform the unique code, as a completion would have booked
    expect(metadata.fee).toBe(fee('QRIS-DYNAMIC', totalAmount - uniqueCode, service.deps.config.gateway));
    expect(allocated.json().data.allocation).toEqual({
      merchantId: merchant.id,
      paymentId: id,
      fee: metadata.fee,
      net: 40_000,
    });
    expect(await findGatewayBalance(service.pool, merchant.id)).toMatchObject({ pending: 40_000 });
    expect((await statusOf(merchant, id)).status).toBe('EXPIRED');
  });

  it("records a refund: the holding account's cash down, REFUNDED, not refundable or allocatable again", async () => {
    const item = await strayCredit(qris, 'WALLET-D', 7_777);
    const cash = await findHoldingCash(service.pool, qris.accountId);
    for (const body of [{}, { reference: '  ' }])
      expect((await admin.session('POST', `/api/admin/gateway/suspense/${item.id}/refund`, body)).statusCode).toBe(400);
    const refunded = await admin.session('POST', `/api/admin/gateway/suspense/${item.id}/refund`, {
      reference: 'BCA-REFUND-1',
      note: 'dikembalikan ke pengirim',
    });
    expect(refunded.statusCode, refunded.body).toBe(200);
    expect(refunded.json().data).toMatchObject({
      status: 'REFUNDED',
      refundReference: 'BCA-REFUND-1',
      allocation: null,
      resolvedBy: admin.id,
    });
    expect(await findHoldingCash(service.pool, qris.accountId)).toBe(cash - 7_777);
    expect(
      (
        await admin.session('POST', `/api/admin/gateway/suspense/${item.id}/refund`, { reference: 'BCA-REFUND-2' })
      ).json(),
    ).toMatchObject({ code: 'SUSPENSE_NOT_OPEN' });
    expect(
      (
        await admin.session('POST', `/api/admin/gateway/suspense/${item.id}/allocate`, { userId: merchants[0]!.id })
      ).json(),
    ).toMatchObject({ code: 'SUSPENSE_NOT_OPEN' });
    expect((await list('REFUNDED')).map(i => i.id)).toEqual([item.id]);
  });

  it('the reconciliation balances with the suspense: postings, fees of the allocations, opening + movements = closing', async () => {
    const day = new Date(service.clock.now().getTime() + 7 * 3_600_000).toISOString().slice(0, 10);
    const response = await admin.session('GET', `/api/admin/gateway/reconciliation?from=2026-01-01&to=${day}`);
    expect(response.statusCode, response.body).toBe(200);
    const data: GatewayReconciliation = response.json().data;
    expect(data.trialBalance.balanced).toBe(true);
    expect(data.merchants).toMatchObject({ balanced: true, inconsistent: 0, differing: 0 });
    expect(data.fees.balanced).toBe(true);
    expect(data.fees.total.allocationsFees).toBeGreaterThan(0);
    const suspenseRows = (
      await query<{ status: string; amount: number }>(
        service.pool,
        'Suspense',
        'select status, amount from gateway_suspense',
      )
    ).rows;
    const owed = suspenseRows.filter(r => r.status === 'OPEN').reduce((sum, r) => sum + r.amount, 0);
    // what suspense still owes is what is open (allocations moved to merchants, refunds left)
    expect(0 - data.trialBalance.total.suspense).toBe(owed);
    expect(owed).toBe(100_000); // the partial VA transfer
    expect(data.suspense.open).toBe(owed);
    expect(data.holdingAccounts.balanced).toBe(true);
    // the fold in SQL (PostgreSQL) and the fold of each stream read (any other event store) find the same
    const period = reconciliationPeriod('2026-01-01', day);
    const inSql = await periodBalances(service.deps, period);
    const elsewhere = Object.create(service.store, { kind: { value: 'eventstoredb' } }) as typeof service.store;
    expect(await periodBalances({ ...service.deps, store: elsewhere }, period)).toEqual(inSql);
    expect(inSql.merchants.length).toBeGreaterThanOrEqual(2);
  });
});
