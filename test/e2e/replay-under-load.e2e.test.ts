import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/db/free-port.ts';
import { projections } from '../../src/projections/all.ts';
import { spawnService, type RunningService } from '../support/process.ts';
import { checkedFetch } from '../support/contract-fetch.ts';

const root = path.resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-replay-'));
let running: RunningService | undefined;

afterAll(async () => {
  if (running && running.child.exitCode === null) {
    running.child.kill('SIGTERM');
    await running.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));

/** The CLI on the service's DATA_DIR (it shares the service's embedded database). */
function runCli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'silent', DATA_DIR: dataDir },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', c => (out += c));
    child.stderr.on('data', c => (err += c));
    child.on('error', reject);
    child.on('exit', code => resolve({ code, out, err }));
  });
}

/** GETs `route` every 50 ms until stopped: every answer's status and the slowest one's time. */
function watch(url: string, route: string, headers: Record<string, string> = {}) {
  const seen = { stop: false, answers: 0, notOk: [] as number[], slowestMs: 0 };
  const done = (async () => {
    while (!seen.stop) {
      const started = performance.now();
      const response = await checkedFetch(`${url}${route}`, { headers });
      await response.arrayBuffer();
      seen.slowestMs = Math.max(seen.slowestMs, performance.now() - started);
      seen.answers++;
      if (!response.ok) seen.notOk.push(response.status);
      await sleep(50);
    }
  })();
  return { seen, done };
}

describe('verify-read-models and rebuild-read-models on a running service under payment load', () => {
  it('both finish, the service answers within 1 s throughout, and the rebuilt read models are what history says', async () => {
    const sandboxPort = await freePort();
    running = await spawnService({
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      SANDBOX_PORT: String(sandboxPort),
    });
    const url = running.url;
    const registered = await checkedFetch(`${url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Toko', email: 'toko@example.com', password: 'rahasia123' }),
    });
    const cookie = /svc_token=([^;]+)/.exec(registered.headers.get('set-cookie') ?? '')![1]!;
    const keyed = await checkedFetch(`${url}/api/dashboard/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `svc_token=${cookie}` },
      body: JSON.stringify({ name: 'shop' }),
    });
    const key = ((await keyed.json()) as { data: { key: string } }).data.key;
    const call = async (method: string, route: string, body?: unknown) => {
      const response = await checkedFetch(`${url}${route}`, {
        method,
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await response.text();
      return {
        status: response.status,
        text,
        body: JSON.parse(text) as { accountId?: string; data?: { id: string; totalAmount: number } },
      };
    };
    const phoneNumber = '081234567890';
    const linked = await call('POST', '/api/v1/accounts', {
      type: 'ewallet',
      providerCode: 'WALLET-D',
      accountName: 'Toko',
      intervalMinutes: 60,
      phoneNumber,
    });
    expect(linked.status).toBe(200);
    const accountId = linked.body.accountId!;

    // the load: payments created one after another, and now and then one paid at the provider and synced (completed)
    const created: { id: string; totalAmount: number }[] = [];
    const createPayment = async () => {
      const n = created.length;
      const answer = await call('POST', '/api/v1/payments', {
        amount: 10_000 + n,
        walletAccountId: accountId,
        type: 'QRIS-DYNAMIC',
        redirectUrl: 'https://shop.example/thanks',
        orderId: `INV-${n}`,
      });
      expect(answer.status, `${answer.text}\n${running!.output().slice(-3000)}`).toBe(200);
      created.push(answer.body.data!);
    };
    const payOne = async (i: number) => {
      await checkedFetch(`http://127.0.0.1:${sandboxPort}/sandbox/payments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ accountNumber: phoneNumber, providerCode: 'WALLET-D', amount: created[i]!.totalAmount }),
      });
      expect((await call('GET', `/api/v1/accounts/${accountId}/refresh`)).status).toBe(200);
    };
    for (let i = 0; i < 150; i++) await createPayment();
    for (let i = 0; i < 150; i += 30) await payOne(i);

    const load = { stop: false };
    const loading = (async () => {
      for (let round = 0; !load.stop; round++) {
        await createPayment();
        if (round % 10 === 0) await payOne(created.length - 1);
      }
    })();
    loading.catch(() => undefined); // awaited below
    const health = watch(url, '/health');
    const readModel = watch(url, `/api/v1/payments/status/${created[0]!.id}`, { 'x-api-key': key });
    try {
      const verified = await runCli(['verify-read-models']);
      expect(verified.code, verified.out + verified.err).toBe(0);
      for (const p of projections) expect(verified.out).toContain(`${p.name}: matches history`);
      const before = created.length;
      const rebuilt = await runCli(['rebuild-read-models']);
      expect(rebuilt.code, rebuilt.out + rebuilt.err).toBe(0);
      for (const p of projections) expect(rebuilt.out).toMatch(new RegExp(`${p.name}: replayed \\d+ events`));
      expect(created.length, 'payments went on being created during the runs').toBeGreaterThan(before);
    } finally {
      load.stop = health.seen.stop = readModel.seen.stop = true;
      await Promise.all([loading, health.done, readModel.done]);
    }
    for (const { seen } of [health, readModel]) {
      expect(seen.notOk).toEqual([]);
      expect(seen.answers).toBeGreaterThan(10);
      expect(seen.slowestMs, 'the slowest answer during the runs').toBeLessThan(1000);
    }

    // every payment, created before, during or after the swap, is served from the rebuilt read model
    for (const { id } of created) expect((await call('GET', `/api/v1/payments/status/${id}`)).status).toBe(200);
    const after = await runCli(['verify-read-models']);
    expect(after.code, after.out + after.err).toBe(0);
    for (const p of projections) expect(after.out).toContain(`${p.name}: matches history`);
  }, 240_000);
});
