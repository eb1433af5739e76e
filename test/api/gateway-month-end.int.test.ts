import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportHash } from '../../src/audit/gateway-closed-periods.ts';
import type { HoldingAccountPeriod } from '../../src/audit/gateway-period-balances.ts';
import type { GatewayReconciliation } from '../../src/audit/gateway-reconciliation.ts';
import {
  billOf,
  caughtUp,
  synced,
  walletASignedInAgain,
  type PlatformAccount,
  clockTo as movedClock,
} from '../support/finance.ts';
import { approvedMerchant, signedInAdmin, type Admin } from '../support/gateway.ts';
import { linkServiceWallet, linkWalletA, paymentBody } from '../support/payments.ts';
import { sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

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
let service: TestService;
let admin: Admin;
let merchant: Awaited<ReturnType<typeof approvedMerchant>>;
let qris: PlatformAccount;
let va: PlatformAccount;
const sandbox = () => sandboxOf(service);
const bank = { bankCode: 'BCA', accountNumber: '1234567890', accountHolderName: 'Joko Wijaya' };
const october = '/api/admin/gateway/reconciliation?from=2026-10-01&to=2026-10-31';
const november = '/api/admin/gateway/reconciliation?from=2026-11-01&to=2026-11-30';
const octoberDays = Array.from({ length: 31 }, (_, i) => `2026-10-${String(i + 1).padStart(2, '0')}`);

beforeAll(async () => {
  service = await startTestService({ TEST_CLOCK: 'true', TEST_CLOCK_FORCE: 'true', REGISTER_LIMIT_PER_IP: '1000' });
  await clockTo('2026-10-01T08:00:00+07:00');
  admin = await signedInAdmin(service);
  merchant = await approvedMerchant(service, admin);
  qris = { key: 'qris', providerCode: 'WALLET-D', ...(await linkServiceWallet(admin, 'WALLET-D')) };
  va = { key: 'va', providerCode: 'WALLET-A', ...(await linkWalletA(service, admin)) };
}, 120_000);
afterAll(async () => service?.close());

const clockTo = (at: string) => movedClock(service, at, { settle: true });

async function report(url: string): Promise<GatewayReconciliation & { closed: { hash: string } | null }> {
  const response = await admin.session('GET', url);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
}
const dayReport = (day: string) => report(`/api/admin/gateway/reconciliation?from=${day}&to=${day}`);
const rowOf = (data: GatewayReconciliation, account: PlatformAccount): HoldingAccountPeriod =>
  data.holdingAccounts.accounts.find(h => h.accountId === account.accountId)!;

/** Every day of October: both holding accounts tied to their providers, nothing unexplained, the trial balance balanced. */
async function expectEveryDayTied() {
  for (const day of octoberDays) {
    const data = await dayReport(day);
    expect(data.trialBalance.balanced, day).toBe(true);
    expect(data.holdingAccounts.tied, day).toBe(true);
    for (const account of [qris, va]) {
      const row = rowOf(data, account);
      expect(row, `${day} ${account.key}`).toMatchObject({ tied: true, unexplained: 0, consistent: true });
      expect(row.closing, `${day} ${account.key}: the fold's closing is the ledger's cash`).toBe(row.ledgerCash);
    }
  }
}

/** A payment created and paid now, its account synchronised. */
async function paidPayment(type: 'QRIS-DYNAMIC' | 'VA-BANK1', amount: number) {
  const id = await created(type, amount);
  await payBill(id);
  await synced(service, admin, type === 'QRIS-DYNAMIC' ? qris : va);
  return id;
}

async function created(type: 'QRIS-DYNAMIC' | 'VA-BANK1', amount: number): Promise<string> {
  const response = await merchant.call('POST', '/api/v1/payments', paymentBody('GATEWAY', { type, amount }));
  expect(response.statusCode, response.body).toBe(200);
  await caughtUp(service);
  return response.json().data.id;
}

async function payBill(paymentId: string) {
  const bill = await billOf(service, paymentId);
  await (bill.qris
    ? sandbox().pay({ qris: bill.qris })
    : sandbox().pay({ vaNumber: bill.vaNumber!, amount: bill.totalAmount }));
}

/** The provider of `account` down: a refresh fails, nothing is synchronised. */
async function providerDown(account: PlatformAccount) {
  await sandbox().faults({ providerCode: account.providerCode, outage: true });
  const refused = await admin.call('GET', `/api/v1/accounts/${account.accountId}/refresh`);
  expect(refused.statusCode).not.toBe(200);
}

async function providerBack() {
  await sandbox().clearFaults();
  await new Promise(resolve => setTimeout(resolve, 100)); // the connector's circuit half-opens after 50 ms
}

const paymentStatus = async (id: string) =>
  ((await merchant.call('GET', `/api/v1/payments/status/${id}`)).json().data as { status: string }).status;

async function withdrawal(amount: number): Promise<string> {
  const asked = await merchant.session('POST', '/api/dashboard/gateway/withdrawals', { amount, ...bank });
  expect(asked.statusCode, asked.body).toBe(201);
  return asked.json().data.id;
}

let latePayment = '';
let frozenBody = '';
let frozen: Awaited<ReturnType<typeof report>>;

describe('a month-end close', () => {
  it('October: openings, payments across midnight with the provider down, suspense, two payouts, a hand transfer', async () => {
    for (const account of [qris, va]) {
      const marked = await admin.session('POST', '/api/admin/gateway/holding-accounts', {
        accountId: account.accountId,
      });
      expect(marked.statusCode, marked.body).toBe(201);
    }
    const chosen = await admin.session('POST', '/api/admin/gateway/payout-account', { accountId: va.accountId });
    expect(chosen.statusCode, chosen.body).toBe(200);
    const openings = (await admin.session('GET', '/api/admin/gateway/ledger-adjustments')).json().data as {
      kind: string;
      amount: number;
    }[];
    expect(openings.map(o => o.kind)).toEqual(['OPENING', 'OPENING']);
    expect(openings.every(o => o.amount >= 1_000_000)).toBe(true); // the sandbox seeds each wallet with 1,000,000 and more

    await clockTo('2026-10-13T10:00:00+07:00');
    await walletASignedInAgain(service, admin, va);
    await paidPayment('VA-BANK1', 200_000);
    await paidPayment('QRIS-DYNAMIC', 150_000);

    // Wed 14 Oct 23:59:40, the wallet's provider down until Thursday 00:02
    await clockTo('2026-10-14T23:59:20+07:00');
    const wednesday = await created('QRIS-DYNAMIC', 100_000);
    await clockTo('2026-10-14T23:59:40+07:00');
    await payBill(wednesday);
    await providerDown(qris);
    await clockTo('2026-10-15T00:02:00+07:00');
    await providerBack();
    await synced(service, admin, qris);
    expect(await paymentStatus(wednesday)).toBe('COMPLETED');
    const [entry] = (await merchant.call('GET', '/api/v1/gateway/transactions?limit=1')).json().data;
    expect(entry).toMatchObject({ type: 'PAYMENT', at: '2026-10-14T16:59:40.000Z' });
    await clockTo('2026-10-15T00:02:30+07:00');
    await service.gatewaySettlement.tick();
    await caughtUp(service);
    const { balance } = (await merchant.call('GET', '/api/v1/gateway')).json().data;
    expect(balance.pending).toBe(0); // Wednesday's payment settled at Thursday's cutoff, the day after it was paid

    await clockTo('2026-10-15T10:00:00+07:00');
    await sandbox().addTransaction({
      providerCode: 'WALLET-D',
      accountRef: qris.phoneNumber,
      type: 'CREDIT',
      amount: 25_000,
      senderName: 'SALAH KIRIM',
    });
    await synced(service, admin, qris);
    const open = (await admin.session('GET', '/api/admin/gateway/suspense?status=OPEN')).json().data;
    expect(open).toMatchObject([{ amount: 25_000 }]);

    // Fri 16 Oct: a payout through WALLET-A, and one the admin paid by hand from the QRIS wallet
    await clockTo('2026-10-16T09:00:00+07:00');
    await walletASignedInAgain(service, admin, va);
    const throughWalletA = await withdrawal(100_000);
    const paid = await admin.session('POST', `/api/admin/gateway/withdrawals/${throughWalletA}/pay`, {
      holdingAccountId: va.accountId,
    });
    expect(paid.statusCode, paid.body).toBe(200);
    await synced(service, admin, va);
    const byHand = await withdrawal(60_000);
    await clockTo('2026-10-16T11:00:00+07:00');
    await sandbox().addTransaction({
      providerCode: 'WALLET-D',
      accountRef: qris.phoneNumber,
      type: 'DEBIT',
      amount: 60_000,
      description: 'transfer ke BCA 1234567890',
    });
    await synced(service, admin, qris);
    await clockTo('2026-10-16T11:05:00+07:00');
    const recorded = await admin.session('POST', `/api/admin/gateway/withdrawals/${byHand}/paid`, {
      reference: 'BCA-TRF-1610',
      holdingAccountId: qris.accountId,
      transferredAt: '2026-10-16T11:00:00+07:00',
    });
    expect(recorded.statusCode, recorded.body).toBe(200);
    await caughtUp(service);
    const october16 = await dayReport('2026-10-16');
    expect(october16.payouts.map(p => p.withdrawalId).sort()).toEqual([throughWalletA, byHand].sort());

    // Tue 20 Oct: 300,000 moved by hand from the QRIS wallet to WALLET-A, each side's mutation seen
    await clockTo('2026-10-20T10:00:00+07:00');
    await sandbox().addTransaction({
      providerCode: 'WALLET-D',
      accountRef: qris.phoneNumber,
      type: 'DEBIT',
      amount: 300_000,
      description: 'transfer ke WALLET-A',
    });
    await synced(service, admin, qris);
    await clockTo('2026-10-20T10:01:00+07:00');
    const moved = await admin.session('POST', '/api/admin/gateway/holding-transfers', {
      fromAccountId: qris.accountId,
      toAccountId: va.accountId,
      amount: 300_000,
      reference: 'HAND-2010',
    });
    expect(moved.statusCode, moved.body).toBe(201);
    await clockTo('2026-10-20T10:30:00+07:00');
    await sandbox().addTransaction({
      providerCode: 'WALLET-A',
      accountRef: va.phoneNumber,
      type: 'CREDIT',
      amount: 300_000,
      senderName: 'Pindah dana',
      description: 'dari WALLET-D',
    });
    await walletASignedInAgain(service, admin, va);
    await synced(service, admin, va);
    const transfers = (await admin.session('GET', '/api/admin/gateway/holding-transfers')).json().data;
    expect(transfers).toMatchObject([
      { reference: 'HAND-2010', debitMutationId: expect.any(String), creditMutationId: expect.any(String) },
    ]);
    expect((await admin.session('GET', '/api/admin/gateway/suspense?status=OPEN')).json().data).toHaveLength(1);

    // Sat 31 Oct: paid at 23:59:30 with the QRIS wallet's provider down, and at 23:59:50 into WALLET-A, down too
    await clockTo('2026-10-31T23:59:00+07:00');
    await walletASignedInAgain(service, admin, va); // a virtual account is offered only while WALLET-A is signed in
    const saturday = await created('QRIS-DYNAMIC', 50_000);
    latePayment = await created('VA-BANK1', 70_000);
    await clockTo('2026-10-31T23:59:30+07:00');
    await payBill(saturday);
    await providerDown(qris);
    await clockTo('2026-10-31T23:59:50+07:00');
    await payBill(latePayment);
    await providerDown(va);
    await clockTo('2026-11-01T00:03:00+07:00');
    await providerBack();
    await providerDown(va); // WALLET-A stays down
    await synced(service, admin, qris);
    expect(await paymentStatus(saturday)).toBe('COMPLETED');
    expect(await paymentStatus(latePayment)).toBe('PENDING');
  }, 300_000);

  it('every day of October ties to the providers and balances', async () => {
    await expectEveryDayTied();
    const month = await report(october);
    expect(month).toMatchObject({ closed: null, balanced: true, holdingAccounts: { tied: true } });
  }, 120_000);

  it('October closes after its end; its report is stored and answered as it was', async () => {
    await clockTo('2026-11-01T00:05:00+07:00');
    const live = await report(october);
    const done = await admin.session('POST', '/api/admin/gateway/periods/2026-10/close');
    expect(done.statusCode, done.body).toBe(201);
    const { reportHash: hash } = done.json().data as { reportHash: string };
    const response = await admin.session('GET', october);
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
    await synced(service, admin, va);
    expect(await paymentStatus(latePayment)).toBe('COMPLETED');
    const { totalAmount } = await billOf(service, latePayment);

    const again = await admin.session('GET', october);
    expect(again.body).toBe(frozenBody);
    const { closed: _, ...withoutClosed } = again.json().data;
    expect(reportHash(withoutClosed)).toBe(frozen.closed!.hash);

    const next = await report(november);
    expect(next.closed).toBeNull();
    expect(next.priorPeriod.items).toMatchObject([{ referenceId: latePayment, reportedOn: '2026-11-01' }]);
    expect(next.trialBalance.balanced).toBe(true);
    expect(next.holdingAccounts.tied).toBe(true);
    // November opens where October closed: every account of the trial balance, each holding account, each merchant
    const names = new Set([...frozen.trialBalance.accounts, ...next.trialBalance.accounts].map(a => a.account));
    for (const account of names) {
      const closed = frozen.trialBalance.accounts.find(a => a.account === account)?.closing ?? 0;
      expect(next.trialBalance.accounts.find(a => a.account === account)?.opening ?? 0, account).toBe(closed);
    }
    for (const account of [qris, va]) {
      expect(rowOf(next, account).opening, account.key).toBe(rowOf(frozen, account).closing);
      expect(rowOf(next, account).opening, account.key).toBe(rowOf(frozen, account).ledgerCash);
    }
    expect(rowOf(next, va).credited).toBe(totalAmount); // the late payment, in November's movements
    // now that both are synchronised, each account's cash in the ledger is what its provider holds
    for (const account of [qris, va]) {
      const held = (await sandbox().account(account.providerCode, account.phoneNumber)).balance;
      expect(rowOf(next, account), account.key).toMatchObject({ ledgerCash: held, providerBalance: held, items: [] });
    }
    const [octoberRow, novemberRow] = [frozen, next].map(r =>
      r.merchants.rows.find(m => m.merchantId === merchant.id)!,
    );
    expect(novemberRow!.opening).toEqual(octoberRow!.closing);
    expect(novemberRow!.movements.creditsGross).toBe(totalAmount);

    await expectEveryDayTied();
    // the late payment's money was at WALLET-A on 31 October: its day explains it as a credit not yet booked
    expect(rowOf(await dayReport('2026-10-31'), va).items).toMatchObject([
      { kind: 'CREDIT_NOT_BOOKED', amount: totalAmount },
    ]);
  }, 120_000);
});
