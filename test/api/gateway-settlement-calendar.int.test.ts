import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../src/db/pool.ts';
import { approvedMerchant, holdingAccount, signedInAdmin, signedInAdminBrowser } from '../support/gateway.ts';
import { textOf } from '../support/pages.ts';
import { decodeQrPng, paymentBody, statusOf } from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

// Settlement across New Year 2026-2027 with no 2027 decree: Tahun Baru still holds, and the entry says so.
let service: TestService;
let merchant: Awaited<ReturnType<typeof approvedMerchant>>;
let paymentId = '';

const caughtUp = async () => service.projections.waitFor(await service.store.headPosition(), 10_000);
/** An instant given as WIB wall-clock time: WIB is UTC+7. */
const wib = (local: string) => new Date(`${local}+07:00`);

const balance = async () => {
  const response = await merchant.call('GET', '/api/v1/gateway');
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data.balance as { pending: number; settled: number };
};

/** The clock at `at`, then one settlement run, then the read models caught up. */
const settlementRunAt = async (at: Date) => {
  service.clock.set(at);
  await caughtUp();
  await service.gatewaySettlement.tick();
  await caughtUp();
};

beforeAll(async () => {
  service = await startTestService();
  service.clock.set(wib('2026-12-31T12:00:00')); // Thursday, New Year's Eve
  const admin = await signedInAdmin(service);
  await holdingAccount(service, admin, 'qris', 'WALLET-D');
  merchant = await approvedMerchant(service, admin);

  // a QRIS gateway payment paid by the buyer into the holding account, completed and credited on 31 December
  const created = await merchant.call(
    'POST',
    '/api/v1/payments',
    paymentBody('GATEWAY', { type: 'QRIS-DYNAMIC', amount: 100_000 }),
  );
  expect(created.statusCode, created.body).toBe(200);
  const data = created.json().data;
  paymentId = data.id;
  await statusOf(merchant, data.id);
  const qr = await service.app.inject({ method: 'GET', url: `/pay/${data.id}/qris.png` });
  await sandboxOf(service).pay({ qris: (await decodeQrPng(qr.rawPayload)).payload!, amount: data.totalAmount });
  const row = (
    await query<{ receiving_account_id: string }>(
      service.pool,
      'FindReceiving',
      'select receiving_account_id from payments where id = $1',
      [data.id],
    )
  ).rows[0]!;
  await service.paymentChecks.checkNow(row.receiving_account_id);
  await eventually(async () => (await statusOf(merchant, data.id)).status === 'COMPLETED');
  await eventually(async () => {
    await caughtUp();
    return (await balance()).pending > 0;
  });
}, 120_000);
afterAll(async () => service?.close());

describe('a gateway payment completed on 31 December 2026, with no 2027 decree', () => {
  it('settles at 00:00 WIB on Monday 4 January 2027, not on Tahun Baru, and its BalanceSettled says the 2027 decree was missing', async () => {
    const owed = (await balance()).pending;
    // Tahun Baru (Fri 1 Jan) is a holiday every year, and 2-3 January are a weekend: nothing settles before Monday
    for (const at of [
      '2027-01-01T00:00:00',
      '2027-01-01T12:00:00',
      '2027-01-02T00:00:00',
      '2027-01-03T00:00:00',
      '2027-01-03T23:59:59.999',
    ]) {
      await settlementRunAt(wib(at));
      expect(await balance(), at).toMatchObject({ pending: owed, settled: 0 });
    }
    await settlementRunAt(wib('2027-01-04T00:00:00'));
    expect(await balance()).toMatchObject({ pending: 0, settled: owed });

    const settled = await query<{ data: string }>(
      service.pool,
      'ReadBalanceSettled',
      `select data::text as data from es_events where stream_id = $1 and type = 'BalanceSettled'`,
      [`gateway-${merchant.id}`],
    );
    expect(settled.rows).toHaveLength(1);
    expect(JSON.parse(settled.rows[0]!.data)).toMatchObject({
      paymentIds: [paymentId],
      amount: owed,
      cutoff: wib('2027-01-04T00:00:00').toISOString(),
      settledAt: wib('2027-01-04T00:00:00').toISOString(),
      calendarMissingYears: [2027],
    });
  });

  it("warns in the reconciliation of a period whose settlements counted 2027 without its decree, and on the admin's report page", async () => {
    const admin = await signedInAdmin(service); // a session of today: the one of 31 December has expired
    const reportOf = async (from: string, to: string) => {
      const response = await admin.session('GET', `/api/admin/gateway/reconciliation?from=${from}&to=${to}`);
      expect(response.statusCode, response.body).toBe(200);
      return response.json().data as { holidayCalendar: { missingYears: number[]; warning: string | null } };
    };
    expect((await reportOf('2027-01-01', '2027-01-04')).holidayCalendar).toEqual({
      missingYears: [2027],
      warning: 'no holiday decree for 2027: settlement into it counts weekends and the every-year holidays only',
    });
    // no settlement in these days (the run at 00:00 WIB on 4 January is after them): nothing counted without a decree
    expect((await reportOf('2027-01-01', '2027-01-02')).holidayCalendar).toEqual({ missingYears: [], warning: null });
    expect((await reportOf('2026-12-01', '2026-12-31')).holidayCalendar).toEqual({ missingYears: [], warning: null });

    const { browser } = await signedInAdminBrowser(service);
    const page = await browser.get('/admin/reconciliation?from=2027-01-01&to=2027-01-04');
    expect(textOf(page.body, 'reconciliation-calendar-warning')).toContain('menghitung 2027 tanpa kalender (SKB)');
    const quiet = await browser.get('/admin/reconciliation?from=2027-01-01&to=2027-01-02');
    expect(quiet.body).not.toContain('reconciliation-calendar-warning');
  });
});
