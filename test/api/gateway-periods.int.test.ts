import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportHash } from '../../src/audit/gateway-closed-periods.ts';
import { gatewayPeriods, gatewayPeriodsStream } from '../../src/domain/gateway-periods.ts';
import { handleCommand } from '../../src/store/commands/handle.ts';
import { periodBalances } from '../../src/audit/gateway-period-balances.ts';
import { reconciliationPeriod, type GatewayReconciliation } from '../../src/audit/gateway-reconciliation.ts';
import { query } from '../../src/db/pool.ts';
import { closedMonthThrough } from '../../src/audit/ledger-fold-start.ts';
import { monthBounds } from '../../src/audit/ledger-periods.ts';
import {
  billOf,
  caughtUp,
  emptyHoldingAccounts,
  synced,
  type PlatformAccount,
  clockTo as movedClock,
} from '../support/finance.ts';
import { approvedMerchant, signedInAdmin, signedInAdminBrowser, type Admin } from '../support/gateway.ts';
import { paymentBody } from '../support/payments.ts';
import { sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * Closing November 2026 through HTTP with the test clock: a payment paid and a stray credit received at 23:59 WIB on
 * 30 November while the QRIS wallet was not synchronised, November closed on 1 December before they were seen; once
 * synchronised they are December's prior-period items and November's report stays the frozen one, byte for byte.
 */
let service: TestService;
let admin: Admin;
let accounts: { qris: PlatformAccount; va: PlatformAccount };
let merchant: Awaited<ReturnType<typeof approvedMerchant>>;

const november = '/api/admin/gateway/reconciliation?from=2026-11-01&to=2026-11-30';
const december = '/api/admin/gateway/reconciliation?from=2026-12-01&to=2026-12-31';
const lastDayOfNovember = '/api/admin/gateway/reconciliation?from=2026-11-30&to=2026-11-30';
/** The last day of November as reported once the month closed, before anything was recorded after the close. */
let lastDayClosed: Record<string, unknown>;

const clockTo = (at: string) => movedClock(service, at);

/** The stream's events (the audited log), as the auditors' route shows them. */
async function periodEvents(): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const r = await query<{ type: string; data: Record<string, unknown> }>(
    service.pool,
    'TestPeriodEvents',
    `select type, data from es_events where stream_id = 'gateway-periods' order by revision`,
  );
  return r.rows;
}

const reportOf = async (url: string) => {
  const response = await admin.session('GET', url);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data as Record<string, unknown> & {
    closed: { at: string; by: string; hash: string } | null;
    priorPeriod: { count: number; items: { referenceId: string; reportedOn: string; eventType: string }[] };
    trialBalance: { balanced: boolean; days: { day: string; postings: number }[] };
  };
};
const withoutClosed = ({ closed: _, ...report }: Record<string, unknown>) => report;

let paymentId = '';

/**
 * The event-log fold behind the merchants' and holding accounts' figures places the prior-period items as the trial
 * balance does: December's movements, not its opening; and the fold of each stream read (any other event store) agrees.
 */
async function expectFoldPlacesAsTrialBalance(december: GatewayReconciliation, latePayment: string) {
  const { totalAmount } = await billOf(service, latePayment);
  const account = december.trialBalance.accounts.find(a => a.account === `holding:${accounts.qris.accountId}`)!;
  const folded = december.holdingAccounts.accounts.find(h => h.accountId === accounts.qris.accountId)!;
  expect(folded).toMatchObject({
    opening: account.opening,
    credited: account.debits,
    paidOut: account.credits,
    closing: account.closing,
    consistent: true,
  });
  expect(folded.credited).toBe(totalAmount + 12_345);
  const row = december.merchants.rows.find(m => m.merchantId === merchant.id)!;
  expect(row).toMatchObject({ consistent: true, movements: { creditsGross: totalAmount } });
  const period = reconciliationPeriod('2026-12-01', '2026-12-31');
  const inSql = await periodBalances(service.deps, period);
  const elsewhere = Object.create(service.store, { kind: { value: 'eventstoredb' } }) as typeof service.store;
  expect(await periodBalances({ ...service.deps, store: elsewhere }, period)).toEqual(inSql);
}

beforeAll(async () => {
  service = await startTestService({ TEST_CLOCK: 'true', TEST_CLOCK_FORCE: 'true', REGISTER_LIMIT_PER_IP: '1000' });
  await clockTo('2026-11-20T03:00:00.000Z');
  admin = await signedInAdmin(service);
  accounts = await emptyHoldingAccounts(service, admin);
  merchant = await approvedMerchant(service, admin);
  // a payment of 20 November, seen the same day
  const early = await merchant.call(
    'POST',
    '/api/v1/payments',
    paymentBody('GATEWAY', { type: 'QRIS-DYNAMIC', amount: 50_000 }),
  );
  expect(early.statusCode, early.body).toBe(200);
  await caughtUp(service);
  await sandboxOf(service).pay({ qris: (await billOf(service, early.json().data.id)).qris! });
  await synced(service, admin, accounts.qris);
  // 30 November, 23:59 WIB: paid, and a stray credit, neither synchronised before midnight
  await clockTo('2026-11-30T16:50:00.000Z');
  const late = await merchant.call(
    'POST',
    '/api/v1/payments',
    paymentBody('GATEWAY', { type: 'QRIS-DYNAMIC', amount: 80_000 }),
  );
  expect(late.statusCode, late.body).toBe(200);
  paymentId = late.json().data.id;
  await caughtUp(service);
  await clockTo('2026-11-30T16:59:30.000Z');
  await sandboxOf(service).pay({ qris: (await billOf(service, paymentId)).qris! });
  await sandboxOf(service).addTransaction({
    providerCode: 'WALLET-D',
    accountRef: accounts.qris.phoneNumber,
    type: 'CREDIT',
    amount: 12_345,
    senderName: 'SALAH KIRIM',
  });
  await clockTo('2026-12-01T02:00:00.000Z');
  await caughtUp(service);
}, 180_000);
afterAll(async () => service?.close());

describe('closing a month', () => {
  let frozen: Awaited<ReturnType<typeof reportOf>>;

  it('is refused to anyone but an admin (403), and nothing is appended', async () => {
    const refused = await merchant.session('POST', '/api/admin/gateway/periods/2026-11/close');
    expect(refused.statusCode, refused.body).toBe(403);
    expect((await merchant.session('GET', '/api/admin/gateway/periods')).statusCode).toBe(403);
    expect(await periodEvents()).toEqual([]);
  });

  it('a month not yet over (WIB), or not a month, is refused and nothing is appended', async () => {
    const notEnded = await admin.session('POST', '/api/admin/gateway/periods/2026-12/close');
    expect(notEnded.statusCode, notEnded.body).toBe(409);
    expect(notEnded.json().code).toBe('PERIOD_NOT_ENDED');
    const notAMonth = await admin.session('POST', '/api/admin/gateway/periods/2026-13/close');
    expect(notAMonth.statusCode, notAMonth.body).toBe(400);
    expect(notAMonth.json().code).toBe('INVALID_PERIOD');
    expect(await periodEvents()).toEqual([]);
  });

  it('an ended month closes: its report stored, its hash in the audited log, and asked again it answers that', async () => {
    const live = await reportOf(november);
    expect(live.closed).toBeNull();
    const done = await admin.session('POST', '/api/admin/gateway/periods/2026-11/close');
    expect(done.statusCode, done.body).toBe(201);
    const closure = done.json().data;
    expect(closure).toMatchObject({ period: '2026-11', status: 'CLOSED', closedBy: admin.id, reopenedAt: null });
    const [event, ...more] = await periodEvents();
    expect(more).toEqual([]);
    expect(event!.type).toBe('GatewayPeriodClosed');
    expect(event!.data.reportHash).toBe(closure.reportHash);
    expect(reportHash(event!.data.report)).toBe(closure.reportHash);
    frozen = await reportOf(november);
    expect(frozen.closed).toEqual({ at: closure.closedAt, by: admin.id, hash: closure.reportHash });
    expect(reportHash(withoutClosed(frozen))).toBe(closure.reportHash);
    expect(withoutClosed(frozen)).toEqual(withoutClosed(live));
    const listed = await admin.session('GET', '/api/admin/gateway/periods');
    expect(listed.json().data).toEqual([closure]);
    lastDayClosed = await reportOf(lastDayOfNovember);
  });

  it("folds a period inside the closed month only as far as the month's close, and nothing else so", async () => {
    const { startsAt, endsAt } = monthBounds('2026-11');
    const closure = await query<{ through_commit: string; through_prepare: string }>(
      service.pool,
      'TestClosure',
      `select through_commit::text, through_prepare::text from gateway_period_closures where period = '2026-11'`,
    );
    const through = {
      commit: BigInt(closure.rows[0]!.through_commit),
      prepare: BigInt(closure.rows[0]!.through_prepare),
    };
    const lastDay = { startsAt: new Date(endsAt.getTime() - 86_400_000), endsAt };
    expect(await closedMonthThrough(service.pool, lastDay)).toEqual(through);
    expect(await closedMonthThrough(service.pool, { startsAt, endsAt })).toEqual(through);
    // reaching into December, or before November: the whole log may place an entry there
    const intoDecember = { startsAt: lastDay.startsAt, endsAt: new Date(endsAt.getTime() + 86_400_000) };
    expect(await closedMonthThrough(service.pool, intoDecember)).toBeUndefined();
    const fromOctober = { startsAt: new Date(startsAt.getTime() - 86_400_000), endsAt: lastDay.endsAt };
    expect(await closedMonthThrough(service.pool, fromOctober)).toBeUndefined();
  });

  it('twice is refused (409) and nothing is appended', async () => {
    const again = await admin.session('POST', '/api/admin/gateway/periods/2026-11/close');
    expect(again.statusCode, again.body).toBe(409);
    expect(again.json().code).toBe('PERIOD_ALREADY_CLOSED');
    expect(await periodEvents()).toHaveLength(1);
  });

  it("a late posting goes into the next open month as a prior-period item, the closed month's report unchanged", async () => {
    const csv = async () => (await admin.session('GET', november.replace('?', '.csv?') + '&table=suspense')).body;
    const frozenCsv = await csv();
    await synced(service, admin, accounts.qris);
    const paid = (await merchant.call('GET', `/api/v1/payments/status/${paymentId}`)).json().data;
    expect(paid.status).toBe('COMPLETED');
    const suspense = await query<{ id: string }>(
      service.pool,
      'TestStray',
      'select id::text from gateway_suspense where amount = 12345',
    );
    expect(suspense.rows).toHaveLength(1);
    const after = await admin.session('GET', november);
    expect(after.json().data.closed.hash).toBe(frozen.closed!.hash);
    expect(reportHash(withoutClosed(after.json().data))).toBe(frozen.closed!.hash);
    expect(after.body).toBe(JSON.stringify({ status: 'success', data: frozen }));
    expect(await csv()).toBe(frozenCsv);
    expect(frozenCsv).toContain('suspenseId');
    const next = await reportOf(december);
    expect(next.closed).toBeNull();
    const references = next.priorPeriod.items.map(i => i.referenceId);
    // the payment paid at 23:59 (its effective time the provider's) and the stray credit received then
    expect(references).toContain(paymentId);
    expect(references).toContain(suspense.rows[0]!.id);
    expect(next.priorPeriod.items.every(i => i.reportedOn === '2026-12-01')).toBe(true);
    // on the day it is reported on, in the days' totals: the trial balance still balances
    expect(next.trialBalance.balanced).toBe(true);
    expect(next.trialBalance.days.find(d => d.day === '2026-12-01')!.postings).toBeGreaterThan(0);
    await expectFoldPlacesAsTrialBalance(next as unknown as GatewayReconciliation, paymentId);
    // a day of the closed month, folded only as far as the close, folds as it did when the month closed (its tie to
    // the provider moves on: the wallet's mutations are synchronised since)
    const folded = ({ merchants, holdingAccounts }: Record<string, unknown>) => ({
      merchants,
      holdingAccounts: (holdingAccounts as GatewayReconciliation['holdingAccounts']).accounts.map(
        ({ accountId, opening, credited, paidOut, closing, consistent }) => ({
          accountId,
          opening,
          credited,
          paidOut,
          closing,
          consistent,
        }),
      ),
    });
    expect(folded(await reportOf(lastDayOfNovember))).toEqual(folded(lastDayClosed));
  });

  it('reopening needs a reason, is recorded, and the report is live again', async () => {
    const blank = await admin.session('POST', '/api/admin/gateway/periods/2026-11/reopen', { reason: ' ' });
    expect(blank.statusCode, blank.body).toBe(400);
    const earlier = await admin.session('POST', '/api/admin/gateway/periods/2026-10/reopen', { reason: 'salah' });
    expect(earlier.statusCode, earlier.body).toBe(409);
    expect(await periodEvents()).toHaveLength(1);
    const reopened = await admin.session('POST', '/api/admin/gateway/periods/2026-11/reopen', {
      reason: 'Mutasi 30 November terlambat',
    });
    expect(reopened.statusCode, reopened.body).toBe(200);
    expect(reopened.json().data).toMatchObject({
      status: 'REOPENED',
      reopenedBy: admin.id,
      reason: 'Mutasi 30 November terlambat',
    });
    const events = await periodEvents();
    expect(events.map(e => e.type)).toEqual(['GatewayPeriodClosed', 'GatewayPeriodReopened']);
    expect(events[1]!.data).toMatchObject({
      period: '2026-11',
      reason: 'Mutasi 30 November terlambat',
      reopenedBy: admin.id,
    });
    expect((await reportOf(november)).closed).toBeNull();
    expect(await closedMonthThrough(service.pool, monthBounds('2026-11'))).toBeUndefined();
  });
});

describe('the console', () => {
  it('closes an ended month with its button, shows it closed with its hash, and reopens it with a reason', async () => {
    const { browser } = await signedInAdminBrowser(service);
    const page = await browser.get('/admin/reconciliation?from=2026-11-01&to=2026-11-30');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Tutup periode');
    const bare = await browser.postBare('/admin/reconciliation/periods/2026-11/close');
    expect(bare.statusCode).toBe(403);
    const closed = await browser.post('/admin/reconciliation/periods/2026-11/close');
    expect(closed.statusCode, closed.body).toBe(303);
    const shown = await browser.get(closed.headers.location as string);
    expect(shown.body).toContain('Periode ditutup; laporannya dibekukan.');
    const hash = (await periodEvents()).at(-1)!.data.reportHash as string;
    expect(shown.body).toContain(hash);
    expect(shown.body).toContain('Buka kembali periode');
    const december = await browser.get('/admin/reconciliation?from=2026-12-01&to=2026-12-31');
    expect(december.body).toContain('Bulan 2026-12 belum berakhir');
    expect(december.body).toContain('Pos periode sebelumnya');
    const blank = await browser.post('/admin/reconciliation/periods/2026-11/reopen', { reason: '' });
    expect(blank.statusCode).toBe(400);
    const reopened = await browser.post('/admin/reconciliation/periods/2026-11/reopen', { reason: 'Koreksi' });
    expect(reopened.statusCode, reopened.body).toBe(303);
    expect((await periodEvents()).map(e => e.type)).toEqual([
      'GatewayPeriodClosed',
      'GatewayPeriodReopened',
      'GatewayPeriodClosed',
      'GatewayPeriodReopened',
    ]);
  });
});

describe('a month frozen before the suspense counted what hand transfers took', () => {
  it('is answered as it was stored, without that total, and its CSV too', async () => {
    const live = await reportOf(november);
    expect(live.closed).toBeNull(); // reopened by the console above
    const { transferred, ...suspense } = (live as unknown as GatewayReconciliation).suspense;
    expect(transferred).toBe(0);
    // the report as a close stored it before `transferred` was counted
    const report = { ...withoutClosed(live), suspense };
    const now = service.clock.now();
    await handleCommand(
      service.deps,
      gatewayPeriodsStream,
      gatewayPeriods,
      {
        type: 'ClosePeriod',
        period: '2026-11',
        report,
        reportHash: reportHash(report),
        through: { commit: '0', prepare: '0' },
        closedBy: admin.id,
        now,
      },
      { actor: `admin:${admin.id}`, now },
    );
    await caughtUp(service);
    const answered = await reportOf(november);
    expect(answered.closed).toMatchObject({ hash: reportHash(report) });
    expect(withoutClosed(answered)).toEqual(report);
    expect(answered.suspense).not.toHaveProperty('transferred');
    const csv = await admin.session('GET', november.replace('?', '.csv?') + '&table=suspense');
    expect(csv.statusCode, csv.body).toBe(200);
  });
});
