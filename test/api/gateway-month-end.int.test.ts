import { describe, expect, it } from 'vitest';
import { reportHash } from '../../src/audit/gateway-closed-periods.ts';
import {
  billOf,
  caughtUp,
  synced,
  walletASignedInAgain,
  type PlatformAccount,
  clockTo as movedClock,
} from '../support/finance.ts';
import {
  createdPayment,
  expectDayTied,
  markedWallets,
  monthEndWorld,
  paidBill,
  paidPayment,
  reportOf,
  requestedWithdrawal,
  rowOf,
} from '../support/month-end.ts';
import { sandboxOf } from '../support/sandbox.ts';

/**
 * October 2026 closed as finance would, through HTTP with the test clock (WIB; no holiday from 17 August to
 * 24 December, so every settlement below falls on the next calendar working day):
 * - Thu 1 Oct 08:00: a QRIS wallet (WALLET-D) and a WALLET-A account, each holding the sandbox's money, are marked as
 *   the platform's holding accounts, which books their opening balances;
 * - Tue 13 Oct: a virtual-account and a QRIS payment; Wed 14 Oct 23:59:40 a QRIS payment paid while its provider is
 *   down, seen Thu 00:02; settled at Thursday's cutoff; Thu 15 Oct a stray credit left in suspense;
 * - Fri 16 Oct: a payout through WALLET-A (/pay), and one paid by hand from the QRIS wallet (/paid names it);
 * - Tue 20 Oct: a hand transfer from the QRIS wallet to WALLET-A, both sides' mutations seen;
 * - Sat 31 Oct 23:59:30: a QRIS payment paid while its provider is down, seen Sun 1 Nov 00:03 (October's);
 *   23:59:50: a virtual-account payment while WALLET-A is down, seen only after October closed at 00:05: a prior-period
 *   item of November.
 * Every day of October ties to the providers and balances, before the close and after the late posting; the closed
 * report never changes; November lists the late payment and opens with October's closing.
 */
const w = monthEndWorld('2026-10-01T08:00:00+07:00');
const sandbox = () => sandboxOf(w.service);
const october = '/api/admin/gateway/reconciliation?from=2026-10-01&to=2026-10-31';
const octoberDays = Array.from({ length: 31 }, (_, i) => `2026-10-${String(i + 1).padStart(2, '0')}`);

const clockTo = (at: string) => movedClock(w.service, at, { settle: true });

/** Every day of October: both holding accounts tied to their providers, nothing unexplained, the trial balance balanced. */
async function expectEveryDayTied() {
  for (const day of octoberDays) await expectDayTied(w, day);
}

/** The provider of `account` down: a refresh fails, nothing is synchronised. */
async function providerDown(account: PlatformAccount) {
  await sandbox().faults({ providerCode: account.providerCode, outage: true });
  const refused = await w.admin.call('GET', `/api/v1/accounts/${account.accountId}/refresh`);
  expect(refused.statusCode).not.toBe(200);
}

async function providerBack() {
  await sandbox().clearFaults();
  await new Promise(resolve => setTimeout(resolve, 100)); // the connector's circuit half-opens after 50 ms
}

const paymentStatus = async (id: string) =>
  ((await w.merchant.call('GET', `/api/v1/payments/status/${id}`)).json().data as { status: string }).status;

let latePayment = '';
let frozenBody = '';
let frozen: Awaited<ReturnType<typeof reportOf>>;

describe('a month-end close', () => {
  it('October: openings, payments across midnight with the provider down, suspense, two payouts, a hand transfer', async () => {
    await markedWallets(w);
    const openings = (await w.admin.session('GET', '/api/admin/gateway/ledger-adjustments')).json().data as {
      kind: string;
      amount: number;
    }[];
    expect(openings.map(o => o.kind)).toEqual(['OPENING', 'OPENING']);
    expect(openings.every(o => o.amount >= 1_000_000)).toBe(true); // the sandbox seeds each wallet with 1,000,000 and more

    await clockTo('2026-10-13T10:00:00+07:00');
    await walletASignedInAgain(w.service, w.admin, w.va);
    await paidPayment(w, 'VA-BANK1', 200_000);
    await paidPayment(w, 'QRIS-DYNAMIC', 150_000);

    // Wed 14 Oct 23:59:40, the wallet's provider down until Thursday 00:02
    await clockTo('2026-10-14T23:59:20+07:00');
    const wednesday = await createdPayment(w, 'QRIS-DYNAMIC', 100_000);
    await clockTo('2026-10-14T23:59:40+07:00');
    await paidBill(w, wednesday);
    await providerDown(w.qris);
    await clockTo('2026-10-15T00:02:00+07:00');
    await providerBack();
    await synced(w.service, w.admin, w.qris);
    expect(await paymentStatus(wednesday)).toBe('COMPLETED');
    const [entry] = (await w.merchant.call('GET', '/api/v1/gateway/transactions?limit=1')).json().data;
    expect(entry).toMatchObject({ type: 'PAYMENT', at: '2026-10-14T16:59:40.000Z' });
    await clockTo('2026-10-15T00:02:30+07:00');
    await w.service.gatewaySettlement.tick();
    await caughtUp(w.service);
    const { balance } = (await w.merchant.call('GET', '/api/v1/gateway')).json().data;
    expect(balance.pending).toBe(0); // Wednesday's payment settled at Thursday's cutoff, the day after it was paid

    await clockTo('2026-10-15T10:00:00+07:00');
    await sandbox().addTransaction({
      providerCode: 'WALLET-D',
      accountRef: w.qris.phoneNumber,
      type: 'CREDIT',
      amount: 25_000,
      senderName: 'SALAH KIRIM',
    });
    await synced(w.service, w.admin, w.qris);
    const open = (await w.admin.session('GET', '/api/admin/gateway/suspense?status=OPEN')).json().data;
    expect(open).toMatchObject([{ amount: 25_000 }]);

    // Fri 16 Oct: a payout through WALLET-A, and one the w.admin paid by hand from the QRIS wallet
    await clockTo('2026-10-16T09:00:00+07:00');
    await walletASignedInAgain(w.service, w.admin, w.va);
    const throughWalletA = await requestedWithdrawal(w, 100_000);
    const paid = await w.admin.session('POST', `/api/admin/gateway/withdrawals/${throughWalletA}/pay`, {
      holdingAccountId: w.va.accountId,
    });
    expect(paid.statusCode, paid.body).toBe(200);
    await synced(w.service, w.admin, w.va);
    const byHand = await requestedWithdrawal(w, 60_000);
    await clockTo('2026-10-16T11:00:00+07:00');
    await sandbox().addTransaction({
      providerCode: 'WALLET-D',
      accountRef: w.qris.phoneNumber,
      type: 'DEBIT',
      amount: 60_000,
      description: 'transfer ke BCA 1234567890',
    });
    await synced(w.service, w.admin, w.qris);
    await clockTo('2026-10-16T11:05:00+07:00');
    const recorded = await w.admin.session('POST', `/api/admin/gateway/withdrawals/${byHand}/paid`, {
      reference: 'BCA-TRF-1610',
      holdingAccountId: w.qris.accountId,
      transferredAt: '2026-10-16T11:00:00+07:00',
    });
    expect(recorded.statusCode, recorded.body).toBe(200);
    await caughtUp(w.service);
    const october16 = await reportOf(w, '2026-10-16');
    expect(october16.payouts.map(p => p.withdrawalId).sort()).toEqual([throughWalletA, byHand].sort());

    // Tue 20 Oct: 300,000 moved by hand from the QRIS wallet to WALLET-A, each side's mutation seen
    await clockTo('2026-10-20T10:00:00+07:00');
    await sandbox().addTransaction({
      providerCode: 'WALLET-D',
      accountRef: w.qris.phoneNumber,
      type: 'DEBIT',
      amount: 300_000,
      description: 'transfer ke WALLET-A',
    });
    await synced(w.service, w.admin, w.qris);
    await clockTo('2026-10-20T10:01:00+07:00');
    const moved = await w.admin.session('POST', '/api/admin/gateway/holding-transfers', {
      fromAccountId: w.qris.accountId,
      toAccountId: w.va.accountId,
      amount: 300_000,
      reference: 'HAND-2010',
    });
    expect(moved.statusCode, moved.body).toBe(201);
    await clockTo('2026-10-20T10:30:00+07:00');
    await sandbox().addTransaction({
      providerCode: 'WALLET-A',
      accountRef: w.va.phoneNumber,
      type: 'CREDIT',
      amount: 300_000,
      senderName: 'Pindah dana',
      description: 'dari WALLET-D',
    });
    await walletASignedInAgain(w.service, w.admin, w.va);
    await synced(w.service, w.admin, w.va);
    const transfers = (await w.admin.session('GET', '/api/admin/gateway/holding-transfers')).json().data;
    expect(transfers).toMatchObject([
      { reference: 'HAND-2010', debitMutationId: expect.any(String), creditMutationId: expect.any(String) },
    ]);
    expect((await w.admin.session('GET', '/api/admin/gateway/suspense?status=OPEN')).json().data).toHaveLength(1);

    // Sat 31 Oct: paid at 23:59:30 with the QRIS wallet's provider down, and at 23:59:50 into WALLET-A, down too
    await clockTo('2026-10-31T23:59:00+07:00');
    await walletASignedInAgain(w.service, w.admin, w.va); // a virtual account is offered only while WALLET-A is signed in
    const saturday = await createdPayment(w, 'QRIS-DYNAMIC', 50_000);
    latePayment = await createdPayment(w, 'VA-BANK1', 70_000);
    await clockTo('2026-10-31T23:59:30+07:00');
    await paidBill(w, saturday);
    await providerDown(w.qris);
    await clockTo('2026-10-31T23:59:50+07:00');
    await paidBill(w, latePayment);
    await providerDown(w.va);
    await clockTo('2026-11-01T00:03:00+07:00');
    await providerBack();
    await providerDown(w.va); // WALLET-A stays down
    await synced(w.service, w.admin, w.qris);
    expect(await paymentStatus(saturday)).toBe('COMPLETED');
    expect(await paymentStatus(latePayment)).toBe('PENDING');
  }, 300_000);

  it('every day of October ties to the providers and balances', async () => {
    await expectEveryDayTied();
    const month = await reportOf(w, '2026-10-01', '2026-10-31');
    expect(month).toMatchObject({ closed: null, balanced: true, holdingAccounts: { tied: true } });
  }, 120_000);

  it('October closes after its end; its report is stored and answered as it was', async () => {
    await clockTo('2026-11-01T00:05:00+07:00');
    const live = await reportOf(w, '2026-10-01', '2026-10-31');
    const done = await w.admin.session('POST', '/api/admin/gateway/periods/2026-10/close');
    expect(done.statusCode, done.body).toBe(201);
    const { reportHash: hash } = done.json().data as { reportHash: string };
    const response = await w.admin.session('GET', october);
    frozenBody = response.body;
    frozen = response.json().data;
    expect(frozen.closed).toMatchObject({ hash });
    const { closed: _, ...withoutClosed } = frozen;
    expect(reportHash(withoutClosed)).toBe(hash);
    const { closed: __, ...computed } = live;
    expect(withoutClosed).toEqual(computed);
  });

  it('a late posting into October goes to November as a prior-period item; October is unchanged, every day still ties', async () => {
    await clockTo('2026-11-01T00:10:00+07:00');
    await providerBack();
    await synced(w.service, w.admin, w.va);
    expect(await paymentStatus(latePayment)).toBe('COMPLETED');
    const { totalAmount } = await billOf(w.service, latePayment);

    const again = await w.admin.session('GET', october);
    expect(again.body).toBe(frozenBody);
    const { closed: _, ...withoutClosed } = again.json().data;
    expect(reportHash(withoutClosed)).toBe(frozen.closed!.hash);

    const next = await reportOf(w, '2026-11-01', '2026-11-30');
    expect(next.closed).toBeNull();
    expect(next.priorPeriod.items).toMatchObject([{ referenceId: latePayment, reportedOn: '2026-11-01' }]);
    expect(next.trialBalance.balanced).toBe(true);
    expect(next.holdingAccounts.tied).toBe(true);
    // November opens where October closed: every account of the trial balance, each holding account, each w.merchant
    const names = new Set([...frozen.trialBalance.accounts, ...next.trialBalance.accounts].map(a => a.account));
    for (const account of names) {
      const closed = frozen.trialBalance.accounts.find(a => a.account === account)?.closing ?? 0;
      expect(next.trialBalance.accounts.find(a => a.account === account)?.opening ?? 0, account).toBe(closed);
    }
    for (const account of [w.qris, w.va]) {
      expect(rowOf(next, account).opening, account.key).toBe(rowOf(frozen, account).closing);
      expect(rowOf(next, account).opening, account.key).toBe(rowOf(frozen, account).ledgerCash);
    }
    expect(rowOf(next, w.va).credited).toBe(totalAmount); // the late payment, in November's movements
    // now that both are synchronised, each account's cash in the ledger is what its provider holds
    for (const account of [w.qris, w.va]) {
      const held = (await sandbox().account(account.providerCode, account.phoneNumber)).balance;
      expect(rowOf(next, account), account.key).toMatchObject({ ledgerCash: held, providerBalance: held, items: [] });
    }
    const [octoberRow, novemberRow] = [frozen, next].map(r =>
      r.merchants.rows.find(m => m.merchantId === w.merchant.id)!,
    );
    expect(novemberRow!.opening).toEqual(octoberRow!.closing);
    expect(novemberRow!.movements.creditsGross).toBe(totalAmount);

    await expectEveryDayTied();
    // the late payment's money was at WALLET-A on 31 October: its day explains it as a credit not yet booked
    expect(rowOf(await reportOf(w, '2026-10-31'), w.va).items).toMatchObject([
      { kind: 'CREDIT_NOT_BOOKED', amount: totalAmount },
    ]);
  }, 120_000);
});
