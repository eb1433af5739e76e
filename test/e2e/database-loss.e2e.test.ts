import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseUrl, startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { freePort } from '../../src/db/free-port.ts';
import { keyHolder } from '../support/http.ts';
import { createPayment, linkServiceWallet, paymentBody } from '../support/payments.ts';
import { spawnService, type RunningService } from '../support/process.ts';
import { eventually } from '../support/sandbox.ts';
import { startTestService } from '../support/service.ts';
import { checkedFetch } from '../support/contract-fetch.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-dbloss-'));
let running: RunningService | undefined;

afterAll(async () => {
  if (running && running.child.exitCode === null) {
    running.child.kill('SIGTERM');
    await running.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

async function json(response: Response) {
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown> & { data?: Record<string, unknown> },
  };
}

/** A user with an API key and a WALLET-D account to be paid into, through HTTP as a merchant would. */
async function merchant(url: string) {
  const registered = await checkedFetch(`${url}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Toko', email: 'toko@example.com', password: 'rahasia123' }),
  });
  const cookie = /svc_token=([^;]+)/.exec(registered.headers.get('set-cookie') ?? '')![1]!;
  const created = await json(
    await checkedFetch(`${url}/api/dashboard/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `svc_token=${cookie}` },
      body: JSON.stringify({ name: 'shop' }),
    }),
  );
  const key = created.body.data!.key as string;
  const call = (method: string, route: string, body?: unknown) =>
    checkedFetch(`${url}${route}`, {
      method,
      headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  const linked = await json(
    await call('POST', '/api/v1/accounts', {
      type: 'ewallet',
      providerCode: 'WALLET-D',
      accountName: 'Toko',
      intervalMinutes: 60,
      phoneNumber: '081234567890',
    }),
  );
  expect(linked.status).toBe(200);
  return { call, accountId: linked.body.accountId as string };
}

describe('losing the database under a running service', () => {
  it('answers 503 with Retry-After (never 500) while its PostgreSQL is down, restarts it, and serves every acknowledged payment again', async () => {
    const port = await freePort();
    running = await spawnService({ DATA_DIR: dataDir, PORT: String(port), SANDBOX_PORT: String(await freePort()) });
    const { call, accountId } = await merchant(running.url);

    const acked: string[] = [];
    const statuses = new Map<number, number>();
    let retryAfterMissing = 0;
    let order = 0;
    const create = async () => {
      const response = await call('POST', '/api/v1/payments', {
        amount: 25_000,
        walletAccountId: accountId,
        type: 'QRIS-DYNAMIC',
        redirectUrl: 'https://shop.example/thanks',
        orderId: `INV-${++order}`,
      });
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (response.status === 503 && !response.headers.get('retry-after')) retryAfterMissing++;
      const body = (await response.json()) as { data?: { id: string } };
      if (response.status === 200) acked.push(body.data!.id);
      return response.status;
    };
    for (let i = 0; i < 10; i++) expect(await create()).toBe(200);

    const postmaster = Number(readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const outputBefore = running.output().length;
    process.kill(postmaster, 'SIGKILL');
    const killedAt = Date.now();

    // payments keep being created and read while it is down, and until it answers again
    let served = false;
    let saw503 = false;
    while (!served) {
      expect(
        Date.now() - killedAt,
        `no 200 within 60 s; statuses ${JSON.stringify([...statuses])}\n${running.output().slice(-3000)}`,
      ).toBeLessThan(60_000);
      const status = await create();
      const read = await call('GET', `/api/v1/payments/status/${acked[0]}`);
      statuses.set(read.status, (statuses.get(read.status) ?? 0) + 1);
      if (read.status === 503 && !read.headers.get('retry-after')) retryAfterMissing++;
      saw503 ||= status === 503 || read.status === 503;
      served = saw503 && status === 200 && read.status === 200;
      await new Promise(r => setTimeout(r, 100));
    }

    expect([...statuses.keys()].sort()).toEqual([200, 503]);
    expect(retryAfterMissing).toBe(0);
    for (const id of acked) {
      const read = await json(await call('GET', `/api/v1/payments/status/${id}`));
      expect(read.status).toBe(200);
      expect(read.body.data!.status).toBe('PENDING');
    }
    const ready = await (async () => {
      for (let i = 0; i < 100; i++) {
        const r = await checkedFetch(`${running!.url}/ready`);
        if (r.status === 200) return true;
        await new Promise(r => setTimeout(r, 200));
      }
      return false;
    })();
    expect(ready, running.output().slice(-3000)).toBe(true);

    // the outage is a few lines in the log, not one per failed call
    const outage = running.output().slice(outputBefore).split('\n').filter(Boolean);
    expect(outage.filter(l => l.includes('database unreachable'))).toHaveLength(1);
    expect(outage.length, outage.join('\n')).toBeLessThan(30);
  }, 120_000);
});

describe('a database given by DATABASE_URL that goes away', () => {
  it('answers 503 while it is away and reconnects by itself when it is back', async () => {
    const pgDir = mkdtempSync(path.join(tmpdir(), 'svc-dburl-'));
    const port = await freePort();
    let server = await startEmbeddedPostgres({ dataDir: pgDir, password: 'elsewhere', port });
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query('create database service');
    await admin.end();
    const service = await startTestService({ DATABASE_URL: databaseUrl(server.url, 'service') });
    try {
      const caller = await keyHolder(service);
      const { accountId } = await linkServiceWallet(caller);
      const created = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));

      await server.stop();
      const away = await caller.call('GET', `/api/v1/payments/status/${created.id}`);
      expect(away.statusCode).toBe(503);
      expect(away.headers['retry-after']).toBe('5');
      expect(away.json()).toMatchObject({ status: 'error', code: 'DATABASE_UNAVAILABLE' });
      expect((await service.app.inject({ url: '/ready' })).statusCode).toBe(503);

      server = await startEmbeddedPostgres({ dataDir: pgDir, password: 'elsewhere', port });
      const back = await eventually(async () => {
        const r = await caller.call('GET', `/api/v1/payments/status/${created.id}`);
        return r.statusCode === 200 && r;
      });
      expect(back.json().data.status).toBe('PENDING');
      await eventually(async () => (await service.app.inject({ url: '/ready' })).statusCode === 200);
      // writes go through again, and the read models and sagas follow them
      const after = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
      expect((await caller.call('GET', `/api/v1/payments/status/${after.id}`)).statusCode).toBe(200);
    } finally {
      await service.close();
      await server.stop();
      rmSync(pgDir, { recursive: true, force: true });
    }
  }, 120_000);
});
