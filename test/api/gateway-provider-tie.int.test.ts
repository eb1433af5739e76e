import { describe, expect, it } from 'vitest';
import { findHoldingCash } from '../../src/projections/gateway-ledger.ts';
import {
  caughtUp,
  providerBalance,
  synced,
  walletASignedInAgain,
  type PlatformAccount,
  clockTo as movedClock,
} from '../support/finance.ts';
import {
  expectDayTied,
  markedWallets,
  monthEndWorld,
  paidPayment,
  reportOf,
  requestedWithdrawal,
  rowOf,
} from '../support/month-end.ts';
import { signedInAdminBrowser } from '../support/gateway.ts';
import { textOf } from '../support/pages.ts';
import { linkServiceWallet } from '../support/payments.ts';
import { sandboxOf } from '../support/sandbox.ts';

/**
 * The tie to the bank over HTTP with the test clock: two wallets that held money of their own before they were marked
 * (the sandbox seeds them), marked as the platform's holding accounts, which books their opening balances; days of
 * payments, a stray credit left in suspense and a payout through WALLET-A, each day's report tied; a past day shows the
 * provider's balance as at its end; a bank fee nobody booked leaves the account untied until an admin books it; hand
 * transfers, one whose destination's credit comes after midnight, one that takes its credit from suspense (counted in
 * the suspense's transferred total).
 */
const w = monthEndWorld();
const sandbox = () => sandboxOf(w.service);

const clockTo = (at: string) => movedClock(w.service, at, { settle: true });
const report = (from: string, to = from) => reportOf(w, from, to);
const expectTied = (day: string) => expectDayTied(w, day);

type Entry = { kind: string; holdingAccountId: string; amount: number; reason: string | null; bookedBy: string };
const entries = async (): Promise<Entry[]> =>
  (await w.admin.session('GET', '/api/admin/gateway/ledger-adjustments')).json().data;

const seeded = { qris: 0, va: 0 };

describe('opening balances and the tie to the bank', () => {
  it('marking a wallet that held money books its provider balance as its opening, and the platform ties', async () => {
    await clockTo('2026-01-05T10:00:00+07:00');
    seeded.qris = await providerBalance(w.service, w.qris);
    seeded.va = await providerBalance(w.service, w.va);
    expect(seeded.qris).toBeGreaterThan(0);
    expect(seeded.va).toBeGreaterThan(0);
    await markedWallets(w);
    const openings = await entries();
    expect(openings.map(e => [e.kind, e.holdingAccountId, e.amount]).sort()).toEqual(
      [
        ['OPENING', w.qris.accountId, seeded.qris],
        ['OPENING', w.va.accountId, seeded.va],
      ].sort(),
    );
    expect(await findHoldingCash(w.service.pool, w.qris.accountId)).toBe(seeded.qris);
    // marked again: nothing more is booked
    await w.admin.session('POST', '/api/admin/gateway/holding-accounts', { accountId: w.qris.accountId });
    expect(await entries()).toHaveLength(2);
    const data = await expectTied('2026-01-05');
    expect(data.trialBalance.balanced).toBe(true);
    expect(rowOf(data, w.qris)).toMatchObject({ ledgerCash: seeded.qris, providerBalance: seeded.qris, items: [] });
  });

  it('over days of payments, a stray credit in suspense and a payout, every day ties', async () => {
    await paidPayment(w, 'QRIS-DYNAMIC', 150_000);
    await paidPayment(w, 'VA-BANK1', 200_000);
    await sandbox().addTransaction({
      providerCode: 'WALLET-D',
      accountRef: w.qris.phoneNumber,
      type: 'CREDIT',
      amount: 25_000,
      senderName: 'SALAH KIRIM',
    });
    await synced(w.service, w.admin, w.qris);
    const open = (await w.admin.session('GET', '/api/admin/gateway/suspense?status=OPEN')).json().data;
    expect(open).toHaveLength(1);
    await expectTied('2026-01-05');

    await clockTo('2026-01-06T00:00:05+07:00');
    await w.service.gatewaySettlement.tick();
    await caughtUp(w.service);
    await clockTo('2026-01-06T09:00:00+07:00');
    const asked = await requestedWithdrawal(w, 100_000);
    const paid = await w.admin.session('POST', `/api/admin/gateway/withdrawals/${asked}/pay`);
    expect(paid.statusCode, paid.body).toBe(200);
    await paidPayment(w, 'QRIS-DYNAMIC', 40_000);
    await synced(w.service, w.admin, w.va);
    await expectTied('2026-01-06');
    await expectTied('2026-01-05');
    const both = await report('2026-01-05', '2026-01-06');
    expect(both.holdingAccounts.tied).toBe(true);
  });

  it("a past day shows the provider's balance as at its end, not null", async () => {
    await clockTo('2026-01-07T11:00:00+07:00');
    await walletASignedInAgain(w.service, w.admin, w.va); // its provider session lasts a day of the test clock
    for (const account of [w.qris, w.va]) await synced(w.service, w.admin, account);
    const monday = rowOf(await report('2026-01-05'), w.va);
    const tuesday = rowOf(await report('2026-01-06'), w.va);
    expect(monday.providerBalanceAt).toBe('2026-01-05T17:00:00.000Z');
    expect(monday.providerBalance).toBe(tuesday.providerBalance! + 100_000); // the payout left on Tuesday
    expect(monday.providerBalance).not.toBe(null);
    expect(tuesday.providerBalance).toBe(await providerBalance(w.service, w.va));
    await expectTied('2026-01-07');
  });

  it('a bank fee nobody booked leaves the account untied; an adjusting entry with its reason moves the cash and ties it', async () => {
    await sandbox().addTransaction({
      providerCode: 'WALLET-D',
      accountRef: w.qris.phoneNumber,
      type: 'DEBIT',
      amount: 6_500,
      description: 'BIAYA ADMIN',
    });
    await synced(w.service, w.admin, w.qris);
    const untied = await report('2026-01-07');
    expect(untied.holdingAccounts.tied).toBe(false);
    expect(rowOf(untied, w.qris)).toMatchObject({ difference: -6_500, unexplained: -6_500, tied: false });
    expect(rowOf(untied, w.va)).toMatchObject({ tied: true });

    const cash = await findHoldingCash(w.service.pool, w.qris.accountId);
    const booked = await w.admin.session('POST', '/api/admin/gateway/ledger-adjustments', {
      holdingAccountId: w.qris.accountId,
      amount: -6_500,
      effectiveAt: '2026-01-07T11:00:00+07:00',
      reason: 'Biaya w.admin bank Januari',
    });
    expect(booked.statusCode, booked.body).toBe(201);
    expect(booked.json().data).toMatchObject({ kind: 'ADJUSTMENT', amount: -6_500, bookedBy: w.admin.id });
    expect(await findHoldingCash(w.service.pool, w.qris.accountId)).toBe(cash - 6_500);
    expect((await entries())[0]).toMatchObject({ kind: 'ADJUSTMENT', reason: 'Biaya w.admin bank Januari' });
    await expectTied('2026-01-07');
    // the same request again books nothing
    await w.admin.session('POST', '/api/admin/gateway/ledger-adjustments', {
      holdingAccountId: w.qris.accountId,
      amount: -6_500,
      effectiveAt: '2026-01-07T11:00:00+07:00',
      reason: 'Biaya w.admin bank Januari',
    });
    expect(await findHoldingCash(w.service.pool, w.qris.accountId)).toBe(cash - 6_500);
  });

  it('an entry for an account not the platform’s, dated later than now, or taking more than its cash is refused', async () => {
    const other = await linkServiceWallet(w.admin, 'WALLET-D');
    const book = (fields: Record<string, unknown>) =>
      w.admin.session('POST', '/api/admin/gateway/ledger-adjustments', {
        holdingAccountId: w.qris.accountId,
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
    const cash = await findHoldingCash(w.service.pool, w.qris.accountId);
    expect((await book({ amount: -(cash + 1) })).statusCode).toBe(409);
    expect(await findHoldingCash(w.service.pool, w.qris.accountId)).toBe(cash);
  });

  it('marked again after a release: only what the provider holds beyond the ledger is booked', async () => {
    const unmarked = await w.admin.session('DELETE', `/api/admin/gateway/holding-accounts/${w.qris.accountId}`);
    expect(unmarked.statusCode, unmarked.body).toBe(200);
    await sandbox().addTransaction({
      providerCode: 'WALLET-D',
      accountRef: w.qris.phoneNumber,
      type: 'CREDIT',
      amount: 10_000,
      senderName: 'PEMILIK',
    });
    const before = await entries();
    // a second later, as a marking comes after the account's own history (its credits from then on are the gateway's)
    w.service.clock.advance(1_000);
    const marked = await w.admin.session('POST', '/api/admin/gateway/holding-accounts', {
      accountId: w.qris.accountId,
    });
    expect(marked.statusCode, marked.body).toBe(201);
    const after = await entries();
    expect(after).toHaveLength(before.length + 1);
    expect(after[0]).toMatchObject({ kind: 'OPENING', holdingAccountId: w.qris.accountId, amount: 10_000 });
    await expectTied('2026-01-07');
  });

  it('the console lists the openings and entries and books a dated entry with its reason from its form', async () => {
    // the provider's transfer fee the entry books
    await sandbox().addTransaction({
      providerCode: 'WALLET-A',
      accountRef: w.va.phoneNumber,
      type: 'DEBIT',
      amount: 2_500,
      description: 'BIAYA TRANSFER',
    });
    await synced(w.service, w.admin, w.va);
    const { browser } = await signedInAdminBrowser(w.service);
    const page = (await browser.get('/admin/holding-accounts')).body;
    expect(page).toContain('Saldo awal (saat ditandai)');
    expect(page).toContain('Biaya w.admin bank Januari');
    const cash = await findHoldingCash(w.service.pool, w.va.accountId);
    const booked = await browser.post('/admin/holding-accounts/ledger-adjustments', {
      holdingAccountId: w.va.accountId,
      amount: '-2500',
      effectiveAt: '2026-01-07T10:30',
      reason: 'Biaya transfer keluar',
    });
    expect(booked.headers.location).toBe('/admin/holding-accounts?done=ledger-adjustment');
    expect(await findHoldingCash(w.service.pool, w.va.accountId)).toBe(cash - 2_500);
    expect((await entries()).find(a => a.reason === 'Biaya transfer keluar')).toMatchObject({
      holdingAccountId: w.va.accountId,
      amount: -2_500,
      effectiveAt: '2026-01-07T03:30:00.000Z',
      reason: 'Biaya transfer keluar',
    });
    expect((await browser.get('/admin/holding-accounts')).body).toContain('Biaya transfer keluar');
    await expectTied('2026-01-07');
    const refused = await browser.post('/admin/holding-accounts/ledger-adjustments', {
      holdingAccountId: w.va.accountId,
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
      accountRef: w.qris.phoneNumber,
      type: 'DEBIT',
      amount: 30_000,
      description: 'HAND-0107',
      reference: 'HAND-0107',
    });
    await synced(w.service, w.admin, w.qris);
    await clockTo('2026-01-07T23:10:00+07:00');
    const recorded = await w.admin.session('POST', '/api/admin/gateway/holding-transfers', {
      fromAccountId: w.qris.accountId,
      toAccountId: w.va.accountId,
      amount: 30_000,
      reference: 'HAND-0107',
    });
    expect(recorded.statusCode, recorded.body).toBe(201);
    const day = await expectTied('2026-01-07');
    expect(rowOf(day, w.va).items).toEqual([
      expect.objectContaining({ kind: 'HAND_TRANSFER_SIDE_NOT_SEEN', amount: -30_000, seenAt: null }),
    ]);
    expect(rowOf(day, w.qris).items).toEqual([]);

    await clockTo('2026-01-08T00:30:00+07:00');
    await sandbox().addTransaction({
      providerCode: 'WALLET-A',
      accountRef: w.va.phoneNumber,
      type: 'CREDIT',
      amount: 30_000,
      senderName: 'HAND-0107',
      reference: 'HAND-0107',
    });
    await synced(w.service, w.admin, w.va);
    const before = await expectTied('2026-01-07');
    expect(rowOf(before, w.va).items).toEqual([
      expect.objectContaining({ kind: 'HAND_TRANSFER_SIDE_NOT_SEEN', seenAt: '2026-01-07T17:30:00.000Z' }),
    ]);
    expect(rowOf(await expectTied('2026-01-08'), w.va).items).toEqual([]);
  });

  it("a hand transfer that takes a credit from suspense as its destination side: the suspense's transferred total", async () => {
    await clockTo('2026-01-08T10:00:00+07:00');
    const amount = 20_000;
    for (const [account, type] of [
      [w.qris, 'DEBIT'],
      [w.va, 'CREDIT'],
    ] as const) {
      await sandbox().addTransaction({
        providerCode: account.providerCode,
        accountRef: account.phoneNumber,
        type,
        amount,
        senderName: 'Pindah dana',
        description: 'HAND-0108',
      });
      await synced(w.service, w.admin, account);
    }
    const open = (await w.admin.session('GET', '/api/admin/gateway/suspense?status=OPEN')).json().data;
    expect(open).toContainEqual(expect.objectContaining({ amount, holdingAccountId: w.va.accountId }));
    await clockTo('2026-01-08T10:01:00+07:00');
    const recorded = await w.admin.session('POST', '/api/admin/gateway/holding-transfers', {
      fromAccountId: w.qris.accountId,
      toAccountId: w.va.accountId,
      amount,
      reference: 'HAND-0108',
    });
    expect(recorded.statusCode, recorded.body).toBe(201);
    const day = await expectTied('2026-01-08');
    expect(day.suspense).toMatchObject({ transferred: amount, open: 0 });
    expect(day.suspense.items).toContainEqual(expect.objectContaining({ amount, status: 'TRANSFERRED' }));
  });
});
