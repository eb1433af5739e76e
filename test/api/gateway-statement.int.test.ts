import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../src/db/pool.ts';
import { findGatewayBalance } from '../../src/projections/gateway-ledger.ts';
import { approvedMerchant, holdingAccount, settledBalance, signedInAdmin, type Admin } from '../support/gateway.ts';
import { keyHolder } from '../support/http.ts';
import { decodeQrPng, paymentBody, statusOf } from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let admin: Admin;
/** the QRIS wallet the payments are paid into, and the payout paid out of */
let holding: { accountId: string };
beforeAll(async () => {
  service = await startTestService({ REGISTER_LIMIT_PER_IP: '1000' });
  admin = await signedInAdmin(service);
  holding = await holdingAccount(service, admin);
});
afterAll(async () => service?.close());

type Merchant = Awaited<ReturnType<typeof approvedMerchant>>;
type Entry = {
  id: string;
  type: string;
  at: string;
  amount: number;
  gross?: number;
  fee?: number;
  net?: number;
  paymentId?: string;
  orderId?: string;
  balance: { settled: number; pending: number; onHold: number; available: number };
};

const caughtUp = async () => service.projections.waitFor(await service.store.headPosition(), 10_000);

/** A QRIS gateway payment the buyer pays into the holding account, completed and credited to the merchant's ledger. */
async function paidPayment(merchant: Merchant, amount: number) {
  const created = await merchant.call(
    'POST',
    '/api/v1/payments',
    paymentBody('GATEWAY', { type: 'QRIS-DYNAMIC', amount }),
  );
  expect(created.statusCode, created.body).toBe(200);
  const data = created.json().data;
  await statusOf(merchant, data.id);
  const row = await query<{ receiving_account_id: string }>(
    service.pool,
    'FindReceiving',
    'select receiving_account_id from payments where id = $1',
    [data.id],
  );
  const qr = await service.app.inject({ method: 'GET', url: `/pay/${data.id}/qris.png` });
  await sandboxOf(service).pay({ qris: (await decodeQrPng(qr.rawPayload)).payload!, amount: data.totalAmount });
  await service.paymentChecks.checkNow(row.rows[0]!.receiving_account_id);
  const credited = await eventually(async () => {
    await caughtUp();
    const entries = await statementOf(merchant);
    return entries.find(e => e.paymentId === data.id);
  });
  return { payment: data, credited };
}

const statementOf = async (merchant: Merchant, params = ''): Promise<Entry[]> => {
  const response = await merchant.call('GET', `/api/v1/gateway/transactions${params}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
};
const balanceOf = async (merchant: Merchant) => (await merchant.call('GET', '/api/v1/gateway')).json().data.balance;

let merchant: Merchant;
let order: Entry[];
const bank = { bankCode: 'BCA', accountNumber: '1234567890', accountHolderName: 'Joko Wijaya' };

describe('GET /api/v1/gateway/transactions', () => {
  beforeAll(async () => {
    merchant = await approvedMerchant(service, admin);
    await paidPayment(merchant, 100_000);
    expect(
      (await merchant.session('PATCH', '/api/dashboard/gateway/settings', { feeToCustomer: true })).statusCode,
    ).toBe(200);
    await paidPayment(merchant, 50_000);
    // the settler, day by day on the test clock, until the credits are settled
    await settledBalance(service, merchant.id);
    const first = await merchant.session('POST', '/api/dashboard/gateway/withdrawals', { amount: 60_000, ...bank });
    expect(first.statusCode, first.body).toBe(201);
    service.clock.advance(60_000);
    const second = await merchant.session('POST', '/api/dashboard/gateway/withdrawals', { amount: 50_000, ...bank });
    expect(second.statusCode, second.body).toBe(201);
    service.clock.advance(60_000);
    const paid = await admin.session('POST', `/api/admin/gateway/withdrawals/${first.json().data.id}/paid`, {
      reference: `TRF-${merchant.id}`,
      holdingAccountId: holding.accountId,
    });
    expect(paid.statusCode, paid.body).toBe(200);
    service.clock.advance(60_000);
    const rejected = await admin.session('POST', `/api/admin/gateway/withdrawals/${second.json().data.id}/reject`, {
      note: 'Rekening salah',
    });
    expect(rejected.statusCode, rejected.body).toBe(200);
    await caughtUp();
    order = (await statementOf(merchant)).reverse();
  });

  it('lists every entry with gross, fee and net, its signed amount and the balances after it, the last equal to /api/v1/gateway', async () => {
    expect(order.map(e => e.type)).toEqual([
      'PAYMENT',
      'PAYMENT',
      'SETTLEMENT',
      'WITHDRAWAL_REQUESTED',
      'WITHDRAWAL_REQUESTED',
      'WITHDRAWAL_PAID',
      'WITHDRAWAL_REJECTED',
    ]);
    const [merchantPays, buyerPays, settlement, requested, requested2, paid, rejected] = order as [
      Entry,
      Entry,
      Entry,
      Entry,
      Entry,
      Entry,
      Entry,
    ];
    // the merchant pays 700 + 200 on 100,000; the buyer pays it on the grossed-up 50,554: 354 + 200
    expect(merchantPays).toMatchObject({
      fee: 900,
      amount: merchantPays.net,
      orderId: expect.any(String),
      paymentId: expect.any(String),
    });
    expect(merchantPays.gross! - merchantPays.fee!).toBe(merchantPays.net);
    expect(buyerPays.fee).toBe(554);
    // the payment's own response says the same fee and net (metadata)
    for (const entry of [merchantPays, buyerPays])
      expect((await statusOf(merchant, entry.paymentId!)).metadata).toMatchObject({ fee: entry.fee, net: entry.net });
    expect(buyerPays.gross! - buyerPays.fee!).toBe(buyerPays.net);
    const credited = merchantPays.net! + buyerPays.net!;
    expect(merchantPays.balance).toEqual({ pending: merchantPays.net, settled: 0, onHold: 0, available: 0 });
    expect(buyerPays.balance).toEqual({ pending: credited, settled: 0, onHold: 0, available: 0 });
    expect(settlement).toMatchObject({
      amount: credited,
      balance: { pending: 0, settled: credited, onHold: 0, available: credited },
    });
    expect(requested).toMatchObject({
      amount: -60_000,
      balance: { pending: 0, settled: credited, onHold: 60_000, available: credited - 60_000 },
    });
    expect(requested2).toMatchObject({
      amount: -50_000,
      balance: { pending: 0, settled: credited, onHold: 110_000, available: credited - 110_000 },
    });
    expect(paid).toMatchObject({
      amount: -60_000,
      balance: { pending: 0, settled: credited - 60_000, onHold: 50_000, available: credited - 110_000 },
    });
    expect(rejected).toMatchObject({
      amount: 50_000,
      balance: { pending: 0, settled: credited - 60_000, onHold: 0, available: credited - 60_000 },
    });
    expect(rejected.balance).toEqual(await balanceOf(merchant));
    expect(rejected.balance).toEqual(await findGatewayBalance(service.pool, merchant.id));
    const times = order.map(e => e.at);
    expect([...times].sort()).toEqual(times);
  });

  it('pages newest first, and filters by type and period', async () => {
    const page1 = await merchant.call('GET', '/api/v1/gateway/transactions?limit=3');
    expect(page1.json().pagination).toEqual({ total: 7, page: 1, limit: 3, totalPages: 3, hasMore: true });
    expect(page1.json().data.map((e: Entry) => e.id)).toEqual(
      order
        .slice(4)
        .reverse()
        .map(e => e.id),
    );
    const page3 = await merchant.call('GET', '/api/v1/gateway/transactions?limit=3&page=3');
    expect(page3.json().data.map((e: Entry) => e.id)).toEqual([order[0]!.id]);
    expect(page3.json().pagination.hasMore).toBe(false);

    const payments = await merchant.call('GET', '/api/v1/gateway/transactions?type=PAYMENT&limit=1&page=2');
    expect(payments.json().data.map((e: Entry) => e.id)).toEqual([order[0]!.id]);
    expect(payments.json().pagination.total).toBe(2);

    const settledAt = order[2]!.at;
    const since = await statementOf(merchant, `?from=${encodeURIComponent(settledAt)}`);
    expect(since.map(e => e.type)).toEqual([
      'WITHDRAWAL_REJECTED',
      'WITHDRAWAL_PAID',
      'WITHDRAWAL_REQUESTED',
      'WITHDRAWAL_REQUESTED',
      'SETTLEMENT',
    ]);
    const before = await statementOf(merchant, `?to=${encodeURIComponent(settledAt)}`);
    expect(before.map(e => e.type)).toEqual(['PAYMENT', 'PAYMENT']);
    // a date alone is a WIB day: the payments' day, whole
    const wibDay = new Date(Date.parse(order[0]!.at) + 7 * 3_600_000).toISOString().slice(0, 10);
    expect((await statementOf(merchant, `?from=${wibDay}&to=${wibDay}`)).map(e => e.type)).toEqual([
      'PAYMENT',
      'PAYMENT',
    ]);
  });

  it('answers 401 without a key, and shows each merchant only their own', async () => {
    expect((await service.app.inject({ method: 'GET', url: '/api/v1/gateway/transactions' })).statusCode).toBe(401);
    const other = await approvedMerchant(service, admin);
    await settledBalance(service, other.id, 77_000);
    const theirs = await statementOf(other);
    expect(theirs.map(e => e.type)).toEqual(['SETTLEMENT', 'PAYMENT']);
    expect(theirs[0]!.balance).toEqual(await balanceOf(other));
    const mine = await statementOf(merchant);
    expect(mine.map(e => e.id)).not.toContain(theirs[0]!.id);
    const stranger = await keyHolder(service);
    const none = await stranger.call('GET', '/api/v1/gateway/transactions');
    expect(none.json()).toEqual({
      status: 'success',
      data: [],
      pagination: { total: 0, page: 1, limit: 20, totalPages: 0, hasMore: false },
    });
  });

  it.each([
    ['type=REFUND'],
    ['limit=101'],
    ['limit=0'],
    ['page=0'],
    ['from=yesterday'],
    ['to=2026-13-01'],
    ['from=2026-02-02&to=2026-02-01'],
  ])('answers 400 for %s', async params => {
    const response = await merchant.call('GET', `/api/v1/gateway/transactions?${params}`);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ status: 'error' });
  });
});
