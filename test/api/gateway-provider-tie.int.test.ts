import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayReconciliation } from '../../src/audit/gateway-reconciliation.ts';
import type { HoldingAccountPeriod } from '../../src/audit/gateway-period-balances.ts';
import { findHoldingCash } from '../../src/projections/gateway-ledger.ts';
import {
  billOf,
  caughtUp,
  providerBalance,
  synced,
  walletASignedInAgain,
  type PlatformAccount,
  clockTo as movedClock,
} from '../support/finance.ts';
import { approvedMerchant, signedInAdmin, signedInAdminBrowser, type Admin } from '../support/gateway.ts';
import { textOf } from '../support/pages.ts';
import { linkServiceWallet, linkWalletA, paymentBody } from '../support/payments.ts';
import { sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * The tie to the bank over HTTP with the test clock: two wallets that held money of their own before they were marked
 * (the sandbox seeds them), marked as the platform's holding accounts, which books their opening balances; days of
 * payments, a stray credit left in suspense and a payout through WALLET-A, each day's report tied; a past day shows the
 * provider's balance as at its end; a bank fee nobody booked leaves the account untied until an admin books it.
 */
let service: TestService;
let admin: Admin;
let merchant: Awaited<ReturnType<typeof approvedMerchant>>;
let qris: PlatformAccount;
let va: PlatformAccount;
const sandbox = () => sandboxOf(service);
const bank = { bankCode: 'BCA', accountNumber: '1234567890', accountHolderName: 'Joko Wijaya' };

beforeAll(async () => {
  service = await startTestService({ TEST_CLOCK: 'true', TEST_CLOCK_FORCE: 'true', REGISTER_LIMIT_PER_IP: '1000' });
  admin = await signedInAdmin(service);
  merchant = await approvedMerchant(service, admin);
  qris = { key: 'qris', providerCode: 'WALLET-D', ...(await linkServiceWallet(admin, 'WALLET-D')) };
  va = { key: 'va', providerCode: 'WALLET-A', ...(await linkWalletA(service, admin)) };
}, 120_000);
afterAll(async () => service?.close());

const clockTo = (at: string) => movedClock(service, at, { settle: true });

async function report(from: string, to = from): Promise<GatewayReconciliation> {
  const response = await admin.session('GET', `/api/admin/gateway/reconciliation?from=${from}&to=${to}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
}
const rowOf = (data: GatewayReconciliation, account: PlatformAccount): HoldingAccountPeriod =>
  data.holdingAccounts.accounts.find(h => h.accountId === account.accountId)!;

/** A day's report: every holding account tied, its ledger cash the provider's balance less what its items explain. */
async function expectTied(day: string) {
  const data = await report(day);
  expect(data.holdingAccounts.tied, day).toBe(true);
  for (const account of [qris, va]) {
    const row = rowOf(data, account);
    expect(row, `${day} ${account.key}`).toMatchObject({ tied: true, unexplained: 0 });
    expect(row.ledgerCash, `${day} ${account.key}: the fold's closing is the read model's cash`).toBe(row.closing);
    expect(row.providerBalance! - row.ledgerCash).toBe(row.explained);
  }
  return data;
}

async function paidPayment(type: 'QRIS-DYNAMIC' | 'VA-BANK1', amount: number) {
  const created = await merchant.call('POST', '/api/v1/payments', paymentBody('GATEWAY', { type, amount }));
  expect(created.statusCode, created.body).toBe(200);
  const { id } = created.json().data as { id: string };
  await caughtUp(service);
  const bill = await billOf(service, id);
  await (type === 'QRIS-DYNAMIC'
    ? sandbox().pay({ qris: bill.qris! })
    : sandbox().pay({ vaNumber: bill.vaNumber!, amount: bill.totalAmount }));
  await synced(service, admin, type === 'QRIS-DYNAMIC' ? qris : va);
  return bill;
}

type Entry = { kind: string; holdingAccountId: string; amount: number; reason: string | null; bookedBy: string };
const entries = async (): Promise<Entry[]> =>
  (await admin.session('GET', '/api/admin/gateway/ledger-adjustments')).json().data;

const seeded = { qris: 0, va: 0 };

describe('opening balances and the tie to the bank', () => {
  it('marking a wallet that held money books its provider balance as its opening, and the platform ties', async () => {
    await clockTo('2026-01-05T10:00:00+07:00');
    seeded.qris = await providerBalance(service, qris);
    seeded.va = await providerBalance(service, va);
    expect(seeded.qris).toBeGreaterThan(0);
    expect(seeded.va).toBeGreaterThan(0);
    for (const account of [qris, va]) {
      const marked = await admin.session('POST', '/api/admin/gateway/holding-accounts', {
        accountId: account.accountId,
      });
      expect(marked.statusCode, marked.body).toBe(201);
    }
    const chosen = await admin.session('POST', '/api/admin/gateway/payout-account', { accountId: va.accountId });
    expect(chosen.statusCode, chosen.body).toBe(200);
    const openings = await entries();
    expect(openings.map(e => [e.kind, e.holdingAccountId, e.amount]).sort()).toEqual(
      [
        ['OPENING', qris.accountId, seeded.qris],
        ['OPENING', va.accountId, seeded.va],
      ].sort(),
    );
    expect(await findHoldingCash(service.pool, qris.accountId)).toBe(seeded.qris);
    // marked again: nothing more is booked
    await admin.session('POST', '/api/admin/gateway/holding-accounts', { accountId: qris.accountId });
    expect(await entries()).toHaveLength(2);
    const data = await expectTied('2026-01-05');
    expect(data.trialBalance.balanced).toBe(true);
    expect(rowOf(data, qris)).toMatchObject({ ledgerCash: seeded.qris, providerBalance: seeded.qris, items: [] });
  });

  it('over days of payments, a stray credit in suspense and a payout, every day ties', async () => {
    await paidPayment('QRIS-DYNAMIC', 150_000);
    await paidPayment('VA-BANK1', 200_000);
    await sandbox().addTransaction({
      providerCode: 'WALLET-D',
      accountRef: qris.phoneNumber,
      type: 'CREDIT',
      amount: 25_000,
      senderName: 'SALAH KIRIM',
    });
    await synced(service, admin, qris);
    const open = (await admin.session('GET', '/api/admin/gateway/suspense?status=OPEN')).json().data;
    expect(open).toHaveLength(1);
    await expectTied('2026-01-05');

    await clockTo('2026-01-06T00:00:05+07:00');
    await service.gatewaySettlement.tick();
    await caughtUp(service);
    await clockTo('2026-01-06T09:00:00+07:00');
    const asked = await merchant.session('POST', '/api/dashboard/gateway/withdrawals', { amount: 100_000, ...bank });
    expect(asked.statusCode, asked.body).toBe(201);
    const paid = await admin.session('POST', `/api/admin/gateway/withdrawals/${asked.json().data.id}/pay`);
    expect(paid.statusCode, paid.body).toBe(200);
    await paidPayment('QRIS-DYNAMIC', 40_000);
    await synced(service, admin, va);
    await expectTied('2026-01-06');
    await expectTied('2026-01-05');
    const both = await report('2026-01-05', '2026-01-06');
    expect(both.holdingAccounts.tied).toBe(true);
  });

  it("a past day shows the provider's balance as at its end, not null", async () => {
    await clockTo('2026-01-07T11:00:00+07:00');
    await walletASignedInAgain(service, admin, va); // its provider session lasts a day of the test clock
    for (const account of [qris, va]) await synced(service, admin, account);
    const monday = rowOf(await report('2026-01-05'), va);
    const tuesday = rowOf(await report('2026-01-06'), va);
    expect(monday.providerBalanceAt).toBe('2026-01-05T17:00:00.000Z');
    expect(monday.providerBalance).toBe(tuesday.providerBalance! + 100_000); // the payout left on Tuesday
    expect(monday.providerBalance).not.toBe(null);
    expect(tuesday.providerBalance).toBe(await providerBalance(service, va));
    await expectTied('2026-01-07');
  });

  it('a bank fee nobody booked leaves the account untied; an adjusting entry with its reason moves the cash and ties it', async () => {
    await sandbox().addTransaction({
      providerCode: 'WALLET-D',
      accountRef: qris.phoneNumber,
      type: 'DEBIT',
      amount: 6_500,
      description: 'BIAYA ADMIN',
    });
    await synced(service, admin, qris);
    const untied = await report('2026-01-07');
    expect(untied.holdingAccounts.tied).toBe(false);
    expect(rowOf(untied, qris)).toMatchObject({ difference: -6_500, unexplained: -6_500, tied: false });
    expect(rowOf(untied, va)).toMatchObject({ tied: true });

    const cash = await findHoldingCash(service.pool, qris.accountId);
    const booked = await admin.session('POST', '/api/admin/gateway/ledger-adjustments', {
      holdingAccountId: qris.accountId,
      amount: -6_500,
      effectiveAt: '2026-01-07T11:00:00+07:00',
      reason: 'Biaya admin bank Januari',
    });
    expect(booked.statusCode, booked.body).toBe(201);
    expect(booked.json().data).toMatchObject({ kind: 'ADJUSTMENT', amount: -6_500, bookedBy: admin.id });
    expect(await findHoldingCash(service.pool, qris.accountId)).toBe(cash - 6_500);
    expect((await entries())[0]).toMatchObject({ kind: 'ADJUSTMENT', reason: 'Biaya admin bank Januari' });
    await expectTied('2026-01-07');
    // the same request again books nothing
    await admin.session('POST', '/api/admin/gateway/ledger-adjustments', {
      holdingAccountId: qris.accountId,
      amount: -6_500,
      effectiveAt: '2026-01-07T11:00:00+07:00',
      reason: 'Biaya admin bank Januari',
    });
    expect(await findHoldingCash(service.pool, qris.accountId)).toBe(cash - 6_500);
  });

  it('an entry for an account not the platform’s, dated later than now, or taking more than its cash is refused', async () => {
    const other = await linkServiceWallet(admin, 'WALLET-D');
    const book = (fields: Record<string, unknown>) =>
      admin.session('POST', '/api/admin/gateway/ledger-adjustments', {
        holdingAccountId: qris.accountId,
        amount: 1_000,
        effectiveAt: '2026-01-07T10:00:00+07:00',
        reason: 'koreksi',
        ...fields,
      });
    expect((await book({ holdingAccountId: other.accountId })).json()).toMatchObject({
      code: 'LEDGER_ADJUSTMENT_INVALID',
    });
    expect((await book({ effectiveAt: '2026-01-08T10:00:00+07:00' })).statusCode).toBe(400);
    expect((await book({ amount: 0 })).statusCode).toBe(400);
    const cash = await findHoldingCash(service.pool, qris.accountId);
    expect((await book({ amount: -(cash + 1) })).statusCode).toBe(409);
    expect(await findHoldingCash(service.pool, qris.accountId)).toBe(cash);
  });

  it('marked again after a release: only what the provider holds beyond the ledger is booked', async () => {
    const unmarked = await admin.session('DELETE', `/api/admin/gateway/holding-accounts/${qris.accountId}`);
    expect(unmarked.statusCode, unmarked.body).toBe(200);
    await sandbox().addTransaction({
      providerCode: 'WALLET-D',
      accountRef: qris.phoneNumber,
      type: 'CREDIT',
      amount: 10_000,
      senderName: 'PEMILIK',
    });
    const before = await entries();
    // a second later, as a marking comes after the account's own history (its credits from then on are the gateway's)
    service.clock.advance(1_000);
    const marked = await admin.session('POST', '/api/admin/gateway/holding-accounts', { accountId: qris.accountId });
    expect(marked.statusCode, marked.body).toBe(201);
    const after = await entries();
    expect(after).toHaveLength(before.length + 1);
    expect(after[0]).toMatchObject({ kind: 'OPENING', holdingAccountId: qris.accountId, amount: 10_000 });
    await expectTied('2026-01-07');
  });

  it('the console lists the openings and entries and books a dated entry with its reason from its form', async () => {
    // the provider's transfer fee the entry books
    await sandbox().addTransaction({
      providerCode: 'WALLET-A',
      accountRef: va.phoneNumber,
      type: 'DEBIT',
      amount: 2_500,
      description: 'BIAYA TRANSFER',
    });
    await synced(service, admin, va);
    const { browser } = await signedInAdminBrowser(service);
    const page = (await browser.get('/admin/holding-accounts')).body;
    expect(page).toContain('Saldo awal (saat ditandai)');
    expect(page).toContain('Biaya admin bank Januari');
    const cash = await findHoldingCash(service.pool, va.accountId);
    const booked = await browser.post('/admin/holding-accounts/ledger-adjustments', {
      holdingAccountId: va.accountId,
      amount: '-2500',
      effectiveAt: '2026-01-07T10:30',
      reason: 'Biaya transfer keluar',
    });
    expect(booked.headers.location).toBe('/admin/holding-accounts?done=ledger-adjustment');
    expect(await findHoldingCash(service.pool, va.accountId)).toBe(cash - 2_500);
    expect((await entries()).find(a => a.reason === 'Biaya transfer keluar')).toMatchObject({
      holdingAccountId: va.accountId,
      amount: -2_500,
      effectiveAt: '2026-01-07T03:30:00.000Z',
      reason: 'Biaya transfer keluar',
    });
    expect((await browser.get('/admin/holding-accounts')).body).toContain('Biaya transfer keluar');
    await expectTied('2026-01-07');
    const refused = await browser.post('/admin/holding-accounts/ledger-adjustments', {
      holdingAccountId: va.accountId,
      amount: '1000',
      effectiveAt: '2026-02-01T10:30',
      reason: 'masa depan',
    });
    expect(refused.statusCode).toBe(400);
    expect(textOf(refused.body, 'notice')).toContain('bertanggal paling lambat sekarang');
  });

  it("a hand transfer whose destination's credit the provider shows after midnight: explained on the day it was booked", async () => {
    await clockTo('2026-01-07T23:00:00+07:00');
    await sandbox().addTransaction({
      providerCode: 'WALLET-D',
      accountRef: qris.phoneNumber,
      type: 'DEBIT',
      amount: 30_000,
      description: 'HAND-0107',
      reference: 'HAND-0107',
    });
    await synced(service, admin, qris);
    await clockTo('2026-01-07T23:10:00+07:00');
    const recorded = await admin.session('POST', '/api/admin/gateway/holding-transfers', {
      fromAccountId: qris.accountId,
      toAccountId: va.accountId,
      amount: 30_000,
      reference: 'HAND-0107',
    });
    expect(recorded.statusCode, recorded.body).toBe(201);
    const day = await expectTied('2026-01-07');
    expect(rowOf(day, va).items).toEqual([
      expect.objectContaining({ kind: 'HAND_TRANSFER_SIDE_NOT_SEEN', amount: -30_000, seenAt: null }),
    ]);
    expect(rowOf(day, qris).items).toEqual([]);

    await clockTo('2026-01-08T00:30:00+07:00');
    await sandbox().addTransaction({
      providerCode: 'WALLET-A',
      accountRef: va.phoneNumber,
      type: 'CREDIT',
      amount: 30_000,
      senderName: 'HAND-0107',
      reference: 'HAND-0107',
    });
    await synced(service, admin, va);
    const before = await expectTied('2026-01-07');
    expect(rowOf(before, va).items).toEqual([
      expect.objectContaining({ kind: 'HAND_TRANSFER_SIDE_NOT_SEEN', seenAt: '2026-01-07T17:30:00.000Z' }),
    ]);
    expect(rowOf(await expectTied('2026-01-08'), va).items).toEqual([]);
  });
});
