import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config.ts';
import { query } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import { createService } from '../../src/service.ts';
import { enqueueWebhookEvent } from '../../src/webhooks/outbox.ts';
import { freshDatabaseUrl } from '../support/database.ts';
import { keyHolder } from '../support/http.ts';
import { nextUuid } from '../support/ids.ts';
import { createPayment, linkServiceWallet, paymentBody, statusOf } from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver } from '../webhooks/support.ts';
import { testSigningKey } from '../support/signing-key.ts';

let service: TestService;
let plain: TestService;
let live: TestService;
beforeAll(async () => {
  // tests run on a database of the run's PostgreSQL (DATABASE_URL): the test clock needs TEST_CLOCK_FORCE there
  service = await startTestService({ TEST_CLOCK: 'true', TEST_CLOCK_FORCE: 'true' });
  plain = await startTestService();
  live = await startLiveService();
});
afterAll(async () => {
  await service?.close();
  await plain?.close();
  await live?.close();
});

/**
 * The service as `TEST_CLOCK=true` starts it: on its own ShiftedClock (kept in DATA_DIR), with its timers ticking every
 * second and the webhook runner polling every second, as in production. Only the HTTP route moves its clock.
 */
async function startLiveService(config?: Config): Promise<TestService> {
  config ??= loadConfig({
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'svc-test-data-')),
    DATABASE_URL: await freshDatabaseUrl(),
    DIGEST_SIGNING_KEY: testSigningKey(),
    PORT: '0',
    SANDBOX_PORT: '0',
    LOG_LEVEL: 'silent',
    TEST_CLOCK: 'true',
    TEST_CLOCK_FORCE: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
  });
  const started = await createService(config, {
    log: createLogger('silent'),
    startSandbox: true,
    connector: { attempts: 1, backoffMs: 10, breakerHalfOpenMs: 50, timeoutMs: 5000 },
  });
  // the helpers take a TestService; this one's clock is moved over HTTP only, never through `clock`
  return Object.assign(started, { clock: null, config }) as unknown as TestService;
}

/** Moves the live service's clock over HTTP and answers when the move was answered (wall-clock ms). */
async function advanceLive(seconds: number) {
  const moved = await live.app.inject({ method: 'POST', url: '/api/test-clock', payload: { advanceSeconds: seconds } });
  expect(moved.statusCode, moved.body).toBe(200);
  return Date.now();
}
const liveNow = async () =>
  Date.parse((await live.app.inject({ method: 'GET', url: '/api/test-clock' })).json().data.now);

const move = (payload: unknown) =>
  service.app.inject({ method: 'POST', url: '/api/test-clock', payload: payload as never });

describe('/api/test-clock', () => {
  it('does not exist without TEST_CLOCK', async () => {
    expect((await plain.app.inject({ method: 'GET', url: '/api/test-clock' })).statusCode).toBe(404);
    expect(
      (await plain.app.inject({ method: 'POST', url: '/api/test-clock', payload: { advanceSeconds: 60 } })).statusCode,
    ).toBe(404);
  });

  it('answers only a tester on this machine: another address or a forwarded request is refused and moves nothing', async () => {
    const before = service.clock.now().getTime();
    for (const request of [
      { remoteAddress: '10.0.0.7' },
      { remoteAddress: '::ffff:192.168.1.2' },
      { headers: { 'x-forwarded-for': '203.0.113.9' } },
    ]) {
      const moved = await service.app.inject({
        method: 'POST',
        url: '/api/test-clock',
        payload: { advanceSeconds: 86_400 },
        ...request,
      });
      expect(moved.statusCode, JSON.stringify(request)).toBe(403);
      expect((await service.app.inject({ method: 'GET', url: '/api/test-clock', ...request })).statusCode).toBe(403);
    }
    expect(service.clock.now().getTime()).toBe(before);
  });

  it("answers the service's now, and moves it forward by advanceSeconds or to setTo", async () => {
    const start = service.clock.now();
    const shown = await service.app.inject({ method: 'GET', url: '/api/test-clock' });
    expect(shown.statusCode).toBe(200);
    expect(shown.json().data.now).toBe(start.toISOString());

    const advanced = await move({ advanceSeconds: 3600 });
    expect(advanced.statusCode, advanced.body).toBe(200);
    expect(advanced.json().data.now).toBe(new Date(start.getTime() + 3_600_000).toISOString());
    expect(service.clock.now().getTime()).toBe(start.getTime() + 3_600_000);

    const tuesdayWib = '2026-01-12T17:00:00.000Z'; // Tuesday 00:00 WIB
    const set = await move({ setTo: tuesdayWib });
    expect(set.statusCode, set.body).toBe(200);
    expect(service.clock.now().toISOString()).toBe(tuesdayWib);
  });

  it.each([
    ['a time before now', { setTo: '2020-01-01T00:00:00Z' }, 'TEST_CLOCK_BACKWARDS'],
    ['both fields', { advanceSeconds: 1, setTo: '2030-01-01T00:00:00Z' }, 'VALIDATION_ERROR'],
    ['neither field', {}, 'VALIDATION_ERROR'],
    ['a negative advance', { advanceSeconds: -60 }, 'VALIDATION_ERROR'],
    ['a date that is not one', { setTo: 'next monday' }, 'VALIDATION_ERROR'],
  ])('refuses %s (400) and leaves the clock where it was', async (_case, payload, code) => {
    const before = service.clock.now().getTime();
    const response = await move(payload);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({
      status: 'error',
      code,
      message: expect.any(String),
      errors: [expect.objectContaining({ message: expect.any(String) })],
    });
    expect(service.clock.now().getTime()).toBe(before);
  });

  it('brings waiting jobs (a webhook retry in 5 minutes) forward by as much as it moves', async () => {
    const job = await query<{ id: string }>(
      service.pool,
      'AddTestJob',
      `select id from graphile_worker.add_job('test-clock-probe', '{}'::json, run_at => now() + interval '5 minutes')`,
    );
    const runAt = async () =>
      (
        await query<{ due: boolean }>(
          service.pool,
          'TestJobDue',
          'select run_at <= now() as due from graphile_worker.jobs where id = $1',
          [job.rows[0]!.id],
        )
      ).rows[0]!.due;
    expect(await runAt()).toBe(false);
    expect((await move({ advanceSeconds: 240 })).statusCode).toBe(200);
    expect(await runAt()).toBe(false); // a minute still to go
    expect((await move({ advanceSeconds: 60 })).statusCode).toBe(200);
    expect(await runAt()).toBe(true);
  });
});

describe('the timers of a service started with TEST_CLOCK=true', () => {
  it('expire a pending payment within about a second of a move past its expiresAt', async () => {
    const caller = await keyHolder(live);
    const { accountId } = await linkServiceWallet(caller);
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', expiresInMinutes: 5 }));
    await new Promise(r => setTimeout(r, 1500)); // a tick or two on the unmoved clock: still pending
    expect((await statusOf(caller, payment.id)).status).toBe('PENDING');

    const movedAt = await advanceLive(5 * 60);
    await eventually(async () => (await statusOf(caller, payment.id)).status === 'EXPIRED', 10_000);
    expect(Date.now() - movedAt).toBeLessThan(2500);
  });

  it('send a webhook retry due 5 minutes later within a second or two of a 5-minute move', async () => {
    const receiver = await startReceiver(n => ({ status: n < 2 ? 503 : 200 }));
    try {
      const owner = await keyHolder(live);
      const registered = await owner.call('POST', '/api/v1/webhooks', { url: receiver.url });
      expect(registered.statusCode, registered.body).toBe(200);
      const endpointId = registered.json().data.id as string;
      const data = { id: nextUuid(), status: 'EXPIRED', amount: 50_000, totalAmount: 50_123 };
      await enqueueWebhookEvent(live.deps, {
        ownerId: owner.id,
        eventId: nextUuid(),
        type: 'payment.expired',
        createdAt: new Date(await liveNow()).toISOString(),
        data,
      });
      type Delivery = {
        status: string;
        nextAttemptAt: string | null;
        attempts: { attemptedAt: string; state: string }[];
      };
      const deliveryAfter = (attempts: number) =>
        eventually(async () => {
          const [d] = (await owner.call('GET', `/api/v1/webhooks/${endpointId}/deliveries`)).json().data as Delivery[];
          return d && d.attempts.length === attempts && d.attempts.every(a => a.state === 'finished') ? d : null; // logged in flight as it starts
        }, 15_000);
      /** Moves the clock to the delivery's next attempt, and answers how long after the move the receiver had it. */
      const moveToNextAttempt = async (d: Delivery) => {
        const seen = receiver.received.length;
        const movedAt = await advanceLive(
          Math.max(0, Math.ceil((Date.parse(d.nextAttemptAt!) - (await liveNow())) / 1000)),
        );
        await eventually(async () => receiver.received.length > seen, 10_000);
        return receiver.received[seen]!.receivedAt - movedAt;
      };

      const first = await deliveryAfter(1); // 503: the next attempt is 5 s later
      expect(await moveToNextAttempt(first)).toBeLessThan(2000);
      const second = await deliveryAfter(2); // 503 again: the next is 5 minutes later (10 % jitter either way)
      const wait = Date.parse(second.nextAttemptAt!) - Date.parse(second.attempts[1]!.attemptedAt);
      expect(wait).toBeGreaterThan(4.5 * 60_000);
      expect(wait).toBeLessThan(5.6 * 60_000);
      await new Promise(r => setTimeout(r, 1500));
      expect(receiver.received).toHaveLength(2); // not before the clock gets there

      expect(await moveToNextAttempt(second)).toBeLessThan(2000);
      expect((await deliveryAfter(3)).status).toBe('succeeded');
    } finally {
      await receiver.close();
    }
  });

  it("move the embedded sandbox's clock too: its transactions are dated on the moved clock", async () => {
    const caller = await keyHolder(live);
    const { accountId, phoneNumber } = await linkServiceWallet(caller);
    await advanceLive(86_400);
    const movedTo = await liveNow();
    await sandboxOf(live).addTransaction({
      providerCode: 'WALLET-D',
      accountRef: phoneNumber,
      type: 'CREDIT',
      amount: 12_345,
    });
    expect((await caller.call('GET', `/api/v1/accounts/${accountId}/refresh`)).statusCode).toBe(200);
    const credit = await eventually(async () => {
      const list = (await caller.call('GET', `/api/v1/mutations?accountId=${accountId}&type=CREDIT&limit=100`)).json()
        .data as { amount: number; createdAt: string }[];
      return list.find(m => m.amount === 12_345);
    }, 10_000);
    expect(Date.parse(credit.createdAt)).toBeGreaterThanOrEqual(movedTo); // the provider's time of the transaction
  });

  it('keep their time across a restart (the offset is kept in DATA_DIR)', async () => {
    const before = await liveNow();
    await live.close();
    live = await startLiveService(live.config);
    expect(await liveNow()).toBeGreaterThanOrEqual(before);
    expect(
      (await live.app.inject({ method: 'GET', url: '/api/test-clock' })).json().data.offsetSeconds,
    ).toBeGreaterThanOrEqual(86_400 + 5 * 60);
  });
});
