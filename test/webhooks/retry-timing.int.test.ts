import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueWebhookEvent } from '../../src/webhooks/outbox.ts';
import { keyHolder } from '../support/http.ts';
import { eventually } from '../support/sandbox.ts';
import type { TestService } from '../support/service.ts';
import { startReceiver, startWebhookTestService, WallClock } from './support.ts';
import { nextUuid } from '../support/ids.ts';

/**
 * The delivery log's `nextAttemptAt` is when the next attempt really runs, also after an attempt that waited for
 * its timeout: the wait is counted from the end of the attempt, in the log as in the queue. The service's clock
 * follows the wall clock here, so that logged times can be compared with when the receiver was called.
 */
const timeoutMs = 2000;
let service: TestService;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  service = await startWebhookTestService(
    { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_SECONDS: String(timeoutMs / 1000) },
    { retryDelaysMs: [0, 1000, 1000], pollIntervalMs: 50 },
    new WallClock(),
  );
  receiver = await startReceiver(n => (n === 0 ? 'hang' : { status: 200 }));
});
afterAll(async () => {
  await receiver?.close();
  await service?.close();
});

type Delivery = {
  status: string;
  nextAttemptAt: string | null;
  attempts: { attemptedAt: string; state: string; error: string | null; durationMs: number }[];
};

describe('the next attempt after a timed-out one', () => {
  it('runs when the delivery log says it will (nextAttemptAt counts from the end of the timeout)', async () => {
    const owner = await keyHolder(service);
    const registered = await owner.call('POST', '/api/v1/webhooks', { url: receiver.url });
    expect(registered.statusCode, registered.body).toBe(200);
    const endpointId = registered.json().data.id as string;
    const payment = { id: nextUuid(), status: 'COMPLETED', amount: 150_000, totalAmount: 150_123 };
    await enqueueWebhookEvent(service.deps, {
      ownerId: owner.id,
      eventId: nextUuid(),
      type: 'payment.completed',
      createdAt: new Date().toISOString(),
      data: payment,
    });

    const deliveryWhen = (done: (d: Delivery) => boolean) =>
      eventually(async () => {
        const [d] = (await owner.call('GET', `/api/v1/webhooks/${endpointId}/deliveries`)).json().data as Delivery[];
        return d && done(d) ? d : null;
      }, 15_000);
    // the attempt is logged in flight as it starts: wait for its timeout to finish it
    const waiting = await deliveryWhen(d => d.attempts.length === 1 && d.attempts[0]!.state === 'finished');
    expect(waiting.status).toBe('pending');
    expect(waiting.attempts[0]).toMatchObject({ error: `timed out after ${timeoutMs} ms` });
    const promised = Date.parse(waiting.nextAttemptAt!);

    const done = await deliveryWhen(d => d.status === 'succeeded');
    expect(done.attempts).toHaveLength(2);
    const ran = Date.parse(done.attempts[1]!.attemptedAt);
    expect(receiver.received).toHaveLength(2);
    // the queue may start it a poll later than promised, never earlier, and never a timeout later
    expect(
      ran - promised,
      `promised ${waiting.nextAttemptAt}, ran at ${done.attempts[1]!.attemptedAt}`,
    ).toBeGreaterThanOrEqual(-50);
    expect(ran - promised, `promised ${waiting.nextAttemptAt}, ran at ${done.attempts[1]!.attemptedAt}`).toBeLessThan(
      500,
    );
    expect(receiver.received[1]!.receivedAt - promised).toBeLessThan(500);
  });
});
