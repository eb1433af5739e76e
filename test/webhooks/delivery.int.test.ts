import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueWebhookEvent } from '../../src/webhooks/outbox.ts';
import { keyHolder } from '../support/http.ts';
import { eventually } from '../support/sandbox.ts';
import type { TestService } from '../support/service.ts';
import { shortSchedule, startReceiver, startWebhookTestService, type Answer } from './support.ts';
import { nextUuid } from '../support/ids.ts';

let service: TestService;
const receivers: { close(): Promise<void> }[] = [];
beforeAll(async () => {
  service = await startWebhookTestService(
    { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_SECONDS: '5' },
    shortSchedule,
  );
});
afterAll(async () => {
  await Promise.all(receivers.map(r => r.close()));
  await service?.close();
});

type Owner = Awaited<ReturnType<typeof keyHolder>>;
type Delivery = {
  id: string;
  eventId: string;
  type: string;
  status: string;
  statusReason: string | null;
  nextAttemptAt: string | null;
  attempts: {
    number: number;
    attemptedAt: string;
    state: string;
    manual: boolean;
    statusCode: number | null;
    error: string | null;
    durationMs: number;
  }[];
};

async function receiver(answer?: (n: number) => Answer) {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

async function endpoint(owner: Owner, url: string) {
  const response = await owner.call('POST', '/api/v1/webhooks', { url });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data as { id: string; secret: string };
}

const payment = {
  id: '0195f0a0-0000-7000-8000-00000000a001',
  status: 'COMPLETED',
  amount: 150_000,
  totalAmount: 150_123,
};

async function publish(
  owner: Owner,
  eventId = nextUuid(),
  type: 'payment.completed' | 'payment.expired' = 'payment.completed',
) {
  const createdAt = service.clock.now().toISOString();
  await enqueueWebhookEvent(service.deps, { ownerId: owner.id, eventId, type, createdAt, data: payment });
  return { eventId, type, createdAt };
}

const deliveriesOf = async (owner: Owner, endpointId: string): Promise<Delivery[]> => {
  const response = await owner.call('GET', `/api/v1/webhooks/${endpointId}/deliveries`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
};

/** Waits until the endpoint's only delivery satisfies `done`. */
const deliveryWhen = (owner: Owner, endpointId: string, done: (d: Delivery) => boolean) =>
  eventually(async () => {
    const [d] = await deliveriesOf(owner, endpointId);
    return d && done(d) ? d : null;
  });

describe('webhook delivery', () => {
  it('POSTs the event signed per Standard Webhooks; the receiver verifies it with the standardwebhooks package', async () => {
    const owner = await keyHolder(service);
    const r = await receiver();
    const { id, secret } = await endpoint(owner, r.url);
    const event = await publish(owner);

    const [request] = await eventually(async () => r.received.length > 0 && r.received);
    const verified = new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>);
    expect(verified).toEqual({
      id: event.eventId,
      type: 'payment.completed',
      createdAt: event.createdAt,
      data: payment,
    });
    expect(request!.headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': event.eventId });
    expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(
        request!.body,
        request!.headers as Record<string, string>,
      ),
    ).toThrow();

    const delivery = await deliveryWhen(owner, id, d => d.status === 'succeeded');
    expect(delivery).toMatchObject({
      eventId: event.eventId,
      type: 'payment.completed',
      statusReason: null,
      nextAttemptAt: null,
    });
    expect(delivery.attempts).toEqual([
      {
        number: 1,
        attemptedAt: service.clock.now().toISOString(),
        state: 'finished',
        manual: false,
        statusCode: 200,
        error: null,
        durationMs: expect.any(Number),
      },
    ]);
  });

  it('retries after a 500 and succeeds on the next 2xx, with the same webhook-id and body', async () => {
    const owner = await keyHolder(service);
    const r = await receiver(n => ({ status: n < 2 ? 500 : 202 }));
    const { id, secret } = await endpoint(owner, r.url);
    const event = await publish(owner);

    const delivery = await deliveryWhen(owner, id, d => d.status === 'succeeded');
    expect(delivery.attempts.map(a => a.statusCode)).toEqual([500, 500, 202]);
    expect(r.received).toHaveLength(3);
    expect(new Set(r.received.map(q => q.headers['webhook-id']))).toEqual(new Set([event.eventId]));
    expect(new Set(r.received.map(q => q.body)).size).toBe(1);
    for (const q of r.received)
      expect(() => new Webhook(secret).verify(q.body, q.headers as Record<string, string>)).not.toThrow();
  });

  it('fails a delivery once the schedule is spent, and says why', async () => {
    const owner = await keyHolder(service);
    const r = await receiver(() => ({ status: 503 }));
    const { id } = await endpoint(owner, r.url);
    await publish(owner);
    const delivery = await deliveryWhen(owner, id, d => d.status === 'failed');
    expect(delivery.attempts.map(a => a.statusCode)).toEqual([503, 503, 503, 503]);
    expect(delivery).toMatchObject({ statusReason: 'no 2xx answer within the retry schedule', nextAttemptAt: null });
  });

  it('counts only 2xx: a redirect is not followed and is retried', async () => {
    const owner = await keyHolder(service);
    const r = await receiver(n =>
      n === 0 ? { status: 302, headers: { location: 'http://169.254.169.254/' } } : { status: 200 },
    );
    const { id } = await endpoint(owner, r.url);
    await publish(owner);
    const delivery = await deliveryWhen(owner, id, d => d.status === 'succeeded');
    expect(delivery.attempts.map(a => a.statusCode)).toEqual([302, 200]);
  });

  it('honours Retry-After: the next attempt waits at least that long', async () => {
    const owner = await keyHolder(service);
    const r = await receiver(n => (n === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 }));
    const { id } = await endpoint(owner, r.url);
    await publish(owner);
    const retrying = await deliveryWhen(owner, id, d => d.attempts.length === 1 && d.attempts[0]!.state === 'finished');
    expect(retrying.status).toBe('pending');
    expect(Date.parse(retrying.nextAttemptAt!) - Date.parse(retrying.attempts[0]!.attemptedAt)).toBe(1000);
    await deliveryWhen(owner, id, d => d.status === 'succeeded');
    expect(r.received[1]!.receivedAt - r.received[0]!.receivedAt).toBeGreaterThanOrEqual(900);
  });

  it('disables the endpoint on 410 Gone: nothing more is sent to it, and redelivery is refused', async () => {
    const owner = await keyHolder(service);
    const r = await receiver(() => ({ status: 410 }));
    const { id } = await endpoint(owner, r.url);
    await publish(owner);
    const delivery = await deliveryWhen(owner, id, d => d.status === 'failed');
    expect(delivery.attempts.map(a => a.statusCode)).toEqual([410]);
    const listed = await eventually(async () => {
      const [e] = (await owner.call('GET', '/api/v1/webhooks')).json().data;
      return e?.disabled ? e : null;
    });
    expect(listed).toMatchObject({
      id,
      disabled: true,
      disabledAt: service.clock.now().toISOString(),
      disabledStatusCode: 410,
    });

    await publish(owner);
    expect(await deliveriesOf(owner, id)).toHaveLength(1); // no delivery for the new event
    const redelivery = await owner.call('POST', `/api/v1/webhooks/${id}/deliveries/${delivery.id}/redeliver`);
    expect(redelivery.statusCode).toBe(409);
    expect(redelivery.json()).toMatchObject({ status: 'error', code: 'WEBHOOK_ENDPOINT_DISABLED' });
    expect(r.received).toHaveLength(1);
  });

  it('gives up on a receiver that does not answer in time, while another endpoint is served meanwhile', async () => {
    const owner = await keyHolder(service);
    const hanging = await receiver(n => (n === 0 ? 'hang' : { status: 200 }));
    const healthy = await receiver();
    const slow = await endpoint(owner, hanging.url);
    await endpoint(owner, healthy.url);
    await publish(owner);

    await eventually(async () => hanging.received.length === 1 && healthy.received.length === 1);
    expect(hanging.received[0]!.closed).toBe(false); // still waiting for its answer: it did not hold the other back

    const delivery = await deliveryWhen(owner, slow.id, d => d.status === 'succeeded');
    expect(delivery.attempts[0]).toMatchObject({ statusCode: null, error: 'timed out after 5000 ms' });
    expect(delivery.attempts[0]!.durationMs).toBeGreaterThanOrEqual(5000);
    expect(hanging.received[0]!.closed).toBe(true);
  });

  it('cancels what is still pending for an endpoint removed meanwhile', async () => {
    const owner = await keyHolder(service);
    const r = await receiver(n => (n === 0 ? 'hang' : { status: 200 }));
    const { id } = await endpoint(owner, r.url);
    await publish(owner);
    await eventually(async () => r.received.length === 1);
    expect((await owner.call('DELETE', `/api/v1/webhooks/${id}`)).statusCode).toBe(200);
    const cancelled = await eventually(async () => {
      const found = await service.pool.query(
        'select status, status_reason from webhook_deliveries where endpoint_id = $1',
        [id],
      );
      return found.rows[0]?.status === 'cancelled' ? found.rows[0] : null;
    });
    expect(cancelled).toEqual({ status: 'cancelled', status_reason: 'endpoint removed' });
    expect(r.received).toHaveLength(1);
  });

  it('publishes an event once per eventId, to every active endpoint of its owner only', async () => {
    const owner = await keyHolder(service);
    const other = await keyHolder(service);
    const [a, b, removed, others] = [await receiver(), await receiver(), await receiver(), await receiver()];
    const endpointA = await endpoint(owner, a.url);
    const endpointB = await endpoint(owner, b.url);
    const gone = await endpoint(owner, removed.url);
    await endpoint(other, others.url);
    expect((await owner.call('DELETE', `/api/v1/webhooks/${gone.id}`)).statusCode).toBe(200);

    const eventId = nextUuid();
    await Promise.all([publish(owner, eventId), publish(owner, eventId)]);
    await publish(owner, eventId);
    await deliveryWhen(owner, endpointA.id, d => d.status === 'succeeded');
    await deliveryWhen(owner, endpointB.id, d => d.status === 'succeeded');
    expect(await deliveriesOf(owner, endpointA.id)).toHaveLength(1);
    expect([a.received.length, b.received.length, removed.received.length, others.received.length]).toEqual([
      1, 1, 0, 0,
    ]);
  });

  it('redelivers on request: one more signed attempt with the same webhook-id, logged as manual', async () => {
    const owner = await keyHolder(service);
    const r = await receiver();
    const { id, secret } = await endpoint(owner, r.url);
    const event = await publish(owner);
    const delivered = await deliveryWhen(owner, id, d => d.status === 'succeeded');

    const response = await owner.call('POST', `/api/v1/webhooks/${id}/deliveries/${delivered.id}/redeliver`);
    expect(response.statusCode).toBe(202);
    expect(response.json()).toMatchObject({
      status: 'success',
      data: { id: delivered.id, status: 'pending', nextAttemptAt: service.clock.now().toISOString() },
    });

    const again = await deliveryWhen(owner, id, d => d.status === 'succeeded' && d.attempts.length === 2);
    expect(again.attempts.map(a => [a.statusCode, a.manual])).toEqual([
      [200, false],
      [200, true],
    ]);
    expect(r.received).toHaveLength(2);
    expect(r.received[1]!.headers['webhook-id']).toBe(event.eventId);
    expect(
      new Webhook(secret).verify(r.received[1]!.body, r.received[1]!.headers as Record<string, string>),
    ).toMatchObject({ id: event.eventId });
  });

  it('redelivers a failed delivery once, without a new round of retries', async () => {
    const owner = await keyHolder(service);
    const r = await receiver(() => ({ status: 500 }));
    const { id } = await endpoint(owner, r.url);
    await publish(owner);
    const failed = await deliveryWhen(owner, id, d => d.status === 'failed');
    const response = await owner.call('POST', `/api/v1/webhooks/${id}/deliveries/${failed.id}/redeliver`);
    expect(response.statusCode).toBe(202);
    const again = await deliveryWhen(
      owner,
      id,
      d => d.status === 'failed' && d.attempts.length === failed.attempts.length + 1,
    );
    expect(again.attempts.at(-1)).toMatchObject({ statusCode: 500, manual: true });
    expect(again.nextAttemptAt).toBeNull();
  });

  it('answers 404 for a delivery of another endpoint or another owner, on the key surface and the dashboard', async () => {
    const owner = await keyHolder(service);
    const other = await keyHolder(service);
    const r = await receiver();
    const mine = await endpoint(owner, r.url);
    const mySecond = await endpoint(owner, r.url);
    const theirs = await endpoint(other, r.url);
    await publish(owner);
    await publish(other);
    const [myDelivery] = await deliveriesOf(owner, mine.id);
    const [theirDelivery] = await deliveriesOf(other, theirs.id);

    const attempts = [
      [other, `${theirs.id}/deliveries/${myDelivery!.id}`], // their endpoint, my delivery
      [other, `${mine.id}/deliveries/${myDelivery!.id}`], // my endpoint and delivery, asked by them
      [owner, `${mySecond.id}/deliveries/${myDelivery!.id}`], // my delivery, under my other endpoint
      [owner, `${mine.id}/deliveries/${theirDelivery!.id}`], // their delivery under my endpoint
      [owner, `${mine.id}/deliveries/${nextUuid()}`],
    ] as const;
    for (const [who, path] of attempts) {
      const byKey = await who.call('POST', `/api/v1/webhooks/${path}/redeliver`);
      expect(byKey.statusCode, path).toBe(404);
      const byDashboard = await service.app.inject({
        method: 'POST',
        url: `/api/dashboard/webhooks/${path}/redeliver`,
        cookies: { svc_token: who.cookie },
        headers: { 'content-type': 'application/json' },
      });
      expect(byDashboard.statusCode, path).toBe(404);
    }
    expect((await other.call('GET', `/api/v1/webhooks/${mine.id}/deliveries`)).statusCode).toBe(404);
    const dashboardLog = await service.app.inject({
      method: 'GET',
      url: `/api/dashboard/webhooks/${mine.id}/deliveries`,
      cookies: { svc_token: owner.cookie },
    });
    expect(dashboardLog.json()).toMatchObject({
      status: 'success',
      data: [{ id: myDelivery!.id }],
      pagination: { total: 1, page: 1 },
    });
  });
});
