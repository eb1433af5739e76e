import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayReconciliation } from '../../src/audit/gateway-reconciliation.ts';
import {
  billOf,
  caughtUp,
  emptyHoldingAccounts,
  synced,
  walletASignedInAgain,
  type PlatformAccount,
  clockTo as movedClock,
} from '../support/finance.ts';
import { approvedMerchant, signedInAdmin, type Admin } from '../support/gateway.ts';
import { paymentBody } from '../support/payments.ts';
import { sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * Money booked when it moved, over HTTP with the test clock (WIB): a QRIS payment paid at 23:59:40 on Thursday
 * 30 July 2026 while the wallet's provider is down, seen at 00:02 on Friday, settles at Friday's cutoff; one paid at
 * 23:59:32 on Friday 31 July, seen on Saturday, is July's and Friday's, and settles on Monday 3 August; a payout
 * recorded after midnight with the time its transfer left is the day before's. A stray credit of 77,777 stays open in
 * every later report with its age.
 */
let service: TestService;
let admin: Admin;
let accounts: { qris: PlatformAccount; va: PlatformAccount };
let merchant: Awaited<ReturnType<typeof approvedMerchant>>;
const sandbox = () => sandboxOf(service);

beforeAll(async () => {
  service = await startTestService({ TEST_CLOCK: 'true', TEST_CLOCK_FORCE: 'true', REGISTER_LIMIT_PER_IP: '1000' });
  await clockTo('2026-07-30T08:00:00+07:00');
  admin = await signedInAdmin(service);
  accounts = await emptyHoldingAccounts(service, admin);
  merchant = await approvedMerchant(service, admin);
}, 120_000);
afterAll(async () => service?.close());

const clockTo = (at: string) => movedClock(service, at);

/** A QRIS payment paid by its customer at `paidAt`, its wallet's provider down until `seenAt`, synchronised then. */
async function paidWhileDown(amount: number, paidAt: string, seenAt: string) {
  await clockTo(new Date(Date.parse(paidAt) - 20_000).toISOString());
  const created = await merchant.call(
    'POST',
    '/api/v1/payments',
    paymentBody('GATEWAY', { type: 'QRIS-DYNAMIC', amount }),
  );
  expect(created.statusCode, created.body).toBe(200);
  const { id } = created.json().data as { id: string };
  await caughtUp(service);
  const bill = await billOf(service, id);
  await clockTo(paidAt);
  await sandbox().pay({ qris: bill.qris! });
  await sandbox().faults({ providerCode: 'WALLET-D', outage: true });
  const refused = await admin.call('GET', `/api/v1/accounts/${accounts.qris.accountId}/refresh`);
  expect(refused.statusCode).not.toBe(200);
  await clockTo(seenAt);
  await sandbox().clearFaults();
  await new Promise(resolve => setTimeout(resolve, 100)); // the connector's circuit half-opens after 50 ms
  await synced(service, admin, accounts.qris);
  const shown = (await merchant.call('GET', `/api/v1/payments/status/${id}`)).json().data;
  expect(shown).toMatchObject({ status: 'COMPLETED' });
  return { id, ...bill };
}

const report = async (from: string, to: string): Promise<GatewayReconciliation> => {
  const r = await admin.session('GET', `/api/admin/gateway/reconciliation?from=${from}&to=${to}`);
  expect(r.statusCode, r.body).toBe(200);
  return r.json().data;
};
const balance = async () => (await merchant.call('GET', '/api/v1/gateway')).json().data.balance;
const settle = async (at: string) => {
  await clockTo(at);
  await caughtUp(service);
  await service.gatewaySettlement.tick();
  await caughtUp(service);
};

let thursday: Awaited<ReturnType<typeof paidWhileDown>>;
let friday: Awaited<ReturnType<typeof paidWhileDown>>;

describe('money booked when it moved', () => {
  it('a stray credit on Thursday morning goes to suspense', async () => {
    await clockTo('2026-07-30T10:00:00+07:00');
    await sandbox().addTransaction({
      providerCode: 'WALLET-D',
      accountRef: accounts.qris.phoneNumber,
      type: 'CREDIT',
      amount: 77_777,
      senderName: 'SALAH KIRIM',
    });
    await synced(service, admin, accounts.qris);
    const open = (await admin.session('GET', '/api/admin/gateway/suspense?status=OPEN')).json().data;
    expect(open).toMatchObject([{ amount: 77_777 }]);
  });

  it("paid Thursday 23:59:40, seen Friday 00:02: booked on Thursday, settled at Friday's cutoff", async () => {
    thursday = await paidWhileDown(100_000, '2026-07-30T23:59:40+07:00', '2026-07-31T00:02:00+07:00');
    const [entry] = (await merchant.call('GET', '/api/v1/gateway/transactions?limit=1')).json().data;
    expect(entry).toMatchObject({ type: 'PAYMENT', at: '2026-07-30T16:59:40.000Z' });
    await settle('2026-07-31T00:02:30+07:00');
    // due at Friday's 00:00 (the day after Thursday), not Monday's
    expect(await balance()).toMatchObject({ pending: 0 });
    const settlements = (await merchant.call('GET', '/api/v1/gateway/settlements')).json().data;
    expect(settlements[0]).toMatchObject({ dueDate: '2026-07-31' });
    expect(settlements[0].payments[0]).toMatchObject({ paymentId: thursday.id, paidAt: '2026-07-30T16:59:40.000Z' });
  });

  it("paid Friday 31 July 23:59:32, seen Saturday: July's and Friday's, settled Monday 3 August at 00:00", async () => {
    friday = await paidWhileDown(50_000, '2026-07-31T23:59:32+07:00', '2026-08-01T00:05:00+07:00');
    const day = await report('2026-07-31', '2026-07-31');
    expect(day.holdingCredits.accounts).toContainEqual(
      expect.objectContaining({ accountId: accounts.qris.accountId, credited: friday.totalAmount, difference: 0 }),
    );
    expect(day.holdingCredits.problemCount).toBe(0);
    expect(day.trialBalance.days[0]).toMatchObject({ day: '2026-07-31', holding: friday.totalAmount });
    const row = day.merchants.rows.find(m => m.merchantId === merchant.id)!;
    expect(row).toMatchObject({ consistent: true, movements: { creditsGross: friday.totalAmount } });
    const saturday = await report('2026-08-01', '2026-08-01');
    expect(saturday.trialBalance.total).toMatchObject({ postings: 0, holding: 0 });
    expect(saturday.holdingCredits.accounts).toEqual([]);

    await settle('2026-08-01T00:05:30+07:00');
    // Saturday is no working day: Friday's payment waits for Monday's 00:00
    expect((await balance()).pending).toBe(await netOf(friday.id));
    await settle('2026-08-03T00:00:05+07:00');
    expect(await balance()).toMatchObject({ pending: 0 });
    const [latest] = (await merchant.call('GET', '/api/v1/gateway/settlements')).json().data;
    expect(latest).toMatchObject({ dueDate: '2026-08-03' });
    expect(latest.payments.map((p: { paymentId: string }) => p.paymentId)).toEqual([friday.id]);
  });

  it('a payout recorded after midnight with the time its transfer left is booked the day before', async () => {
    await clockTo('2026-08-03T10:00:00+07:00');
    await walletASignedInAgain(service, admin, accounts.va);
    const asked = await merchant.session('POST', '/api/dashboard/gateway/withdrawals', {
      amount: 50_000,
      bankCode: 'BCA',
      accountNumber: '1234567890',
      accountHolderName: 'Joko Wijaya',
    });
    expect(asked.statusCode, asked.body).toBe(201);
    const withdrawalId = asked.json().data.id as string;
    await clockTo('2026-08-04T00:10:00+07:00');
    const paid = (transferredAt: string) =>
      admin.session('POST', `/api/admin/gateway/withdrawals/${withdrawalId}/paid`, {
        reference: 'BCA-TRF-0308',
        holdingAccountId: accounts.qris.accountId,
        transferredAt,
      });
    const future = await paid('2026-08-04T00:11:00+07:00');
    expect(future.statusCode, future.body).toBe(400);
    const recorded = await paid('2026-08-03T23:50:00+07:00');
    expect(recorded.statusCode, recorded.body).toBe(200);
    await caughtUp(service);
    const [entry] = (await merchant.call('GET', '/api/v1/gateway/transactions?limit=1')).json().data;
    expect(entry).toMatchObject({ type: 'WITHDRAWAL_PAID', at: '2026-08-03T16:50:00.000Z' });
    const monday = await report('2026-08-03', '2026-08-03');
    expect(monday.payouts).toMatchObject([{ withdrawalId, amount: 50_000 }]);
    expect(monday.trialBalance.accounts).toContainEqual(
      expect.objectContaining({ account: `holding:${accounts.qris.accountId}`, credits: 50_000 }),
    );
    const tuesday = await report('2026-08-04', '2026-08-04');
    expect(tuesday.payouts).toEqual([]);
  });
});

/** The net a payment's credit booked, from the merchant's statement. */
async function netOf(paymentId: string): Promise<number> {
  const entries = (await merchant.call('GET', '/api/v1/gateway/transactions?limit=100')).json().data as {
    paymentId: string | null;
    net: number | null;
  }[];
  return entries.find(e => e.paymentId === paymentId)!.net!;
}

describe('carried balances and suspense ageing', () => {
  it("each account's July closing is its August opening, and August's its September's", async () => {
    const [july, august, september] = await Promise.all([
      report('2026-07-01', '2026-07-31'),
      report('2026-08-01', '2026-08-31'),
      report('2026-09-01', '2026-09-30'),
    ]);
    for (const [before, after] of [
      [july, august],
      [august, september],
    ] as const) {
      expect(before.trialBalance.balanced).toBe(true);
      const names = new Set([...before.trialBalance.accounts, ...after.trialBalance.accounts].map(a => a.account));
      for (const account of names) {
        const closed = before.trialBalance.accounts.find(a => a.account === account)?.closing ?? 0;
        const opened = after.trialBalance.accounts.find(a => a.account === account)?.opening ?? 0;
        expect(opened, account).toBe(closed);
      }
    }
    const qris = (r: GatewayReconciliation) =>
      r.trialBalance.accounts.find(a => a.account === `holding:${accounts.qris.accountId}`)!;
    expect(qris(july)).toMatchObject({
      opening: 0,
      debits: 77_777 + thursday.totalAmount + friday.totalAmount,
      credits: 0,
      closing: 77_777 + thursday.totalAmount + friday.totalAmount,
      consistent: true,
    });
    expect(qris(august)).toMatchObject({ opening: qris(july).closing, credits: 50_000 });
    // the fold of the event log places the entries as the read model does
    const folded = july.holdingAccounts.accounts.find(h => h.accountId === accounts.qris.accountId)!;
    expect(folded.closing).toBe(qris(july).closing);
    const suspense = (r: GatewayReconciliation) =>
      r.trialBalance.accounts.find(a => a.account === 'platform:suspense')!;
    expect(suspense(september)).toMatchObject({ opening: -77_777, closing: -77_777 });
    expect(september.trialBalance.kinds.find(k => k.kind === 'suspense')).toMatchObject({ closing: -77_777 });
  });

  it('the open 77,777 is in every later report with its age; ageing as at any day', async () => {
    const ageingAt = async (to: string) => (await report(to, to)).suspense.ageing;
    const cases: [string, number, string][] = [
      ['2026-07-30', 0, '0-7'],
      ['2026-08-06', 7, '0-7'],
      ['2026-08-07', 8, '8-30'],
      ['2026-08-29', 30, '8-30'],
      ['2026-08-30', 31, 'over-30'],
      ['2026-09-30', 62, 'over-30'],
    ];
    for (const [day, age, bucket] of cases) {
      const ageing = await ageingAt(day);
      expect(ageing.items, day).toMatchObject([{ amount: 77_777, ageDays: age, bucket }]);
      expect(
        ageing.buckets.find(b => b.bucket === bucket),
        day,
      ).toEqual({ bucket, items: 1, amount: 77_777 });
      expect(ageing.total).toEqual({ items: 1, amount: 77_777 });
    }
    // before it came, nothing was open
    expect((await ageingAt('2026-07-29')).items).toEqual([]);
    const september = await report('2026-09-01', '2026-09-30');
    expect(september.suspense.items).toEqual([]); // none received in September …
    expect(september.suspense.ageing.asOfDay).toBe('2026-09-30'); // … but the open one is aged as at its end

    const csv = await admin.session(
      'GET',
      '/api/admin/gateway/reconciliation.csv?from=2026-09-01&to=2026-09-30&table=suspense-ageing',
    );
    expect(csv.statusCode, csv.body).toBe(200);
    expect(
      csv.body
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\r\n'),
    ).toEqual([
      'asAt,bucket,items,amount',
      '2026-10-01T00:00:00+07:00,0-7,0,0',
      '2026-10-01T00:00:00+07:00,8-30,0,0',
      '2026-10-01T00:00:00+07:00,over-30,1,77777',
    ]);
    const open = await admin.session(
      'GET',
      '/api/admin/gateway/reconciliation.csv?from=2026-09-01&to=2026-09-30&table=suspense-open',
    );
    expect(open.body).toContain(',77777,SALAH KIRIM,,2026-07-30T10:00:00+07:00,62,over-30');

    const page = await admin.session('GET', '/admin/reconciliation?from=2026-09-01&to=2026-09-30');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('id="suspense-open"');
    expect(page.body).toMatch(/data-bucket="over-30">.*?77\.777/s);
    expect(page.body).toContain('62 hari');
    expect(page.body).toContain('id="carried-kinds"');
  });
});
