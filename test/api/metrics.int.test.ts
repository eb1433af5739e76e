import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../src/db/pool.ts';
import { enqueueWebhookEvent } from '../../src/webhooks/outbox.ts';
import { registerUser } from '../../src/commands/registration.ts';
import { keyHolder } from '../support/http.ts';
import { nextUuid } from '../support/ids.ts';
import { eventually } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver } from '../webhooks/support.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ WEBHOOK_ALLOW_PRIVATE: 'true' });
});
afterAll(async () => service?.close());

const scrape = async () => {
  const response = await service.app.inject({ method: 'GET', url: '/metrics' });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.body;
};

/** The value of one series, by its name and exact labels in the exposition's order; null when absent. */
const valueOf = (text: string, series: string) => {
  const line = text.split('\n').find(l => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
};

describe('GET /metrics', () => {
  it('counts answers by method, route pattern and status, never by the raw URL, with their time', async () => {
    const caller = await keyHolder(service);
    const unknownId = nextUuid();
    const before =
      valueOf(await scrape(), 'http_requests_total{method="GET",route="/api/v1/accounts/:id",status_code="404"}') ?? 0;
    for (let i = 0; i < 3; i++)
      expect((await caller.call('GET', `/api/v1/accounts/${unknownId}`)).statusCode).toBe(404);
    expect((await service.app.inject({ method: 'GET', url: `/api/v1/accounts/${unknownId}` })).statusCode).toBe(401);

    const text = await scrape();
    expect(valueOf(text, 'http_requests_total{method="GET",route="/api/v1/accounts/:id",status_code="404"}')).toBe(
      before + 3,
    );
    expect(
      valueOf(text, 'http_requests_total{method="GET",route="/api/v1/accounts/:id",status_code="401"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(
      valueOf(text, 'http_request_duration_seconds_count{method="GET",route="/api/v1/accounts/:id"}'),
    ).toBeGreaterThanOrEqual(before + 4);
    expect(text).not.toContain(unknownId);
    expect(text).not.toContain(caller.key);
    expect(text).toContain('process_cpu_seconds_total');
  });

  it('says how far behind each projection is: 0 caught up, else the age of the oldest event it has not handled', async () => {
    await service.projections.waitFor(await service.store.headPosition(), 10_000);
    await eventually(
      async () => valueOf(await scrape(), 'subscriber_lag_seconds{subscriber="projection:users"}') === 0,
      5000,
    );

    await service.projections.stop();
    try {
      // a UserRegistered the users projection does not see (the command, not the route: that waits for the read model)
      await registerUser(
        { ...service.deps, readModels: { waitFor: async () => true } },
        { name: 'Lag', email: `lag-${nextUuid()}@example.com`, password: 'correct horse' },
      );
      service.clock.advance(90_000);
      expect(valueOf(await scrape(), 'subscriber_lag_seconds{subscriber="projection:users"}')).toBeGreaterThanOrEqual(
        90,
      );
    } finally {
      await service.projections.start();
    }
    await service.projections.waitFor(await service.store.headPosition(), 10_000);
    // events the projection ignores move its checkpoint within about a second
    await eventually(
      async () => valueOf(await scrape(), 'subscriber_lag_seconds{subscriber="projection:users"}') === 0,
      5000,
    );
  });

  it("shows the durable queue's depth by task and state", async () => {
    await query(
      service.pool,
      'AddTestJob',
      `select graphile_worker.add_job('metrics-probe', '{}'::json, run_at => now() + interval '1 hour')`,
    );
    await query(
      service.pool,
      'AddTestJob',
      `select graphile_worker.add_job('metrics-probe', '{}'::json, run_at => now() + interval '2 hours')`,
    );
    expect(valueOf(await scrape(), 'job_queue_jobs{task="metrics-probe",state="scheduled"}')).toBe(2);
  });

  it('counts webhook attempts by outcome', async () => {
    const receiver = await startReceiver(n => ({ status: n === 0 ? 503 : 200 }));
    try {
      const owner = await keyHolder(service);
      const endpoint = (await owner.call('POST', '/api/v1/webhooks', { url: receiver.url })).json().data.id as string;
      const count = async (outcome: string) =>
        valueOf(await scrape(), `webhook_attempts_total{outcome="${outcome}"}`) ?? 0;
      const [failures, successes] = [await count('failure'), await count('success')];
      const data = { id: nextUuid(), status: 'EXPIRED', amount: 50_000, totalAmount: 50_123 };
      await enqueueWebhookEvent(service.deps, {
        ownerId: owner.id,
        eventId: nextUuid(),
        type: 'payment.expired',
        createdAt: service.clock.now().toISOString(),
        data,
      });
      await eventually(async () => (await count('failure')) === failures + 1, 10_000);

      const [delivery] = (await owner.call('GET', `/api/v1/webhooks/${endpoint}/deliveries`)).json().data as {
        id: string;
      }[];
      expect(
        (await owner.call('POST', `/api/v1/webhooks/${endpoint}/deliveries/${delivery!.id}/redeliver`)).statusCode,
      ).toBe(202);
      await eventually(async () => (await count('success')) === successes + 1, 10_000);
    } finally {
      await receiver.close();
    }
  });
});
