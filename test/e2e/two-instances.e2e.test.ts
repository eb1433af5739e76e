import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { freePort } from '../../src/db/free-port.ts';
import { freshDatabaseUrl } from '../support/database.ts';
import { advisoryLocksHeld, spawnSandbox, spawnService, type RunningService } from '../support/process.ts';
import { eventually } from '../support/sandbox.ts';
import { testSigningKey } from '../support/signing-key.ts';
import { startReceiver } from '../webhooks/support.ts';
import { checkedFetch } from '../support/contract-fetch.ts';

/**
 * Two instances end to end: two service processes and a sandbox process started at the same moment on one fresh
 * database of the run's embedded PostgreSQL, as behind a round-robin balancer; every check bounded in count and time.
 */
const root = mkdtempSync(path.join(tmpdir(), 'svc-two-instances-'));
const keyFile = path.join(root, 'ledger-signing-key');
const running: RunningService[] = [];
let db: pg.Client | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
let a: RunningService;
let b: RunningService;
let sandbox: RunningService;

const stillRunning = (p: RunningService) => p.child.exitCode === null && p.child.signalCode === null;

afterAll(async () => {
  for (const p of running.filter(stillRunning)) p.child.kill('SIGTERM');
  await Promise.all(running.map(p => p.exited));
  await db?.end();
  await receiver?.close();
  rmSync(root, { recursive: true, force: true });
});

type Answer = { status: number; json: Record<string, any>; headers: Headers };

async function send(
  base: string,
  method: string,
  url: string,
  init: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const response = await checkedFetch(`${base}${url}`, {
    method,
    headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return {
    status: response.status,
    json: text ? (JSON.parse(text) as Record<string, any>) : {},
    headers: response.headers,
  };
}

/** Every 5xx seen, by instance: only 503 with Retry-After is allowed, and retried. */
const serverErrors: string[] = [];
let busyRetries = 0;

/** `send`, again after a 503 BUSY's Retry-After (at most 5 times); any other 5xx is recorded and answered as is. */
async function sendRetryingBusy(
  base: string,
  method: string,
  url: string,
  init: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    const answer = await send(base, method, url, init);
    if (answer.status < 500) return answer;
    const retryAfter = answer.headers.get('retry-after');
    if (answer.status !== 503 || retryAfter === null || attempt >= 5) {
      serverErrors.push(
        `${base} ${method} ${url}: ${answer.status} retry-after=${retryAfter} ${JSON.stringify(answer.json)}`,
      );
      return answer;
    }
    busyRetries++;
    await new Promise(r => setTimeout(r, Math.min(Number(retryAfter) * 1000, 1000)));
  }
}

async function ok(answer: Promise<Answer>, what: string): Promise<Record<string, any>> {
  const { status, json } = await answer;
  if (status >= 300) throw new Error(`${what}: ${status} ${JSON.stringify(json)}`);
  return json;
}

type Merchant = {
  cookie: string;
  key: string;
  api: (on: string, method: string, url: string, body?: unknown, headers?: Record<string, string>) => Promise<Answer>;
};

async function merchant(on: string, name: string): Promise<Merchant> {
  const registered = await send(on, 'POST', '/api/auth/register', {
    body: { name, email: `${name.toLowerCase().replaceAll(' ', '-')}@example.com`, password: 'rahasia123' },
  });
  expect(registered.status).toBe(201);
  const cookie = `svc_token=${/svc_token=([^;]+)/.exec(registered.headers.get('set-cookie') ?? '')![1]!}`;
  const key = (
    await ok(send(on, 'POST', '/api/dashboard/api-keys', { body: { name }, headers: { cookie } }), 'create key')
  ).data.key as string;
  return {
    cookie,
    key,
    api: (base, method, url, body, headers = {}) =>
      sendRetryingBusy(base, method, url, { body, headers: { 'x-api-key': key, ...headers } }),
  };
}

/** A WALLET-D account linked directly by phone number: its payments carry unique codes. */
async function walletAccount(m: Merchant, on: string, phoneNumber: string): Promise<string> {
  const body = {
    type: 'ewallet',
    providerCode: 'WALLET-D',
    accountName: 'Dua Instans',
    intervalMinutes: 60,
    phoneNumber,
  };
  return (await ok(m.api(on, 'POST', '/api/v1/accounts', body), 'link account')).accountId as string;
}

const phone = (n: number) => `0816${String(process.pid % 10_000).padStart(4, '0')}${String(n).padStart(4, '0')}`;
const paymentBody = (accountId: string, orderId: string, extra: Record<string, unknown> = {}) => ({
  amount: 50_000,
  walletAccountId: accountId,
  type: 'QRIS-DYNAMIC',
  redirectUrl: 'https://shop.example/thanks',
  orderId,
  ...extra,
});

let databaseUrl: string;
let m1: Merchant;
let account1: string;
const base = (i: number) => (i % 2 === 0 ? a.url : b.url);

beforeAll(async () => {
  databaseUrl = await freshDatabaseUrl();
  writeFileSync(keyFile, `${testSigningKey('two instances')}\n`, { mode: 0o600 });
  const shared = {
    DATABASE_URL: databaseUrl,
    LEDGER_SIGNING_KEY_FILE: keyFile,
    LEDGER_CHECKPOINT_DIR: path.join(root, 'checkpoints'),
    JWT_SECRET: randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    HOST: '127.0.0.1',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // each instance's own clock, moved over HTTP: the survivor's is moved past the expiry
    TEST_CLOCK: 'true',
    TEST_CLOCK_FORCE: 'true',
    DATABASE_POOL_MAX: '16',
    // the per-address limit alone: one account's slow-down across instances is limits-across-instances.int.test.ts's
    LOGIN_SLOWDOWN_AFTER: '1000',
  };
  const [portA, portB, sandboxPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
  const dir = (name: string) => mkdtempSync(path.join(root, `${name}-`));
  // all three at the same moment: the services retry the sandbox until it answers (it holds no start-up state)
  const started = Date.now();
  const starting = [
    spawnService({ ...shared, DATA_DIR: dir('a'), PORT: String(portA), SANDBOX_URL: sandboxUrl }, 90_000),
    spawnService({ ...shared, DATA_DIR: dir('b'), PORT: String(portB), SANDBOX_URL: sandboxUrl }, 90_000),
    spawnSandbox({ DATA_DIR: dir('sandbox'), SANDBOX_PORT: String(sandboxPort) }),
  ];
  const settled = await Promise.allSettled(starting);
  for (const s of settled) if (s.status === 'fulfilled') running.push(s.value);
  const failed = settled.find(s => s.status === 'rejected');
  if (failed) throw failed.reason;
  [a, b, sandbox] = running as [RunningService, RunningService, RunningService];
  console.log(`two instances and the sandbox started together in ${Date.now() - started} ms`);
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
}, 120_000);

describe('two service processes on one database, started together', () => {
  it('both are ready', async () => {
    for (const on of [a.url, b.url]) {
      const ready = await eventually(
        async () => ((await send(on, 'GET', '/ready')).status === 200 ? true : null),
        30_000,
      );
      expect(ready).toBe(true);
    }
    expect((await send(sandbox.url, 'GET', '/sandbox/faults')).status).toBeLessThan(500);
    // the start-up migrations ran once each, under their lock
    const { rows } = await db!.query<{ name: string; step: number }>('select name, step from schema_migrations');
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map(r => `${r.name} ${r.step}`)).size).toBe(rows.length);
  }, 40_000);

  it('400 payments into one account, alternating instances, 16 in flight: all created, no 5xx, no two pending with one total', async () => {
    m1 = await merchant(a.url, 'Toko Satu');
    account1 = await walletAccount(m1, b.url, phone(1));
    const total = 400;
    const created: { id: string; totalAmount: number; on: string }[] = [];
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < total) {
          const i = next++;
          const answer = await m1.api(base(i), 'POST', '/api/v1/payments', paymentBody(account1, `load-${i}`), {
            'idempotency-key': `load-${i}`,
          });
          if (answer.status === 200)
            created.push({ id: answer.json.data.id, totalAmount: answer.json.data.totalAmount, on: base(i) });
          else if (answer.status < 500)
            serverErrors.push(`payment ${i}: ${answer.status} ${JSON.stringify(answer.json)}`);
        }
      }),
    );
    const elapsed = Date.now() - started;
    console.log(
      `400 payments in ${elapsed} ms (${Math.round((total * 1000) / elapsed)}/s), ${busyRetries} retries after 503 BUSY`,
    );
    expect(serverErrors).toEqual([]);
    expect(created).toHaveLength(total);
    expect(new Set(created.map(p => p.id)).size).toBe(total);
    expect(new Set(created.map(p => p.totalAmount)).size).toBe(total);

    // the read model, once it holds all of them: no two pending payments of the account share a total
    const rows = await eventually(async () => {
      const { rows } = await db!.query<{ status: string; total_amount: string }>(
        'select status, total_amount from payments where receiving_account_id = $1',
        [account1],
      );
      return rows.length === total ? rows : null;
    }, 30_000);
    expect(rows.every(r => r.status === 'PENDING')).toBe(true);
    expect(new Set(rows.map(r => r.total_amount)).size).toBe(total);
  }, 90_000);

  it('the same Idempotency-Key sent to both instances at once creates one payment', async () => {
    for (let round = 0; round < 5; round++) {
      const body = paymentBody(account1, `same-key-${round}`);
      const headers = { 'idempotency-key': `same-key-${round}` };
      const answers = await Promise.all(
        [a.url, b.url].map(on => m1.api(on, 'POST', '/api/v1/payments', body, headers)),
      );
      expect(
        answers.map(r => r.status),
        JSON.stringify(answers.map(r => r.json)),
      ).toEqual([200, 200]);
      expect(answers[0]!.json.data.id).toBe(answers[1]!.json.data.id);
      const { rows } = await eventually(async () => {
        const found = await db!.query('select id from payments where order_id = $1', [`same-key-${round}`]);
        return found.rows.length > 0 ? found : null;
      }, 10_000);
      expect(rows).toEqual([{ id: answers[0]!.json.data.id }]);
    }
    expect(serverErrors).toEqual([]);
  }, 60_000);

  it('the login limit per address and email holds over both instances together', async () => {
    const limit = loadConfig({ DATA_DIR: path.join(root, 'config-defaults'), DIGEST_SIGNING_KEY: testSigningKey() })
      .authLimits.loginPerIpEmail.max;
    await merchant(b.url, 'Toko Tebak');
    const attempts = 2 * limit + 4;
    const answers = await Promise.all(
      Array.from({ length: attempts }, (_, i) =>
        send(base(i), 'POST', '/api/auth/login', {
          body: { email: 'toko-tebak@example.com', password: 'tebak-tebakan' },
        }),
      ),
    );
    const statuses = answers.map(r => r.status);
    console.log(
      `login: ${attempts} wrong passwords at once over both instances, limit ${limit}: ${statuses.filter(s => s === 401).length} answered 401, ${statuses.filter(s => s === 429).length} 429`,
    );
    expect(statuses.filter(s => s === 401)).toHaveLength(limit);
    expect(statuses.filter(s => s === 429)).toHaveLength(attempts - limit);
    // the right password is refused too, on either instance, until the window ends
    for (const on of [a.url, b.url])
      expect(
        (
          await send(on, 'POST', '/api/auth/login', {
            body: { email: 'toko-tebak@example.com', password: 'rahasia123' },
          })
        ).status,
      ).toBe(429);
  }, 30_000);

  it('an API key created on one instance and revoked on the other is refused on the first within a second', async () => {
    for (const [first, other] of [
      [a.url, b.url],
      [b.url, a.url],
    ] as const) {
      const created = (
        await ok(
          send(first, 'POST', '/api/dashboard/api-keys', {
            body: { name: 'short-lived' },
            headers: { cookie: m1.cookie },
          }),
          'create key',
        )
      ).data as { id: string; key: string };
      const use = (on: string) => send(on, 'GET', '/api/v1/accounts', { headers: { 'x-api-key': created.key } });
      // in use on the first instance (its cache holds it), then revoked on the other
      expect((await use(first)).status).toBe(200);
      expect((await use(other)).status).toBe(200);
      const revokeSent = Date.now();
      await ok(
        send(other, 'DELETE', `/api/dashboard/api-keys/${created.id}`, { headers: { cookie: m1.cookie } }),
        'revoke',
      );
      const revokedAt = Date.now();
      expect((await use(other)).status).toBe(401);
      // asked every 25 ms on the first instance: when the last request it accepted was sent, after the revocation
      let lastAccepted = -1;
      const refusedAt = await eventually(async () => {
        const sentAt = Date.now() - revokedAt;
        const status = (await use(first)).status;
        if (status === 200) lastAccepted = sentAt;
        return status === 401 ? sentAt : null;
      }, 5_000);
      console.log(
        `key revoked on ${other} in ${revokedAt - revokeSent} ms; on ${first}, accepted until ${lastAccepted} ms after, refused from ${refusedAt} ms`,
      );
      // no request sent a second after the revocation was accepted; the first refused is the next poll (its own duration later)
      expect(lastAccepted).toBeLessThan(1000);
      expect(refusedAt).toBeLessThan(1250);
    }
  }, 30_000);

  it('after a SIGKILL of one instance, the other completes, expires and delivers every webhook', async () => {
    // the first delivery is answered 5 s late: the kill comes while it is in flight
    receiver = await startReceiver(n => ({ status: 204, delayMs: n === 0 ? 5000 : 0 }));
    const m2 = await merchant(a.url, 'Toko Dua');
    const endpointId = (
      await ok(
        m2.api(b.url, 'POST', '/api/v1/webhooks', {
          url: receiver.url,
          events: ['payment.completed', 'payment.expired'],
        }),
        'register webhook',
      )
    ).data.id as string;
    const account2 = await walletAccount(m2, a.url, phone(2));
    const payments: { id: string; totalAmount: number }[] = [];
    for (let i = 0; i < 6; i++) {
      const created = await ok(
        m2.api(base(i), 'POST', '/api/v1/payments', paymentBody(account2, `crash-${i}`, { expiresInMinutes: 5 })),
        'create',
      );
      payments.push(created.data as { id: string; totalAmount: number });
    }
    const [paid, unpaid] = [payments.slice(0, 3), payments.slice(3)];
    const pay = (p: { totalAmount: number }) =>
      ok(
        send(sandbox.url, 'POST', '/sandbox/transactions', {
          body: { providerCode: 'WALLET-D', accountRef: phone(2), type: 'CREDIT', amount: p.totalAmount },
        }),
        'pay',
      );

    // the instance holding the subscribers' locks (applying projections and sagas) is the one killed
    const locks = await advisoryLocksHeld(db!, [a, b]);
    expect(locks[0]! + locks[1]!).toBeGreaterThan(0);
    const [killed, survivor] = locks[0]! >= locks[1]! ? [a, b] : [b, a];
    const name = (p: RunningService) => (p === a ? 'a' : 'b');
    // one payment completed through it, and its webhook on its way to the receiver, when it dies
    await pay(paid[0]!);
    await ok(m2.api(killed.url, 'GET', `/api/v1/accounts/${account2}/refresh`), 'refresh');
    await eventually(async () => receiver!.received.length >= 1, 20_000);
    killed.child.kill('SIGKILL');
    await killed.exited;
    const killedAt = Date.now();
    for (const p of paid.slice(1)) await pay(p);

    // the survivor checks the account: the other two paid payments complete
    await ok(m2.api(survivor.url, 'GET', `/api/v1/accounts/${account2}/refresh`), 'refresh');
    const statusOf = async (id: string) =>
      (await ok(m2.api(survivor.url, 'GET', `/api/v1/payments/status/${id}`), 'status')).data.status as string;
    await eventually(
      async () => (await Promise.all(paid.map(p => statusOf(p.id)))).every(s => s === 'COMPLETED'),
      30_000,
    );
    const completedAfter = Date.now() - killedAt;

    // its clock moved past the five minutes: the three unpaid ones expire (the first merchant's, due in an hour, do not)
    await ok(send(survivor.url, 'POST', '/api/test-clock', { body: { advanceSeconds: 6 * 60 } }), 'move clock');
    await eventually(
      async () => (await Promise.all(unpaid.map(p => statusOf(p.id)))).every(s => s === 'EXPIRED'),
      30_000,
    );
    const expiredAfter = Date.now() - killedAt;
    const { rows } = await db!.query<{ n: string }>(
      "select count(*) as n from payments where receiving_account_id = $1 and status = 'PENDING'",
      [account1],
    );
    expect(Number(rows[0]!.n)).toBe(405);

    // every webhook reaches the receiver (the one cut off, if its sender died, again), and the delivery log says so
    const wanted = [
      ...paid.map(p => `payment.completed ${p.id}`),
      ...unpaid.map(p => `payment.expired ${p.id}`),
    ].sort();
    const receivedKinds = () => {
      // a request the receiver never answered (its sender died) counts only through its re-send
      const first = receiver!.received[0]!;
      const resent = receiver!.received.filter(r => r.headers['webhook-id'] === first.headers['webhook-id']).length > 1;
      return [
        ...new Set(
          (resent ? receiver!.received.slice(1) : receiver!.received).map(r => {
            const body = JSON.parse(r.body) as { type: string; data: { id: string } };
            return `${body.type} ${body.data.id}`;
          }),
        ),
      ].sort();
    };
    type Delivery = { status: string; attempts: { state: string }[] };
    const deliveries = await eventually(async () => {
      const listed = (
        await ok(m2.api(survivor.url, 'GET', `/api/v1/webhooks/${endpointId}/deliveries?limit=100`), 'deliveries')
      ).data as Delivery[];
      return listed.length === wanted.length && listed.every(d => d.status === 'succeeded') ? listed : null;
    }, 90_000).catch(async err => {
      const listed = (await m2.api(survivor.url, 'GET', `/api/v1/webhooks/${endpointId}/deliveries?limit=100`)).json
        .data as Delivery[];
      throw new Error(
        `${String(err)}: deliveries ${JSON.stringify(listed.map(d => [d.status, d.attempts.map(t => t.state)]))}`,
      );
    });
    const deliveredAfter = Date.now() - killedAt;
    expect(receivedKinds()).toEqual(wanted);
    const firstId = receiver.received[0]!.headers['webhook-id'];
    const firstResent = receiver.received.filter(r => r.headers['webhook-id'] === firstId).length > 1;
    const resentAt = receiver.received.filter(r => r.headers['webhook-id'] === firstId).at(-1)!.receivedAt;
    const attempts = deliveries.map(d => d.attempts.map(t => t.state).join('+'));
    const survivorLocks = (await advisoryLocksHeld(db!, [survivor]))[0]!;
    console.log(
      `killed ${name(killed)} (advisory locks a ${locks[0]}, b ${locks[1]}); the delivery in flight ${firstResent ? `cut off and re-sent ${resentAt - killedAt} ms after the kill` : 'answered'}; ` +
        `after the SIGKILL: completed in ${completedAfter} ms, expired in ${expiredAfter} ms, all delivered in ${deliveredAfter} ms; attempts ${attempts.join(', ')}; ` +
        `survivor's advisory locks now ${survivorLocks}`,
    );
    expect(survivorLocks).toBeGreaterThan(0);
    // one cut off is sent again within about deadAfterMs + heartbeatMs (20 + 5 s) of the crash (docs/guide/webhooks.md)
    if (firstResent) expect(resentAt - killedAt).toBeLessThan(30_000);
    // a delivery cut off by the crash shows as interrupted beside its re-send; none other has more than one attempt
    const cutOff = firstResent ? 1 : 0;
    expect(attempts.filter(t => t === 'finished')).toHaveLength(wanted.length - cutOff);
    expect(attempts.filter(t => t.split('+').sort().join('+') === 'finished+interrupted')).toHaveLength(cutOff);
    expect(serverErrors).toEqual([]);
  }, 150_000);
});
