import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.ts';
import { createPayment } from '../../src/commands/payments.ts';
import { orderStream } from '../../src/domain/payments-order.ts';
import { payableClaimStream } from '../../src/domain/payments-payable-claims.ts';
import { keyHolder } from '../support/http.ts';
import { createPayment as requestPayment, linkServiceWallet, paymentBody, syncUntil } from '../support/payments.ts';
import { sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { storedStreamId } from '../../src/store/postgres-stream-ids.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

/** The service's test clock, a second later at every read, and how often it was read. */
function tickingClock() {
  const clock = { reads: 0, now: () => new Date(service.clock.now().getTime() + ++clock.reads * 1000) };
  return clock satisfies Clock;
}

describe('createPayment', () => {
  it('reads the clock once: the payment, its expiry and its events all date from one instant', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller); // its first QRIS payment captures the static QRIS too
    const clock = tickingClock();
    const input = { amount: 25_000, walletAccountId: accountId, redirectUrl: 'https://shop.example' };
    const { paymentId, payment } = await createPayment(
      { ...service.deps, clock },
      caller.id,
      { ...input, orderId: crypto.randomUUID(), type: 'QRIS-DYNAMIC', expiresInMinutes: 15 },
      service.config.gateway,
    );
    expect(clock.reads).toBe(1);
    expect(Date.parse(payment.expiresAt) - Date.parse(payment.createdAt)).toBe(15 * 60_000);
    const events = await service.deps.store.readStream(`payment-${paymentId}`, { fromRevision: 0 });
    expect(events.map(e => (e.metadata as { occurredAt: string }).occurredAt)).toEqual([payment.createdAt]);
  });
});

describe('the streams of a payment', () => {
  it("keep no es_streams row: the payment, its total's claim and its order id, through creation and completion", async () => {
    const caller = await keyHolder(service);
    const { accountId, phoneNumber } = await linkServiceWallet(caller);
    const body = paymentBody(accountId, { type: 'QRIS-DYNAMIC' });
    const payment = await requestPayment(caller, body);
    await sandboxOf(service).pay({ accountNumber: phoneNumber, providerCode: 'WALLET-D', amount: payment.totalAmount });
    await syncUntil(caller, accountId, payment.id, 'COMPLETED');
    // as es_events keeps their ids
    const streams = [
      `payment-${payment.id}`,
      payableClaimStream(accountId, payment.totalAmount),
      orderStream(caller.id, body.orderId),
    ].map(storedStreamId);
    const written = await service.deps.pool.query<{ stream_id: string; n: number }>(
      'select stream_id, count(*)::int as n from es_events where stream_id = any($1) group by stream_id order by 1',
      [streams],
    );
    // created and completed; reserved and released; opened
    expect(Object.fromEntries(written.rows.map(r => [r.stream_id, r.n]))).toEqual({
      [streams[0]!]: 2,
      [streams[1]!]: 2,
      [streams[2]!]: 1,
    });
    const rows = await service.deps.pool.query('select stream_id from es_streams where stream_id = any($1)', [streams]);
    expect(rows.rows).toEqual([]);
    // the account the payment went to keeps its row
    const account = await service.deps.pool.query('select 1 from es_streams where stream_id = $1', [
      storedStreamId(`account-${accountId}`),
    ]);
    expect(account.rowCount).toBe(1);
  });
});
