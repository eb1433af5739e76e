import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../src/db/pool.ts';
import { gatewayLedgerStream } from '../../src/domain/gateway-ledger.ts';
import type { AnyEvent } from '../../src/events/all.ts';
import { parseRecorded, type StoredEvent } from '../../src/events/event.ts';
import { gatewaySettlementsProjection } from '../../src/projections/gateway-settlements.ts';
import { rebuildProjection, verifyProjection } from '../../src/projections/runner.ts';
import { settlementWebhooksSaga } from '../../src/sagas/settlement-webhooks.ts';
import { caughtUp } from '../support/finance.ts';
import { approvedMerchant, holdingAccount, signedInAdmin } from '../support/gateway.ts';
import { createPayment, decodeQrPng, paymentBody, statusOf } from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { shortSchedule, startReceiver } from '../webhooks/support.ts';

// Which payments each settlement paid out (due and actual date), at the key surface, on the dashboard and in a webhook.

let service: TestService;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let merchant: Awaited<ReturnType<typeof approvedMerchant>>;
let other: Awaited<ReturnType<typeof approvedMerchant>>;
let holding = '';
const fridayPayments: { id: string; orderId: string }[] = [];
let mondayPayment = { id: '', orderId: '' };
/** Money that paid nothing, allocated by an admin to the merchant on Friday: settled with the payments. */
let allocated = { suspenseId: '', receivedAt: '' };

/** An instant given as WIB wall-clock time: WIB is UTC+7. */
const wib = (local: string) => new Date(`${local}+07:00`);

async function paidByQr(who: typeof merchant, amount: number) {
  const body = paymentBody('GATEWAY', { type: 'QRIS-DYNAMIC', amount });
  const created = await createPayment(who, body);
  const qr = await service.app.inject({ method: 'GET', url: `/pay/${created.id}/qris.png` });
  await sandboxOf(service).pay({ qris: (await decodeQrPng(qr.rawPayload)).payload!, amount: created.totalAmount });
  await service.paymentChecks.checkNow(holding);
  await eventually(async () => (await statusOf(who, created.id)).status === 'COMPLETED');
  await caughtUp(service);
  return { id: created.id, orderId: body.orderId as string };
}

/** The clock at `at`, one settlement run, everything caught up. */
async function settlementRunAt(at: Date) {
  service.clock.set(at);
  await caughtUp(service);
  await service.gatewaySettlement.tick();
  await caughtUp(service);
}

const settlementsOf = async (who: typeof merchant, search = '') => {
  const listed = await who.call('GET', `/api/v1/gateway/settlements${search}`);
  expect(listed.statusCode, listed.body).toBe(200);
  return listed.json() as { data: Settlement[]; pagination: { total: number } };
};
type ShownPayment = {
  type: string;
  paymentId: string | null;
  suspenseId: string | null;
  orderId: string | null;
  gross: number;
  fee: number;
  net: number;
  paidAt: string;
  dueDate: string;
  settledAt: string;
};
type Settlement = {
  id: string;
  dueDate: string;
  settledAt: string;
  paymentCount: number;
  gross: number;
  fee: number;
  net: number;
  payments: ShownPayment[];
};

/** The pending amounts beside the balance, each with the day it settles, as text. */
const dueItems = (html: string) =>
  [...html.matchAll(/<li data-due-date="([^"]+)">([\s\S]*?)<\/li>/g)].map(m => ({
    dueDate: m[1],
    text: m[2]!
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim(),
  }));

const settledHooks = () =>
  receiver.received.map(r => ({ headers: r.headers, body: JSON.parse(r.body) as { id: string; type: string } }));

beforeAll(async () => {
  // the first attempt of every delivery is refused: each webhook is sent again, under the same id
  receiver = await startReceiver(n => ({ status: n % 2 === 0 ? 503 : 200 }));
  service = await startTestService({ WEBHOOK_ALLOW_PRIVATE: 'true' }, { webhooks: shortSchedule });
  service.clock.set(wib('2026-01-09T10:00:00')); // a Friday
  const admin = await signedInAdmin(service);
  const wallet = await holdingAccount(service, admin, 'qris', 'WALLET-D');
  holding = wallet.accountId;
  merchant = await approvedMerchant(service, admin);
  other = await approvedMerchant(service, admin);
  const hook = await merchant.call('POST', '/api/v1/webhooks', { url: receiver.url, events: ['gateway.settled'] });
  expect(hook.statusCode, hook.body).toBe(200);
  fridayPayments.push(await paidByQr(merchant, 100_000), await paidByQr(merchant, 55_555));
  await paidByQr(other, 70_000);
  await sandboxOf(service).addTransaction({
    providerCode: 'WALLET-D',
    accountRef: wallet.phoneNumber,
    type: 'CREDIT',
    amount: 12_345,
    senderName: 'SALAH KIRIM',
  });
  await service.paymentChecks.checkNow(holding);
  const stray = await eventually(async () => {
    await caughtUp(service);
    const open = (await admin.session('GET', '/api/admin/gateway/suspense?status=OPEN')).json().data as {
      id: string;
      amount: number;
      receivedAt: string;
    }[];
    return open.find(i => i.amount === 12_345);
  });
  service.clock.advance(2 * 3_600_000); // allocated two hours after the money came in: paid at is when it came
  const given = await admin.session('POST', `/api/admin/gateway/suspense/${stray.id}/allocate`, {
    userId: merchant.id,
    note: 'salah kirim',
  });
  expect(given.statusCode, given.body).toBe(200);
  allocated = { suspenseId: stray.id, receivedAt: stray.receivedAt };
  await caughtUp(service);
}, 120_000);
afterAll(async () => {
  await service?.close();
  await receiver?.close();
});

describe('the settlement report', () => {
  it('shows the pending amount with the day it settles: Friday’s payments on Monday', async () => {
    const page = await merchant.session('GET', '/dashboard/gateway');
    expect(page.statusCode).toBe(200);
    const pending = (await merchant.call('GET', '/api/v1/gateway')).json().data.balance.pending as number;
    expect(pending).toBeGreaterThan(0);
    // one working day for both payments and the allocation, the whole pending amount beside it
    expect(dueItems(page.body)).toEqual([
      {
        dueDate: '2026-01-12',
        text: `Rp ${pending.toLocaleString('id-ID')} cair Senin, 12 Januari 2026 pukul 00.00 WIB (3 pembayaran)`,
      },
    ]);
  });

  it('settles Friday’s payments at 00:00 WIB on Monday, and lists each with its figures and dates', async () => {
    for (const at of ['2026-01-10T00:00:00', '2026-01-11T00:00:00', '2026-01-11T23:59:59.999']) {
      await settlementRunAt(wib(at));
      expect((await settlementsOf(merchant)).data, at).toEqual([]);
    }
    // a payment at 00:00 on Monday itself waits for Tuesday: the settlement leaves it out
    service.clock.set(wib('2026-01-12T00:00:00'));
    mondayPayment = await paidByQr(merchant, 20_000);
    await settlementRunAt(wib('2026-01-12T00:00:00'));

    const { data, pagination } = await settlementsOf(merchant);
    expect(pagination.total).toBe(1);
    const [settlement] = data;
    const monday = wib('2026-01-12T00:00:00').toISOString();
    // the figures as the statement booked each payment, the dates as the payment and the settlement have them
    type Booked = { type: string; paymentId?: string | null; gross: number; fee: number; net: number };
    const statement = (await merchant.call('GET', '/api/v1/gateway/transactions')).json().data as Booked[];
    const adjustment = statement.find(e => e.type === 'ADJUSTMENT')!;
    const expected: ShownPayment[] = await Promise.all(
      fridayPayments.map(async p => {
        const booked = statement.find(e => e.type === 'PAYMENT' && e.paymentId === p.id)!;
        const paidAt = (await statusOf(merchant, p.id)).paidAt as string;
        expect(paidAt.startsWith('2026-01-09T')).toBe(true);
        return {
          type: 'PAYMENT',
          paymentId: p.id,
          suspenseId: null,
          orderId: p.orderId,
          gross: booked.gross,
          fee: booked.fee,
          net: booked.net,
          paidAt,
          dueDate: '2026-01-12',
          settledAt: monday,
        };
      }),
    );
    // the allocated suspense credit: paid when the money came in, settled with Friday's payments
    expected.push({
      type: 'ADJUSTMENT',
      paymentId: null,
      suspenseId: allocated.suspenseId,
      orderId: null,
      gross: adjustment.gross,
      fee: adjustment.fee,
      net: adjustment.net,
      paidAt: allocated.receivedAt,
      dueDate: '2026-01-12',
      settledAt: monday,
    });
    expect(adjustment.net).toBe(12_345 - adjustment.fee);
    expect(settlement).toMatchObject({
      dueDate: '2026-01-12',
      cutoff: monday,
      settledAt: monday,
      paymentCount: 3,
      gross: expected.reduce((sum, p) => sum + p.gross, 0),
      fee: expected.reduce((sum, p) => sum + p.fee, 0),
      net: expected.reduce((sum, p) => sum + p.net, 0),
    });
    expect(settlement!.payments).toEqual(expect.arrayContaining(expected));
    expect(settlement!.payments).toHaveLength(3);
    // the net paid out is what moved from pending to settled; Monday's payment still pending
    const balance = (await merchant.call('GET', '/api/v1/gateway')).json().data.balance;
    expect(balance.settled).toBe(settlement!.net);
    expect(balance.pending).toBeGreaterThan(0);

    const detail = await merchant.call('GET', `/api/v1/gateway/settlements/${settlement!.id}`);
    expect(detail.statusCode, detail.body).toBe(200);
    expect(detail.json().data).toEqual(settlement);
    expect(detail.json().pagination).toMatchObject({ total: 3, page: 1, hasMore: false });
    const paged = await merchant.call('GET', `/api/v1/gateway/settlements/${settlement!.id}?limit=1&page=2`);
    expect(paged.json().data.payments).toEqual([settlement!.payments[1]]);
  });

  it('answers 404 for another merchant’s settlement and lists only the merchant’s own', async () => {
    const [mine] = (await settlementsOf(merchant)).data;
    const theirs = (await settlementsOf(other)).data;
    expect(theirs).toHaveLength(1);
    expect(theirs[0]!.id).not.toBe(mine!.id);
    const foreign = await other.call('GET', `/api/v1/gateway/settlements/${mine!.id}`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().code).toBe('SETTLEMENT_NOT_FOUND');
    const page = await other.session('GET', `/dashboard/gateway/settlements/${mine!.id}`);
    expect(page.statusCode).toBe(404);
    expect((await other.call('GET', '/api/v1/gateway/settlements/not-a-uuid')).statusCode).toBe(400);
    // from/to on the day it was settled (WIB)
    expect((await settlementsOf(merchant, '?from=2026-01-12&to=2026-01-12')).data).toHaveLength(1);
    expect((await settlementsOf(merchant, '?to=2026-01-11')).data).toHaveLength(0);
    expect((await merchant.call('GET', '/api/v1/gateway/settlements?from=2026-02-30')).statusCode).toBe(400);
  });

  it('sends gateway.settled once per settlement, under an id that stays the same on a retry', async () => {
    const [settlement] = (await settlementsOf(merchant)).data;
    // the first attempt refused, the second taken: two requests of one event
    const hooks = await eventually(async () => settledHooks().length >= 2 && settledHooks());
    expect(hooks.map(h => h.body.type)).toEqual(['gateway.settled', 'gateway.settled']);
    expect(hooks[0]!.headers['webhook-id']).toBe(hooks[0]!.body.id);
    expect(hooks[1]!.headers['webhook-id']).toBe(hooks[0]!.body.id);
    expect(hooks[1]!.body).toEqual(hooks[0]!.body);
    expect((hooks[0]!.body as unknown as { data: unknown }).data).toEqual(settlement);

    // the saga run again over the settlement (delivery is at least once) publishes nothing more
    const saga = settlementWebhooksSaga(service.deps);
    const settled = (await service.store.readStream(gatewayLedgerStream(merchant.id))).filter(
      e => e.type === 'BalanceSettled',
    );
    expect(settled).toHaveLength(1);
    await saga.handle(parseRecorded(settled[0]!) as StoredEvent<AnyEvent>);
    const published = await query(
      service.pool,
      'CountSettledWebhooks',
      `select 1 from webhook_events where owner_id = $1 and type = 'gateway.settled'`,
      [merchant.id],
    );
    expect(published.rowCount).toBe(1);

    // Monday's payment settles on Tuesday: a second settlement, a second event with an id of its own
    const monday = mondayPayment;
    const page = await merchant.session('GET', '/dashboard/gateway');
    expect(dueItems(page.body).map(i => i.dueDate)).toEqual(['2026-01-13']);
    await settlementRunAt(wib('2026-01-13T00:00:00'));
    const second = (await settlementsOf(merchant)).data[0]!;
    expect(second).toMatchObject({ dueDate: '2026-01-13', paymentCount: 1 });
    expect(second.payments[0]).toMatchObject({ paymentId: monday.id, orderId: monday.orderId });
    const all = await eventually(async () => settledHooks().length >= 4 && settledHooks());
    expect(new Set(all.map(h => h.body.id)).size).toBe(2);
  });

  it('shows each settlement with its payments on the dashboard', async () => {
    const [latest, first] = (await settlementsOf(merchant)).data;
    const list = await merchant.session('GET', '/dashboard/gateway/settlements');
    expect(list.statusCode).toBe(200);
    for (const s of [latest!, first!]) {
      expect(list.body).toContain(`data-settlement-id="${s.id}"`);
      for (const p of s.payments) expect(list.body).toContain(`data-payment-id="${p.paymentId ?? p.suspenseId}"`);
    }
    expect(list.body).toContain('Senin, 12 Januari 2026');
    const detail = await merchant.session('GET', `/dashboard/gateway/settlements/${first!.id}`);
    expect(detail.statusCode).toBe(200);
    for (const p of first!.payments) expect(detail.body).toContain(`data-payment-id="${p.paymentId ?? p.suspenseId}"`);
    expect(detail.body).toContain(fridayPayments[0]!.orderId);
    expect((await merchant.session('GET', '/dashboard/gateway/settlements/nope')).statusCode).toBe(404);
    const gateway = await merchant.session('GET', '/dashboard/gateway');
    expect(dueItems(gateway.body)).toEqual([]); // nothing pending any more
  });

  it('rebuilds the same rows from history', async () => {
    const snapshot = async () => {
      const rows: Record<string, unknown[]> = {};
      for (const table of gatewaySettlementsProjection.tables)
        rows[table] = (await query(service.pool, 'SnapshotTable', `select * from ${table} t order by t::text`)).rows;
      return rows;
    };
    const before = await snapshot();
    expect(before.gateway_settlements).toHaveLength(3);
    expect(before.gateway_settlement_credits).toHaveLength(5);
    expect(await verifyProjection(service, gatewaySettlementsProjection)).toEqual([]);
    await rebuildProjection(service, gatewaySettlementsProjection);
    expect(await snapshot()).toEqual(before);
  });
});
