import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/db/free-port.ts';
import { freshDatabaseUrl } from '../support/database.ts';
import { spawnService, type RunningService } from '../support/process.ts';
import { eventually } from '../support/sandbox.ts';
import { startReceiver } from '../webhooks/support.ts';
import { testSigningKey } from '../support/signing-key.ts';
import { checkedFetch } from '../support/contract-fetch.ts';

/**
 * The service is killed (SIGKILL) while its webhook runner waits for a slow receiver, and started again: every
 * delivery cut off is attempted again within a minute of the restart, with the same `webhook-id`, and none stays
 * `pending` with its queue job locked by the dead process.
 */
const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-webhook-crash-'));
let running: RunningService | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;

afterAll(async () => {
  if (running && running.child.exitCode === null && running.child.signalCode === null) {
    running.child.kill('SIGTERM');
    await running.exited;
  }
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function call(
  base: string,
  method: string,
  url: string,
  init: { body?: unknown; headers?: Record<string, string> } = {},
) {
  const response = await checkedFetch(`${base}${url}`, {
    method,
    headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text}`);
  return { json: JSON.parse(text) as Record<string, any>, headers: response.headers };
}

type Delivery = {
  id: string;
  eventId: string;
  status: string;
  nextAttemptAt: string | null;
  attempts: { statusCode: number | null; error: string | null }[];
};

describe('webhook deliveries cut off by a crash', () => {
  it('are attempted again within a minute of the restart, with the same webhook-id', async () => {
    receiver = await startReceiver(() => ({ status: 204, delayMs: 3000 }));
    const env = {
      DATA_DIR: dataDir,
      DATABASE_URL: await freshDatabaseUrl(),
      DIGEST_SIGNING_KEY: testSigningKey(),
      PORT: String(await freePort()),
      // a DATABASE_URL starts no sandbox unless asked for
      SANDBOX: 'true',
      SANDBOX_PORT: String(await freePort()),
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_CONCURRENCY: '8',
    };
    running = await spawnService(env);
    const base = running.url;
    const sandbox = `http://localhost:${env.SANDBOX_PORT}`;

    // a merchant with an API key, a webhook endpoint and a wallet that receives ten payments
    const registered = await call(base, 'POST', '/api/auth/register', {
      body: { name: 'Crash Merchant', email: 'webhook-crash@example.com', password: 'rahasia123' },
    });
    const cookie = /svc_token=([^;]+)/.exec(registered.headers.get('set-cookie') ?? '')![1]!;
    const key = (
      await call(base, 'POST', '/api/dashboard/api-keys', {
        body: { name: 'crash' },
        headers: { cookie: `svc_token=${cookie}` },
      })
    ).json.data.key as string;
    const api = (method: string, url: string, body?: unknown) =>
      call(base, method, url, { body, headers: { 'x-api-key': key } }).then(r => r.json);
    const endpointId = (await api('POST', '/api/v1/webhooks', { url: receiver.url })).data.id as string;
    const phoneNumber = `0815${String(process.pid % 10_000).padStart(4, '0')}0001`;
    const account = await api('POST', '/api/v1/accounts', {
      type: 'ewallet',
      providerCode: 'WALLET-D',
      accountName: 'Crash',
      intervalMinutes: 60,
      phoneNumber,
    });
    const accountId = account.accountId as string;
    const payments: { id: string; totalAmount: number }[] = [];
    for (let i = 0; i < 10; i++) {
      const created = await api('POST', '/api/v1/payments', {
        amount: 50_000 + i * 1000,
        walletAccountId: accountId,
        type: 'QRIS-DYNAMIC',
        redirectUrl: 'https://shop.example/thanks',
        orderId: `crash-${i}`,
      });
      payments.push(created.data);
    }
    for (const p of payments) {
      await call(sandbox, 'POST', '/sandbox/transactions', {
        body: { providerCode: 'WALLET-D', accountRef: phoneNumber, type: 'CREDIT', amount: p.totalAmount },
      });
    }
    await api('GET', `/api/v1/accounts/${accountId}/refresh`);

    // the ten payments complete; eight deliveries are in flight (the runner's eight slots), waiting for the receiver
    await eventually(async () => receiver!.received.length >= 8, 30_000);
    running.child.kill('SIGKILL');
    await running.exited;
    const cutOff = receiver.received.map(r => String(r.headers['webhook-id']));
    expect(cutOff.length).toBeGreaterThanOrEqual(8);
    expect(new Set(cutOff).size).toBe(cutOff.length);
    const beforeRestart = receiver.received.length;

    running = await spawnService(env);
    const restartedAt = Date.now();
    const deliveries = await eventually(async () => {
      const listed = (
        await call(running!.url, 'GET', `/api/v1/webhooks/${endpointId}/deliveries?limit=100`, {
          headers: { 'x-api-key': key },
        })
      ).json.data as Delivery[];
      return listed.length === 10 && listed.every(d => d.status === 'succeeded') ? listed : null;
    }, 75_000).catch(async () => {
      const listed = (
        await call(running!.url, 'GET', `/api/v1/webhooks/${endpointId}/deliveries?limit=100`, {
          headers: { 'x-api-key': key },
        })
      ).json.data as Delivery[];
      throw new Error(
        `deliveries not all succeeded 75 s after the restart: ${JSON.stringify(listed.map(d => [d.status, d.nextAttemptAt, d.attempts.length]))}`,
      );
    });

    // every delivery cut off was sent again, with the same webhook-id, within a minute of the restart
    const again = receiver.received.slice(beforeRestart);
    for (const id of cutOff) {
      const resent = again.find(r => r.headers['webhook-id'] === id);
      expect(resent, `webhook-id ${id} was not sent again`).toBeDefined();
      expect(resent!.receivedAt - restartedAt).toBeLessThan(60_000);
    }
    const eventIds = new Set(deliveries.map(d => d.eventId));
    expect(new Set(receiver.received.map(r => String(r.headers['webhook-id'])))).toEqual(eventIds);
    for (const d of deliveries) expect(d.attempts.at(-1)).toMatchObject({ statusCode: 204, error: null });
  }, 240_000);
});
