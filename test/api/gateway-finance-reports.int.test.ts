import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BalanceHistory } from '../../src/audit/gateway-balance-history.ts';
import type { PayoutReport } from '../../src/audit/gateway-payout-report.ts';
import type { GatewayReconciliation } from '../../src/audit/gateway-reconciliation.ts';
import type { GatewayRevenue } from '../../src/audit/gateway-revenue.ts';
import { fee } from '../../src/domain/gateway-fees.ts';
import {
  billOf,
  caughtUp,
  emptyHoldingAccounts,
  synced,
  type PlatformAccount,
  clockTo as movedClock,
} from '../support/finance.ts';
import { approvedMerchant, signedInAdmin, type Admin } from '../support/gateway.ts';
import { paymentBody } from '../support/payments.ts';
import { sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * The reports finance signs, over HTTP with the test clock, for a small known history: on Monday 5 January 2026 two
 * merchants' payments (a QRIS one, a virtual account one), and a late exact credit allocated to the QRIS payment that
 * expired; the settlement at 00:00 WIB; on Tuesday a payout through WALLET-A (/pay, its first transfer refused) and one
 * recorded as paid from the QRIS wallet (/paid). Balance history per merchant and per holding account, revenue by
 * method and merchant, the payouts with their sources and attempts, names beside ids, and their CSV files.
 */
let service: TestService;
let admin: Admin;
let accounts: { qris: PlatformAccount; va: PlatformAccount };
type Merchant = Awaited<ReturnType<typeof approvedMerchant>>;
let shop: Merchant;
let cafe: Merchant;
const sandbox = () => sandboxOf(service);
const settings = () => service.deps.config.gateway;
const bank = { bankCode: 'BCA', accountNumber: '1234567890', accountHolderName: 'Joko Wijaya' };
const period = 'from=2026-01-05&to=2026-01-06';

/** What the history must show, gathered as it happens. */
const known = {
  cash: { qris: 0, va: 0 },
  shopNet: 0,
  cafeNet: 0,
  fees: { qris: 0, va: 0 },
  codes: { qris: 0, va: 0 },
  allocationFee: 0,
  allocatedPaymentFee: 0,
  withdrawals: { pay: '', paid: '' },
};

beforeAll(async () => {
  service = await startTestService({ TEST_CLOCK: 'true', TEST_CLOCK_FORCE: 'true', REGISTER_LIMIT_PER_IP: '1000' });
  admin = await signedInAdmin(service);
  accounts = await emptyHoldingAccounts(service, admin);
  shop = await approvedMerchant(service, admin);
  cafe = await approvedMerchant(service, admin, { feeToCustomer: true });
}, 120_000);
afterAll(async () => service?.close());

const clockTo = (at: string) => movedClock(service, at);

async function created(merchant: Merchant, type: 'QRIS-DYNAMIC' | 'VA-BANK1', amount: number) {
  const response = await merchant.call('POST', '/api/v1/payments', paymentBody('GATEWAY', { type, amount }));
  expect(response.statusCode, response.body).toBe(200);
  const { id } = response.json().data as { id: string };
  await caughtUp(service);
  return { id, ...(await billOf(service, id)) };
}

const get = async <T>(url: string): Promise<T> => {
  const response = await admin.session('GET', url);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data as T;
};
const csv = async (url: string) => {
  const response = await admin.session('GET', url);
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
  expect(response.body.startsWith('\uFEFF')).toBe(true);
  return response.body.slice(1).split('\r\n').filter(Boolean);
};

describe('the reports finance signs', () => {
  it('Monday: a QRIS and a virtual account payment, and a late exact credit allocated to its expired payment', async () => {
    expect(service.clock.now().toISOString()).toBe('2026-01-05T03:00:01.000Z');
    const qris = await created(shop, 'QRIS-DYNAMIC', 150_000);
    await sandbox().pay({ qris: qris.qris! });
    await synced(service, admin, accounts.qris);
    const va = await created(cafe, 'VA-BANK1', 200_000);
    await sandbox().pay({ vaNumber: va.vaNumber!, amount: va.totalAmount });
    await synced(service, admin, accounts.va);
    known.fees.qris += fee('QRIS-DYNAMIC', 150_000, settings());
    known.codes.qris += qris.totalAmount - qris.amount;
    known.fees.va += settings().vaFee;
    known.codes.va += va.totalAmount - va.amount;
    known.shopNet += 150_000 - fee('QRIS-DYNAMIC', 150_000, settings());
    known.cafeNet += 200_000;
    known.cash.qris += qris.totalAmount;
    known.cash.va += va.totalAmount;

    const late = await created(shop, 'QRIS-DYNAMIC', 40_000);
    await clockTo(new Date(late.expiresAt + 60_000).toISOString());
    await service.paymentExpiry.tick();
    await caughtUp(service);
    await sandbox().addTransaction({
      providerCode: 'WALLET-D',
      accountRef: accounts.qris.phoneNumber,
      type: 'CREDIT',
      amount: late.totalAmount,
      senderName: 'TELAT BAYAR',
    });
    await synced(service, admin, accounts.qris);
    const [item] = (await get<{ id: string; amount: number }[]>('/api/admin/gateway/suspense?status=OPEN')).filter(
      i => i.amount === late.totalAmount,
    );
    const allocated = await admin.session('POST', `/api/admin/gateway/suspense/${item!.id}/allocate`, {
      paymentId: late.id,
    });
    expect(allocated.statusCode, allocated.body).toBe(200);
    known.allocationFee = allocated.json().data.allocation.fee;
    known.allocatedPaymentFee = fee('QRIS-DYNAMIC', 40_000, settings());
    known.fees.qris += known.allocationFee;
    known.codes.qris += late.totalAmount - late.amount;
    known.shopNet += 40_000 - known.allocationFee;
    known.cash.qris += late.totalAmount;
  });

  it("a payment paid Monday 23:59:30 while the wallet is down, seen Tuesday 00:00:05, is Monday's", async () => {
    await clockTo('2026-01-05T23:59:00+07:00');
    const late = await created(shop, 'QRIS-DYNAMIC', 30_000);
    await clockTo('2026-01-05T23:59:30+07:00');
    await sandbox().pay({ qris: late.qris! });
    await sandbox().faults({ providerCode: 'WALLET-D', outage: true });
    expect((await admin.call('GET', `/api/v1/accounts/${accounts.qris.accountId}/refresh`)).statusCode).not.toBe(200);
    await clockTo('2026-01-06T00:00:05+07:00');
    await sandbox().clearFaults();
    await new Promise(resolve => setTimeout(resolve, 100)); // the connector's circuit half-opens after 50 ms
    await synced(service, admin, accounts.qris);
    known.fees.qris += fee('QRIS-DYNAMIC', 30_000, settings());
    known.codes.qris += late.totalAmount - late.amount;
    known.shopNet += 30_000 - fee('QRIS-DYNAMIC', 30_000, settings());
    known.cash.qris += late.totalAmount;
    const monday = await get<GatewayRevenue>('/api/admin/gateway/revenue?from=2026-01-05&to=2026-01-05');
    expect(monday.byMethod.find(m => m.method === 'QRIS-DYNAMIC')).toMatchObject({ payments: 2, allocations: 1 });
  });

  it('00:00 Tuesday settles; a payout through WALLET-A after a refused transfer, and one recorded as paid from the QRIS wallet', async () => {
    await caughtUp(service);
    await service.gatewaySettlement.tick();
    await caughtUp(service);
    await clockTo('2026-01-06T09:00:00+07:00');
    const withdraw = async (merchant: Merchant, amount: number) => {
      const asked = await merchant.session('POST', '/api/dashboard/gateway/withdrawals', { amount, ...bank });
      expect(asked.statusCode, asked.body).toBe(201);
      return asked.json().data.id as string;
    };
    known.withdrawals.pay = await withdraw(shop, 100_000);
    await sandbox().faults({ providerCode: 'WALLET-A', transferRefuse: 1 });
    const refused = await admin.session('POST', `/api/admin/gateway/withdrawals/${known.withdrawals.pay}/pay`);
    await sandbox().clearFaults();
    expect(refused.statusCode, refused.body).toBe(502);
    const paid = await admin.session('POST', `/api/admin/gateway/withdrawals/${known.withdrawals.pay}/pay`);
    expect(paid.statusCode, paid.body).toBe(200);
    known.cash.va -= 100_000;
    known.withdrawals.paid = await withdraw(cafe, 60_000);
    // tried through WALLET-A first, refused; then paid by hand from the QRIS wallet
    await sandbox().faults({ providerCode: 'WALLET-A', transferRefuse: 1 });
    const tried = await admin.session('POST', `/api/admin/gateway/withdrawals/${known.withdrawals.paid}/pay`);
    await sandbox().clearFaults();
    expect(tried.statusCode, tried.body).toBe(502);
    const recorded = await admin.session('POST', `/api/admin/gateway/withdrawals/${known.withdrawals.paid}/paid`, {
      reference: 'BCA-TRF-0601',
      holdingAccountId: accounts.qris.accountId,
    });
    expect(recorded.statusCode, recorded.body).toBe(200);
    known.cash.qris -= 60_000;
    await caughtUp(service);
  });

  it("a holding account's balance history: a row a day, each closing the next day's opening, tied to the reconciliation", async () => {
    const url = `/api/admin/gateway/balance-history?from=2026-01-04&to=2026-01-07&holdingAccountId=${accounts.qris.accountId}`;
    const history = await get<BalanceHistory>(url);
    expect(history.subject).toEqual({
      kind: 'holdingAccount',
      holdingAccountId: accounts.qris.accountId,
      providerCode: 'WALLET-D',
      accountName: 'WALLET-D',
    });
    expect(history.days.map(d => [d.day, d.opening, d.debits, d.credits, d.closing])).toEqual([
      ['2026-01-04', 0, 0, 0, 0],
      ['2026-01-05', 0, known.cash.qris + 60_000, 0, known.cash.qris + 60_000],
      ['2026-01-06', known.cash.qris + 60_000, 0, 60_000, known.cash.qris],
      ['2026-01-07', known.cash.qris, 0, 0, known.cash.qris],
    ]);
    expect(history.accounts).toEqual([
      expect.objectContaining({ opening: 0, closing: known.cash.qris, consistent: true }),
    ]);
    expect(history.consistent).toBe(true);
    const reconciliation = await get<GatewayReconciliation>(`/api/admin/gateway/reconciliation?${period}`);
    const tb = reconciliation.trialBalance.accounts.find(a => a.account === `holding:${accounts.qris.accountId}`)!;
    expect(tb).toMatchObject({ closing: known.cash.qris, name: 'WALLET-D WALLET-D' });
  });

  it("a merchant's balance history: pending, settled and onHold a day each, in the ledger's sign, carried day to day", async () => {
    const history = await get<BalanceHistory>(`/api/admin/gateway/balance-history?${period}&merchantId=${shop.id}`);
    expect(history.subject).toEqual({
      kind: 'merchant',
      merchantId: shop.id,
      merchantName: 'Toko Maju',
      merchantEmail: shop.email,
    });
    const row = (day: string, balance: string) => history.days.find(d => d.day === day && d.balance === balance)!;
    expect(row('2026-01-05', 'pending')).toMatchObject({ opening: 0, closing: -known.shopNet });
    expect(row('2026-01-06', 'pending')).toMatchObject({ opening: -known.shopNet, debits: known.shopNet, closing: 0 });
    expect(row('2026-01-06', 'settled')).toMatchObject({ opening: 0, closing: -(known.shopNet - 100_000) });
    expect(row('2026-01-06', 'onHold')).toMatchObject({ opening: 0, debits: 100_000, credits: 100_000, closing: 0 });
    for (const balance of ['pending', 'settled', 'onHold'])
      expect(row('2026-01-06', balance).opening, balance).toBe(row('2026-01-05', balance).closing);
    const reconciliation = await get<GatewayReconciliation>(`/api/admin/gateway/reconciliation?${period}`);
    for (const a of history.accounts)
      expect(a).toMatchObject({
        consistent: true,
        closing: reconciliation.trialBalance.accounts.find(t => t.account === a.account)?.closing ?? 0,
      });

    const lines = await csv(`/api/admin/gateway/balance-history.csv?${period}&merchantId=${shop.id}`);
    expect(lines[0]).toBe(
      'day,merchantId,merchantName,merchantEmail,account,balance,postings,opening,debits,credits,closing',
    );
    expect(lines).toHaveLength(1 + 2 * 3);
    expect(lines[1]).toContain(`2026-01-05,${shop.id},Toko Maju,${shop.email},merchant:${shop.id}:pending,pending`);
  });

  it('balance history refuses a subject missing, both subjects, or an unknown one, computing nothing', async () => {
    for (const query of ['', `&merchantId=${shop.id}&holdingAccountId=${accounts.qris.accountId}`])
      expect((await admin.session('GET', `/api/admin/gateway/balance-history?${period}${query}`)).statusCode).toBe(400);
    const unknown = await admin.session(
      'GET',
      `/api/admin/gateway/balance-history?${period}&holdingAccountId=00000000-0000-4000-8000-00000000dead`,
    );
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'ACCOUNT_NOT_FOUND' });
  });

  it('revenue by method and by merchant, unique-code income apart, the totals those of the reconciliation', async () => {
    const revenue = await get<GatewayRevenue>(`/api/admin/gateway/revenue?${period}`);
    expect(revenue.byMethod).toEqual([
      {
        method: 'QRIS-DYNAMIC',
        payments: 2,
        allocations: 1,
        fees: known.fees.qris,
        uniqueCodes: known.codes.qris,
        revenue: known.fees.qris + known.codes.qris,
        net: known.shopNet,
        gross: known.fees.qris + known.codes.qris + known.shopNet,
      },
      {
        method: 'VA-BANK1',
        payments: 1,
        allocations: 0,
        fees: known.fees.va,
        uniqueCodes: known.codes.va,
        revenue: known.fees.va + known.codes.va,
        net: known.cafeNet,
        gross: known.fees.va + known.codes.va + known.cafeNet,
      },
    ]);
    expect(revenue.byMerchant.map(m => [m.merchantId, m.merchantName, m.merchantEmail, m.fees, m.uniqueCodes])).toEqual(
      expect.arrayContaining([
        [shop.id, 'Toko Maju', shop.email, known.fees.qris, known.codes.qris],
        [cafe.id, 'Toko Maju', cafe.email, known.fees.va, known.codes.va],
      ]),
    );
    const reconciliation = await get<GatewayReconciliation>(`/api/admin/gateway/reconciliation?${period}`);
    expect(revenue.total).toMatchObject({
      fees: reconciliation.fees.total.earned,
      uniqueCodes: reconciliation.fees.total.uniqueCodes,
    });
    const totals = await csv(`/api/admin/gateway/revenue.csv?${period}&table=totals`);
    expect(totals).toEqual([
      'from,to,payments,allocations,gross,fees,uniqueCodes,revenue,net',
      `2026-01-05,2026-01-06,3,1,${revenue.total.gross},${revenue.total.fees},${revenue.total.uniqueCodes},${revenue.total.revenue},${revenue.total.net}`,
    ]);
    const byMethod = await csv(`/api/admin/gateway/revenue.csv?${period}`);
    expect(byMethod[0]).toBe('method,payments,allocations,gross,fees,uniqueCodes,revenue,net');
    expect(byMethod).toHaveLength(3);
    expect((await csv(`/api/admin/gateway/revenue.csv?${period}&table=by-merchant`))[0]).toBe(
      'merchantId,merchantName,merchantEmail,payments,allocations,gross,fees,uniqueCodes,revenue,net',
    );
  });

  it('the payouts with source account, destination, holders asked and answered, channel and attempts', async () => {
    const report = await get<PayoutReport>(`/api/admin/gateway/payout-report?${period}`);
    const byId = new Map(report.payouts.map(p => [p.withdrawalId, p]));
    expect(byId.get(known.withdrawals.pay)).toMatchObject({
      merchantId: shop.id,
      merchantName: 'Toko Maju',
      merchantEmail: shop.email,
      amount: 100_000,
      channel: '/pay',
      sourceAccountId: accounts.va.accountId,
      sourceProviderCode: 'WALLET-A',
      sourceAccountName: 'A',
      bankCode: 'BCA',
      accountNumber: '1234567890',
      holderAsked: 'Joko Wijaya',
      holderAnswered: expect.any(String),
      holderMatches: true,
      holderOverride: null,
      paidBy: admin.id,
    });
    expect(byId.get(known.withdrawals.pay)!.attempts.map(a => [a.outcome, a.accountId])).toEqual([
      ['FAILED', accounts.va.accountId],
      ['PAID', accounts.va.accountId],
    ]);
    expect(byId.get(known.withdrawals.paid)).toMatchObject({
      merchantId: cafe.id,
      amount: 60_000,
      reference: 'BCA-TRF-0601',
      channel: '/paid',
      sourceAccountId: accounts.qris.accountId,
      sourceProviderCode: 'WALLET-D',
      holderAsked: 'Joko Wijaya',
    });
    expect(byId.get(known.withdrawals.paid)!.attempts.map(a => a.outcome)).toEqual(['FAILED']);
    expect(report.total).toEqual({
      payouts: 2,
      amount: 160_000,
      byChannel: [
        { channel: '/pay', payouts: 1, amount: 100_000 },
        { channel: '/paid', payouts: 1, amount: 60_000 },
      ],
    });
    const lines = await csv(`/api/admin/gateway/payout-report.csv?${period}`);
    expect(lines[0]).toBe(
      'paidAt,recordedAt,withdrawalId,merchantId,merchantName,merchantEmail,amount,channel,reference,sourceAccountId,sourceProviderCode,sourceAccountName,bankCode,accountNumber,holderAsked,holderAnswered,holderMatches,holderOverrideReason,holderOverrideBy,paidBy,attempts,attemptOutcomes',
    );
    const paidRow = lines.find(l => l.includes(known.withdrawals.pay))!;
    expect(paidRow).toMatch(/^2026-01-06T09:\d\d:\d\d\+07:00,/);
    expect(paidRow).toContain(`,/pay,`);
    expect(paidRow).toMatch(/,2,FAILED PAID$/);
    expect(await csv(`/api/admin/gateway/payout-report.csv?${period}&table=attempts`)).toHaveLength(4);
    expect(await csv(`/api/admin/gateway/payout-report.csv?${period}&table=totals`)).toEqual([
      'from,to,payouts,amount,payPayouts,payAmount,paidPayouts,paidAmount',
      '2026-01-05,2026-01-06,2,160000,1,100000,1,60000',
    ]);
  });

  it("the reconciliation names its ids, and the allocation's row shows the fee charged beside its payment's own", async () => {
    const reconciliation = await get<GatewayReconciliation>(`/api/admin/gateway/reconciliation?${period}`);
    expect(reconciliation.merchants.rows.find(m => m.merchantId === cafe.id)).toMatchObject({
      merchantName: 'Toko Maju',
      merchantEmail: cafe.email,
    });
    expect(reconciliation.holdingAccounts.accounts.find(h => h.accountId === accounts.va.accountId)).toMatchObject({
      providerCode: 'WALLET-A',
      accountName: 'A',
    });
    expect(reconciliation.payouts.map(p => p.merchantEmail)).toEqual(expect.arrayContaining([shop.email, cafe.email]));
    const allocation = reconciliation.suspense.items.find(i => i.status === 'ALLOCATED')!;
    expect(allocation).toMatchObject({
      merchantName: 'Toko Maju',
      providerCode: 'WALLET-D',
      fee: known.allocationFee,
      paymentFee: known.allocatedPaymentFee,
      feeDifference: 0,
    });
    const suspense = await csv(`/api/admin/gateway/reconciliation.csv?${period}&table=suspense`);
    expect(suspense[0]).toContain('holdingAccountId,providerCode,accountName,amount');
    expect(suspense[0]).toContain('merchantId,merchantName,paymentId,fee,paymentFee,feeDifference,net');
    const merchants = await csv(`/api/admin/gateway/reconciliation.csv?${period}&table=merchants`);
    expect(merchants[0]).toMatch(/^merchantId,merchantName,merchantEmail,/);
    expect(merchants.some(l => l.startsWith(`${shop.id},Toko Maju,${shop.email},`))).toBe(true);
  });
});

describe('the console pages of the reports', () => {
  const page = async (url: string, status = 200) => {
    const response = await admin.session('GET', url);
    expect(response.statusCode, response.body.slice(0, 300)).toBe(status);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    return response.body;
  };

  it('show each report for a period, with a CSV link per table that downloads it', async () => {
    const revenue = await page(`/admin/revenue?${period}`);
    expect(revenue).toContain('id="revenue-unique-codes"');
    expect(revenue).toContain('data-method="QRIS-DYNAMIC"');
    expect(revenue).toContain(`data-merchant-id="${shop.id}"`);
    const link = /href="(\/admin\/revenue\.csv\?[^"]+)"/.exec(revenue)![1]!.replaceAll('&#38;', '&');
    expect((await csv(link))[0]).toBe('method,payments,allocations,gross,fees,uniqueCodes,revenue,net');

    const history = await page(`/admin/balance-history?${period}&holdingAccountId=${accounts.qris.accountId}`);
    expect(history.match(/<tr data-day=/g)).toHaveLength(2);
    expect(history).toContain('WALLET-D WALLET-D');
    expect(await csv(`/admin/balance-history.csv?${period}&holdingAccountId=${accounts.qris.accountId}`)).toHaveLength(
      3,
    );
    // the form lists the merchants and accounts to choose from
    expect(await page('/admin/balance-history')).toContain(`<option value="${shop.id}">`);

    const payouts = await page(`/admin/payout-report?${period}`);
    expect(payouts).toContain(`data-withdrawal-id="${known.withdrawals.pay}" data-channel="/pay"`);
    expect(payouts).toContain(`data-withdrawal-id="${known.withdrawals.paid}" data-channel="/paid"`);
    expect(await csv(`/admin/payout-report.csv?${period}&table=attempts`)).toHaveLength(4);
  });

  it('refuse a filter on the page itself (400, in Indonesian), computing nothing', async () => {
    expect(await page('/admin/revenue?from=2026-13-45&to=2026-01-06', 400)).toContain('Filter tidak valid (from)');
    expect(
      await page(
        `/admin/balance-history?${period}&merchantId=${shop.id}&holdingAccountId=${accounts.qris.accountId}`,
        400,
      ),
    ).toContain('Filter tidak valid (merchantId)');
    expect(await page('/admin/payout-report?from=2026-01-06&to=2026-01-05', 400)).toContain('id="from"');
  });
});
