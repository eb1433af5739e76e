import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../src/db/pool.ts';
import { gatewaySettlementsProjection } from '../../src/projections/gateway-settlements.ts';
import { rebuildProjection, verifyProjection } from '../../src/projections/runner.ts';
import { caughtUp } from '../support/finance.ts';
import { approvedMerchant, holdingAccount, signedInAdmin } from '../support/gateway.ts';
import { createPayment, decodeQrPng, paymentBody, statusOf } from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { shortSchedule, startReceiver } from '../webhooks/support.ts';

// A settlement run late after the settler was down: each payment it pays out keeps its own due date, in the API, on the
// dashboard and in the gateway.settled webhook, not the day the run caught up.

let service: TestService;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let merchant: Awaited<ReturnType<typeof approvedMerchant>>;
let holding = '';
let wednesday = '';
let thursday = '';

/** An instant given as WIB wall-clock time: WIB is UTC+7. */
const wib = (local: string) => new Date(`${local}+07:00`);

async function paidByQr(amount: number) {
  const created = await createPayment(merchant, paymentBody('GATEWAY', { type: 'QRIS-DYNAMIC', amount }));
  const qr = await service.app.inject({ method: 'GET', url: `/pay/${created.id}/qris.png` });
  await sandboxOf(service).pay({ qris: (await decodeQrPng(qr.rawPayload)).payload!, amount: created.totalAmount });
  await service.paymentChecks.checkNow(holding);
  await eventually(async () => (await statusOf(merchant, created.id)).status === 'COMPLETED');
  await caughtUp(service);
  return created.id as string;
}

type Settlement = { id: string; dueDate: string; payments: { paymentId: string; dueDate: string }[] };

beforeAll(async () => {
  receiver = await startReceiver();
  service = await startTestService({ WEBHOOK_ALLOW_PRIVATE: 'true' }, { webhooks: shortSchedule });
  service.clock.set(wib('2026-01-14T10:00:00')); // a Wednesday
  const admin = await signedInAdmin(service);
  holding = (await holdingAccount(service, admin, 'qris', 'WALLET-D')).accountId;
  merchant = await approvedMerchant(service, admin);
  const hook = await merchant.call('POST', '/api/v1/webhooks', { url: receiver.url, events: ['gateway.settled'] });
  expect(hook.statusCode, hook.body).toBe(200);
  wednesday = await paidByQr(100_000);
  service.clock.set(wib('2026-01-15T10:00:00'));
  thursday = await paidByQr(50_000);
}, 120_000);
afterAll(async () => {
  await service?.close();
  await receiver?.close();
});

describe('a settlement run late after the settler was down', () => {
  it('settles Wednesday’s and Thursday’s payments in one run, each with its own due date', async () => {
    // the settler down from Thursday to Tuesday (no run); back on Wednesday 21 January
    service.clock.set(wib('2026-01-21T10:00:00'));
    await caughtUp(service);
    await service.gatewaySettlement.tick();
    await caughtUp(service);

    const listed = await merchant.call('GET', '/api/v1/gateway/settlements');
    expect(listed.statusCode, listed.body).toBe(200);
    const settlements = listed.json().data as Settlement[];
    expect(settlements).toHaveLength(1);
    const [settlement] = settlements;
    // the run's own day; each payment's the working day after its own: Thursday's skips Isra Mikraj and the weekend
    expect(settlement!.dueDate).toBe('2026-01-21');
    const dueOf = (s: Settlement) => Object.fromEntries(s.payments.map(p => [p.paymentId, p.dueDate]));
    expect(dueOf(settlement!)).toEqual({ [wednesday]: '2026-01-15', [thursday]: '2026-01-19' });

    const detail = await merchant.call('GET', `/api/v1/gateway/settlements/${settlement!.id}`);
    expect(detail.statusCode, detail.body).toBe(200);
    expect(detail.json().data).toEqual(settlement);

    // the dashboard's table: the payment's row, its due day in a <time>
    const page = await merchant.session('GET', `/dashboard/gateway/settlements/${settlement!.id}`);
    expect(page.statusCode).toBe(200);
    for (const [id, day] of Object.entries(dueOf(settlement!))) {
      const row = new RegExp(`<tr data-payment-id="${id}">(.*?)</tr>`, 's').exec(page.body)?.[1] ?? '';
      expect(row).toContain(`<time datetime="${day}">`);
    }

    // the webhook says the same
    const hooks = await eventually(async () => receiver.received.length >= 1 && receiver.received);
    const sent = JSON.parse(hooks[0]!.body) as { type: string; data: Settlement };
    expect(sent.type).toBe('gateway.settled');
    expect(sent.data).toEqual(settlement);
  });

  it('rebuilds the same due dates from history', async () => {
    const dueDates = async () =>
      (await query(service.pool, 'SettledDueDates', 'select credit_id, due_date::text from gateway_settlement_credits'))
        .rows;
    const before = await dueDates();
    expect(before.map(r => r.due_date).sort()).toEqual(['2026-01-15', '2026-01-19']);
    expect(await verifyProjection(service, gatewaySettlementsProjection)).toEqual([]);
    await rebuildProjection(service, gatewaySettlementsProjection);
    expect(await dueDates()).toEqual(expect.arrayContaining(before));
  });
});
