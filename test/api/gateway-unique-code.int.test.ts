import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayReconciliation } from '../../src/audit/gateway-reconciliation.ts';
import { query } from '../../src/db/pool.ts';
import { grossUp } from '../../src/domain/gateway-fees.ts';
import { caughtUp } from '../support/finance.ts';
import { approvedMerchant, holdingAccount, signedInAdmin, type Admin } from '../support/gateway.ts';
import { decodeQrPng, paymentBody, statusOf } from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { formatRupiah } from '../../src/web/html.ts';

// The interface's gateway rules 3 and 4 through HTTP: the merchant is credited the requested amount less its fee (fee
// deducted) or exactly the requested amount (fee to the customer); the unique code on top is the platform's, and no
// QRIS bill, code included, is above the 10,000,000 cap.

let service: TestService;
let admin: Admin;
let merchant: Awaited<ReturnType<typeof approvedMerchant>>;
let feeToCustomer: Awaited<ReturnType<typeof approvedMerchant>>;
beforeAll(async () => {
  service = await startTestService({ REGISTER_LIMIT_PER_IP: '1000' });
  admin = await signedInAdmin(service);
  // two QRIS holding accounts: a bill of 9,999,999 has one code (1) on each
  await holdingAccount(service, admin, 'qris', 'WALLET-D');
  await holdingAccount(service, admin, 'qris', 'WALLET-E');
  await holdingAccount(service, admin, 'va');
  merchant = await approvedMerchant(service, admin);
  feeToCustomer = await approvedMerchant(service, admin, { feeToCustomer: true });
}, 120_000);
afterAll(async () => service?.close());

type Merchant = typeof merchant;
type Created = { id: string; amount: number; uniqueCode: number; totalAmount: number; metadata: { fee: number } };
const post = (caller: Merchant, body: unknown) => caller.call('POST', '/api/v1/payments', body);
const wibToday = () => new Date(service.clock.now().getTime() + 7 * 3_600_000).toISOString().slice(0, 10);
const countEvents = async () =>
  Number(
    (
      await query(
        service.pool,
        'CountPaymentEvents',
        `select count(*) as n from es_events where stream_id like 'payment-%'`,
      )
    ).rows[0]!.n,
  );

/** A QRIS gateway payment of `amount`, paid by the buyer in full, completed and booked. */
async function paidQris(caller: Merchant, amount: number): Promise<Created> {
  const created = await post(caller, paymentBody('GATEWAY', { type: 'QRIS-DYNAMIC', amount }));
  expect(created.statusCode, created.body).toBe(200);
  const data = created.json().data as Created;
  await statusOf(caller, data.id);
  const qr = await service.app.inject({ method: 'GET', url: `/pay/${data.id}/qris.png` });
  await sandboxOf(service).pay({ qris: (await decodeQrPng(qr.rawPayload)).payload!, amount: data.totalAmount });
  const row = await query<{ receiving_account_id: string }>(
    service.pool,
    'FindReceivingOfPayment',
    'select receiving_account_id from payments where id = $1',
    [data.id],
  );
  await service.paymentChecks.checkNow(row.rows[0]!.receiving_account_id);
  await eventually(async () => (await statusOf(caller, data.id)).status === 'COMPLETED');
  await caughtUp(service);
  return data;
}

const balanceOf = async (caller: Merchant) => (await caller.call('GET', '/api/v1/gateway')).json().data.balance;

async function reconciliation(): Promise<GatewayReconciliation> {
  const response = await admin.session('GET', `/api/admin/gateway/reconciliation?from=2026-01-01&to=${wibToday()}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
}

describe('a completed gateway payment and its unique code', () => {
  it('credits 100,000 less its fee of 900 (fee deducted) and exactly 100,000 (fee to the customer); the codes are the platform income, apart in the reconciliation', async () => {
    const deducted = await paidQris(merchant, 100_000);
    expect(deducted.uniqueCode).toBeGreaterThan(0);
    expect(deducted.metadata).toEqual({ fee: 900, net: 99_100 });
    expect(await balanceOf(merchant)).toMatchObject({ pending: 99_100, available: 0 });

    const raised = await paidQris(feeToCustomer, 100_000);
    expect(raised).toMatchObject({ amount: 100_906, metadata: { baseAmount: 100_000, fee: 906, net: 100_000 } });
    expect(await balanceOf(feeToCustomer)).toMatchObject({ pending: 100_000, available: 0 });

    // the merchant's statement: the sale (the bill, without the platform's code), the fee, the net booked
    const statement = (await merchant.call('GET', '/api/v1/gateway/transactions?type=PAYMENT')).json().data;
    expect(statement[0]).toMatchObject({ gross: 100_000, fee: 900, net: 99_100, paymentId: deducted.id });

    const codes = deducted.uniqueCode + raised.uniqueCode;
    const report = await reconciliation();
    expect(report.balanced, JSON.stringify(report.holdingCredits.problems)).toBe(true);
    expect(report.fees.total).toMatchObject({ earned: 900 + 906, paymentsFees: 900 + 906, uniqueCodes: codes });
    expect(report.trialBalance.total.uniqueCodes).toBe(-codes);
    expect(report.trialBalance.total.other).toBe(0);
    expect(report.holdingCredits.total.credited).toBe(deducted.totalAmount + raised.totalAmount);
    const rows = new Map(report.merchants.rows.map(m => [m.merchantId, m.movements]));
    expect(rows.get(merchant.id)).toMatchObject({ fees: 900, uniqueCodes: deducted.uniqueCode, creditsNet: 99_100 });
    expect(rows.get(feeToCustomer.id)).toMatchObject({
      fees: 906,
      uniqueCodes: raised.uniqueCode,
      creditsNet: 100_000,
    });

    // the CSV of the fees and the console say the unique-code income apart from the fees
    const csvResponse = await service.app.inject({
      method: 'GET',
      url: `/api/admin/gateway/reconciliation?from=2026-01-01&to=${wibToday()}&table=fees-totals`,
      cookies: { svc_token: admin.cookie },
      headers: { accept: 'text/csv' },
    });
    expect(csvResponse.statusCode, csvResponse.body).toBe(200);
    const [header, values] = csvResponse.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split(/\r?\n/);
    expect(header!.split(',')).toContain('uniqueCodes');
    expect(values!.split(',')[header!.split(',').indexOf('uniqueCodes')]).toBe(String(codes));
    const console = await admin.session('GET', `/admin/reconciliation?from=2026-01-01&to=${wibToday()}`);
    expect(console.body).toContain(`id="unique-codes-earned">${formatRupiah(codes)}<`);
  });
});

describe('the QRIS cap of 10,000,000 with the unique code', () => {
  const cap = 10_000_000;
  const refusedAboveCap = async (caller: Merchant, body: Record<string, unknown>, message: string) => {
    const before = await countEvents();
    const response = await post(caller, paymentBody('GATEWAY', body));
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ status: 'error', code: 'GATEWAY_AMOUNT_ABOVE_MAXIMUM' });
    expect(response.json().message).toContain(message);
    expect(await countEvents()).toBe(before);
  };

  it('bills 9,999,999 with the code 1 (10,000,000), refuses 10,000,000 with no room for a code, with or without the fee to the customer', async () => {
    const edge = await post(merchant, paymentBody('GATEWAY', { type: 'QRIS-DYNAMIC', amount: cap - 1 }));
    expect(edge.statusCode, edge.body).toBe(200);
    expect(edge.json().data).toMatchObject({ amount: cap - 1, uniqueCode: 1, totalAmount: cap });

    await refusedAboveCap(merchant, { type: 'QRIS-DYNAMIC', amount: cap }, 'leaves no room for a unique code');
    await refusedAboveCap(feeToCustomer, { type: 'QRIS-DYNAMIC', amount: cap }, 'raised by the fee) is above');

    // the largest request the fee to the customer can raise to a bill with room for a code: billed within the cap
    let largest = cap;
    while (grossUp('QRIS-DYNAMIC', largest, service.deps.config.gateway) >= cap) largest--;
    const raised = await post(feeToCustomer, paymentBody('GATEWAY', { type: 'QRIS-DYNAMIC', amount: largest }));
    expect(raised.statusCode, raised.body).toBe(200);
    expect(raised.json().data.totalAmount).toBeLessThanOrEqual(cap);
    await refusedAboveCap(feeToCustomer, { type: 'QRIS-DYNAMIC', amount: largest + 1 }, 'QRIS-DYNAMIC maximum');
  });

  it('on the payment page: 10,000,000 offers no QRIS and refuses it; 9,999,999 chosen by the payer is billed 10,000,000 once a code is free', async () => {
    const created = await post(merchant, paymentBody('GATEWAY', { amount: cap }));
    expect(created.statusCode, created.body).toBe(200);
    const { id } = created.json().data as { id: string };
    const page = await service.app.inject({ method: 'GET', url: `/pay/${id}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Virtual account BCA');
    expect(page.body).not.toContain('QRIS ·');
    const qris = await service.app.inject({
      method: 'POST',
      url: `/pay/${id}/method`,
      payload: { type: 'QRIS-DYNAMIC' },
    });
    expect(qris.statusCode, qris.body).toBe(400);
    expect(qris.json()).toMatchObject({ code: 'GATEWAY_AMOUNT_ABOVE_MAXIMUM' });
    expect((await statusOf(merchant, id)).type).toBeNull();

    // the only code of 9,999,999 (and of the largest raised bill) is held on both holding accounts by the test above
    const choose = async () => {
      const created = await post(merchant, paymentBody('GATEWAY', { amount: cap - 1 }));
      expect(created.statusCode, created.body).toBe(200);
      const { id } = created.json().data as { id: string };
      const method = await service.app.inject({
        method: 'POST',
        url: `/pay/${id}/method`,
        payload: { type: 'QRIS-DYNAMIC' },
      });
      return { id, method };
    };
    const held = await choose();
    expect(held.method.statusCode, held.method.body).toBe(503);
    expect(held.method.json()).toMatchObject({ code: 'NO_HOLDING_ACCOUNT' });
    // once those payments expire their codes are free: the payer's choice is billed exactly the cap
    service.clock.advance(61 * 60_000);
    await service.paymentExpiry.tick();
    await caughtUp(service);
    const free = await choose();
    expect(free.method.statusCode, free.method.body).toBe(200);
    expect(await statusOf(merchant, free.id)).toMatchObject({ amount: cap - 1, uniqueCode: 1, totalAmount: cap });
  });
});
