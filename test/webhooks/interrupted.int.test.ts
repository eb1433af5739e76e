import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { freePort } from '../../src/db/free-port.ts';
import { createPool, query } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import { createService, type Service } from '../../src/service.ts';
import { enqueueWebhookEvent } from '../../src/webhooks/outbox.ts';
import { freshDatabaseUrl } from '../support/database.ts';
import { spawnService, type RunningService } from '../support/process.ts';
import { eventually } from '../support/sandbox.ts';
import { testSigningKey } from '../support/signing-key.ts';
import { startReceiver } from './support.ts';

/**
 * An attempt is in the delivery log from the moment it starts. The service is killed (SIGKILL) while its attempt waits
 * for a receiver that never answers; another instance on the same database sends the event again once the dead
 * worker's job is taken back: the log shows the attempt cut off as `interrupted`, beside the re-send that answered.
 */
const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-webhook-interrupted-'));
let killed: RunningService | undefined;
let second: Service | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
let pool: ReturnType<typeof createPool> | undefined;

afterAll(async () => {
  if (killed && killed.child.exitCode === null && killed.child.signalCode === null) {
    killed.child.kill('SIGKILL');
    await killed.exited;
  }
  await second?.close();
  await pool?.end();
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function call(base: string, method: string, url: string, init: { body?: unknown; cookie?: string } = {}) {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: {
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.cookie ? { cookie: `svc_token=${init.cookie}` } : {}),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text}`);
  return { json: JSON.parse(text) as Record<string, any>, headers: response.headers };
}

type Attempt = { number: number; state: string; statusCode: number | null; durationMs: number | null };
type Delivery = { id: string; eventId: string; status: string; attempts: Attempt[] };

describe('a webhook attempt cut off by a crash', () => {
  it('stays in the delivery log as interrupted, beside the re-send made by another instance', async () => {
    // the first request never gets an answer; the re-send gets a 204
    receiver = await startReceiver(n => (n === 0 ? 'hang' : { status: 204 }));
    const env = {
      DATA_DIR: dataDir,
      DATABASE_URL: await freshDatabaseUrl(),
      DIGEST_SIGNING_KEY: testSigningKey(),
      PORT: String(await freePort()),
      // a DATABASE_URL starts no sandbox unless asked for
      SANDBOX: 'true',
      SANDBOX_PORT: String(await freePort()),
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_TIMEOUT_SECONDS: '60',
    };
    killed = await spawnService(env);
    const base = killed.url;

    const registered = await call(base, 'POST', '/api/auth/register', {
      body: { name: 'Interrupted', email: 'webhook-interrupted@example.com', password: 'rahasia123' },
    });
    const ownerId = registered.json.user.id as string;
    const cookie = /svc_token=([^;]+)/.exec(registered.headers.get('set-cookie') ?? '')![1]!;
    const endpointId = (await call(base, 'POST', '/api/dashboard/webhooks', { body: { url: receiver.url }, cookie }))
      .json.data.id as string;
    pool = createPool(env.DATABASE_URL, 2);
    await enqueueWebhookEvent(
      { pool, clock: systemClock },
      {
        ownerId,
        eventId: 'interrupted-event-1',
        type: 'payment.completed',
        createdAt: new Date().toISOString(),
        data: { paymentId: 'p-1' },
      },
    );

    // the attempt reaches the receiver and is in the log, in flight, while the receiver keeps it waiting
    await eventually(async () => receiver!.received.length === 1, 30_000);
    const deliveriesOn = async (url: string) =>
      (await call(url, 'GET', `/api/dashboard/webhooks/${endpointId}/deliveries`, { cookie })).json.data as Delivery[];
    const inFlight = await deliveriesOn(base);
    expect(inFlight).toHaveLength(1);
    expect(inFlight[0]!.attempts).toMatchObject([
      { number: 1, state: 'in_flight', statusCode: null, durationMs: null },
    ]);

    killed.child.kill('SIGKILL');
    await killed.exited;

    // another instance on the same database takes the dead worker's job back and sends again
    const config = loadConfig({ ...env, PORT: '0', SANDBOX_PORT: '0', LOG_LEVEL: 'silent' });
    second = await createService(config, {
      log: createLogger('silent'),
      schedulerTickMs: 3_600_000,
      webhooks: { heartbeatMs: 500, deadAfterMs: 2000, pollIntervalMs: 100 },
    });
    const secondUrl = await second.listen();
    const delivered = await eventually(async () => {
      const [d] = await deliveriesOn(secondUrl);
      return d && d.status === 'succeeded' ? d : null;
    }, 60_000);

    expect(receiver.received.map(r => r.headers['webhook-id'])).toEqual(['interrupted-event-1', 'interrupted-event-1']);
    expect(delivered.attempts).toMatchObject([
      { number: 1, state: 'interrupted', statusCode: null, durationMs: null },
      { number: 2, state: 'finished', statusCode: 204 },
    ]);
    const rows = await query<{ state: string }>(
      pool,
      'ReadAttemptStates',
      'select state from webhook_attempts order by number',
    );
    expect(rows.rows.map(r => r.state)).toEqual(['interrupted', 'finished']);

    // the dashboard's page of the endpoint shows it too
    const page = await fetch(`${secondUrl}/dashboard/webhooks/${endpointId}`, {
      headers: { cookie: `svc_token=${cookie}` },
    });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('data-state="interrupted"');
  }, 180_000);
});
