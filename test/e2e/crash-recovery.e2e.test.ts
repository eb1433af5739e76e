import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/db/free-port.ts';
import { spawnService, type RunningService } from '../support/process.ts';
import { checkedFetch } from '../support/contract-fetch.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-crash-'));
let running: RunningService | undefined;

afterAll(async () => {
  if (running && running.child.exitCode === null) {
    running.child.kill('SIGTERM');
    await running.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

let lastRefusal = '';
type Acked = { email: string; password: string; cookie: string };

async function register(url: string, n: number): Promise<Acked | null> {
  const email = `crash-${n}@example.com`;
  const password = `password-${n}`;
  try {
    const response = await checkedFetch(`${url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Crash ${n}`, email, password }),
    });
    if (response.status !== 201) {
      lastRefusal = `${response.status} ${await response.text()}`;
      return null;
    }
    const cookie = /svc_token=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
    return cookie ? { email, password, cookie } : null;
  } catch (err) {
    lastRefusal = String((err as Error)?.cause ?? err);
    return null; // the process died under this request: it was never acknowledged
  }
}

describe('a crash after acknowledging', () => {
  it('loses no acknowledged write: after SIGKILL and restart every registered user can sign in', async () => {
    const port = String(await freePort());
    // many sign-ups from one address: the register limit is not what this tests
    const env = { DATA_DIR: dataDir, PORT: port, SANDBOX_PORT: '0', REGISTER_LIMIT_PER_IP: '100000' };
    running = await spawnService(env);
    const acked: Acked[] = [];
    let next = 0;
    let killed = false;
    const writers = Array.from({ length: 6 }, async () => {
      while (!killed) {
        const result = await register(running!.url, next++);
        if (result) acked.push(result);
      }
    });
    while (acked.length < 12) await new Promise(r => setTimeout(r, 10));
    running.child.kill('SIGKILL');
    killed = true;
    await Promise.all(writers);
    await running.exited;
    expect(acked.length).toBeGreaterThanOrEqual(12);

    running = await spawnService(env);
    for (const user of acked) {
      const me = await checkedFetch(`${running.url}/api/auth/me`, { headers: { cookie: `svc_token=${user.cookie}` } });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { email: string }).email).toBe(user.email);
      const login = await checkedFetch(`${running.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: user.email, password: user.password }),
      });
      expect(login.status).toBe(200);
    }
  }, 120_000);

  it('on SIGTERM finishes the request in flight, then exits cleanly', async () => {
    const inFlight = register(running!.url, 10_000);
    await new Promise(r => setTimeout(r, 30));
    running!.child.kill('SIGTERM');
    const result = await inFlight;
    expect(result, `${lastRefusal}\n${running!.output().slice(-3000)}`).not.toBeNull();
    expect(await running!.exited).toBe(0);
  }, 60_000);
});
