/**
 * Payment creation over HTTP: `POST /api/v1/payments` (QRIS-DYNAMIC into linked sandbox wallets) under autocannon,
 * against a bare fastify route doing one prepared INSERT into the same PostgreSQL, in the same process and run.
 * Three loads: the bare route saturated, ours saturated (autocannon, 32 connections, in rounds of both), and ours at
 * half the bare route's rate, sent at a steady pace (runPaced: an open loop, latency from each request's due time),
 * where the goal's p99 is read. Then the time from a sandbox payment to the webhook's arrival.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { Pool } from 'undici';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { createService, type Service } from '../src/service.ts';
import { fmtInt, fmtRatio, markdownTable, runPaced, startBenchPostgres, textTable, writeResults, type BenchContext, type BenchPostgres } from './harness.ts';

type Merchant = { key: string; accountIds: string[]; phones: string[] };
type Cannon = {
  rps: number; p50: number; p90: number; p99: number; max: number; non2xx: number; errors: number; total: number;
  /** CPU per request during the load, in µs: this Node process (service, bare route and autocannon alike) and PostgreSQL */
  nodeCpuUs?: number; pgCpuUs?: number | null;
};

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const json = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${url}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** A merchant: registered, with an API key and `accounts` WALLET-D accounts linked through the sandbox. */
async function merchant(baseUrl: string, n: number, accounts: number): Promise<Merchant> {
  const email = `merchant${n}-${Date.now()}@bench.example`;
  const registered = await fetch(`${baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: `Merchant ${n}`, email, password: 'rahasia123' }),
  });
  const cookie = registered.headers.get('set-cookie')!.split(';')[0]!;
  const key = ((await postJson(`${baseUrl}/api/dashboard/api-keys`, { name: 'bench' }, { cookie })).data as { key: string }).key;
  const accountIds: string[] = [];
  const phones: string[] = [];
  for (let i = 0; i < accounts; i++) {
    const phoneNumber = `0819${String(n).padStart(3, '0')}${String(i).padStart(5, '0')}`;
    const linked = await postJson(
      `${baseUrl}/api/v1/accounts`,
      { type: 'ewallet', providerCode: 'WALLET-D', accountName: `Till ${i}`, intervalMinutes: 1440, phoneNumber },
      { 'x-api-key': key },
    );
    accountIds.push(linked.accountId as string);
    phones.push(phoneNumber);
  }
  return { key, accountIds, phones };
}

function cannon(opts: autocannon.Options): Promise<Cannon> {
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, result) => {
      if (err) return reject(err);
      resolve({
        rps: result.requests.average,
        p50: result.latency.p50,
        p90: result.latency.p90,
        p99: result.latency.p99,
        max: result.latency.max,
        non2xx: result.non2xx,
        errors: result.errors + result.timeouts,
        total: result.requests.total,
      });
    });
  });
}

/** The peer: one prepared INSERT of a similar row per request, JSON in and out, same PostgreSQL, same pool size. */
async function bareRoute(databaseUrl: string, poolSize: number) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  await pool.query(`create table if not exists bare_payments (id uuid primary key, order_id text not null, amount bigint not null, body jsonb not null, created_at timestamptz not null default now())`);
  const app = Fastify({ logger: false });
  app.post('/bare', async request => {
    const body = request.body as { orderId: string; amount: number };
    const id = randomUUID();
    await pool.query({ name: 'bare-insert', text: 'insert into bare_payments (id, order_id, amount, body) values ($1, $2, $3, $4)', values: [id, body.orderId, body.amount, body] });
    return { status: 'success', data: { id, amount: body.amount } };
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: async () => { await app.close(); await pool.end(); } };
}

/** One POST of a load: where it goes, its headers and its body. */
type Post = { path: string; headers: Record<string, string>; body: string };

/** The next payment to create: the merchants' accounts in turn, amounts varied, a fresh order id each time. */
const paymentPosts = (merchants: Merchant[]) => {
  let n = 0;
  const targets = merchants.flatMap(m => m.accountIds.map(accountId => ({ key: m.key, accountId })));
  return (): Post => {
    const target = targets[n++ % targets.length]!;
    const body = JSON.stringify({ amount: 10_000 + (n % 50) * 1_000, walletAccountId: target.accountId, redirectUrl: 'https://shop.example/thanks', orderId: `bench-${n}-${randomUUID()}` });
    return { path: '/api/v1/payments', headers: { 'content-type': 'application/json', 'x-api-key': target.key }, body };
  };
};

/** The next bare route request: a body like a payment's, a fresh order id each time. */
const barePosts = () => {
  let n = 0;
  return (): Post => ({
    path: '/bare',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 10_000 + (++n % 50) * 1_000, walletAccountId: randomUUID(), redirectUrl: 'https://shop.example/thanks', orderId: `bench-${n}-${randomUUID()}` }),
  });
};

/** The same POSTs as autocannon's requests (each connection's next request takes the next POST). */
const cannonRequests = (next: () => Post) => [
  { method: 'POST' as const, setupRequest: (request: autocannon.Request) => ({ ...request, ...next() }) },
];

/**
 * Requests sent at a steady rate (runPaced: an open loop, latency from each request's due time) over undici's
 * keep-alive pool, measured (by `measure`, which adds the CPU) after a warm-up at the same rate through the same pool:
 * a cold pool opens its connections while the first requests queue, and that start alone put seconds into the p99.
 */
async function pacedLoad(
  baseUrl: string,
  next: () => Post,
  rate: number,
  durationMs: number,
  signal: AbortSignal,
  measure: (load: () => Promise<Cannon>) => Promise<Cannon>,
): Promise<Cannon> {
  const maxInFlight = 256;
  const pool = new Pool(baseUrl, { connections: maxInFlight, pipelining: 1 });
  let non2xx = 0;
  const post = async () => {
    const { path, headers, body } = next();
    const response = await pool.request({ path, method: 'POST', headers, body });
    if (response.statusCode >= 300) non2xx++;
    await response.body.dump();
  };
  try {
    await runPaced({ rate, durationMs: Math.min(3000, durationMs / 2), maxInFlight, signal, operation: post });
    non2xx = 0;
    return await measure(async () => {
      const run = await runPaced({ rate, durationMs, maxInFlight, signal, operation: post });
      const sorted = run.latencies.sort((a, b) => a - b);
      return {
        rps: run.completed / run.seconds,
        p50: percentile(sorted, 50),
        p90: percentile(sorted, 90),
        p99: percentile(sorted, 99),
        max: sorted.at(-1) ?? NaN,
        non2xx,
        errors: run.failed,
        total: run.completed,
      };
    });
  } finally {
    await pool.close();
  }
}

/** Steady loads lighter than the goal's, as fractions of the bare route's rate. */
const lighterFractions = [0.4, 0.3];

/** The run with the median rate. */
const medianRun = (runs: Cannon[]) => [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)]!;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
const latencyCells = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return [fmtInt(sorted.length), ...[50, 90, 99].map(p => percentile(sorted, p).toFixed(0)), (sorted.at(-1) ?? NaN).toFixed(0)];
};

/**
 * A merchant with a webhook endpoint on this machine: each payment is paid in the sandbox (a transfer of its total
 * into the wallet), the merchant asks for a sync, and the time until the signed payment.completed arrives is kept.
 */
async function paymentToWebhook(baseUrl: string, sandboxUrl: string, m: Merchant, count: number, concurrency: number) {
  const arrived = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', c => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(204).end();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { id: string } };
      if (body.type !== 'payment.completed') return;
      arrived.set(body.data.id, at);
      waiters.get(body.data.id)?.();
    });
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await postJson(`${baseUrl}/api/v1/webhooks`, { url: `http://127.0.0.1:${port}/hooks` }, { 'x-api-key': m.key });
  const fromPayment: number[] = [];
  const fromRefresh: number[] = [];
  let next = 0;
  const worker = async (lane: number) => {
    const accountId = m.accountIds[lane % m.accountIds.length]!;
    const phone = m.phones[lane % m.phones.length]!;
    while (next < count) {
      next++;
      const created = (await postJson(`${baseUrl}/api/v1/payments`, { amount: 20_000, walletAccountId: accountId, redirectUrl: 'https://shop.example/thanks', orderId: `latency-${randomUUID()}` }, { 'x-api-key': m.key })).data as { id: string; totalAmount: number };
      const seen = new Promise<void>(resolve => (arrived.has(created.id) ? resolve() : waiters.set(created.id, resolve)));
      const paidAt = performance.now();
      await postJson(`${sandboxUrl}/sandbox/payments`, { accountNumber: phone, providerCode: 'WALLET-D', amount: created.totalAmount });
      const refreshAt = performance.now();
      const refreshed = await fetch(`${baseUrl}/api/v1/accounts/${accountId}/refresh`, { headers: { 'x-api-key': m.key } });
      const answer = await refreshed.text();
      if (!refreshed.ok) throw new Error(`refresh ${accountId}: ${refreshed.status} ${answer}`);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no webhook for payment ${created.id} within 60 s`)), 60_000)));
      await Promise.race([seen, late]).finally(() => clearTimeout(timer));
      fromPayment.push(arrived.get(created.id)! - paidAt);
      fromRefresh.push(arrived.get(created.id)! - refreshAt);
    }
  };
  // one lane per account: two syncs of one account at once would only wait on each other
  await Promise.all(Array.from({ length: Math.min(concurrency, m.accountIds.length) }, (_, lane) => worker(lane)));
  server.closeAllConnections();
  await new Promise<void>(resolve => server.close(() => resolve()));
  return { fromPayment, fromRefresh };
}

export async function run(ctx: BenchContext): Promise<void> {
  const duration = ctx.quick ? 4 : 10;
  // the two routes take turns, so that a slower minute of this shared machine weighs on both alike
  // five pairs: this machine's speed drifts by a third from one minute to the next, and a pair's ratio cancels most of it
  const rounds = ctx.quick ? 1 : 5;
  const connections = 32;
  const merchantsCount = 4;
  const accountsEach = ctx.quick ? 3 : 10;
  const latencyPayments = ctx.quick ? 40 : 300;
  const latencyConcurrency = 8;
  console.log(`payment creation: ${merchantsCount} merchants × ${accountsEach} WALLET-D accounts, autocannon ${connections} connections, ${duration} s per load`);
  if (os.loadavg()[0]! > os.cpus().length * 0.5) console.warn(`  note: load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs, the results will be noisy`);

  let db: BenchPostgres | undefined;
  let service: Service | undefined;
  let bare: Awaited<ReturnType<typeof bareRoute>> | undefined;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-payments-data-'));
  try {
    db = await startBenchPostgres('bench-payments');
    const url = await db.createDatabase('bench_payments');
    const config = loadConfig({ DATA_DIR: dataDir, DATABASE_URL: url, PORT: '0', SANDBOX_PORT: '0', LOG_LEVEL: 'silent', HOST: '127.0.0.1', WEBHOOK_ALLOW_PRIVATE: 'true' });
    service = await createService(config, { log: createLogger('silent'), startSandbox: true });
    const baseUrl = (await service.listen()).replace('localhost', '127.0.0.1');
    const merchants: Merchant[] = [];
    for (let i = 0; i < merchantsCount; i++) merchants.push(await merchant(baseUrl, i, accountsEach));
    bare = await bareRoute(url, service.pool.options.max ?? 30);

    // warm-up of both paths (JIT, prepared statements, static QRIS captured per account)
    await cannon({ url: baseUrl, connections: 8, duration: 2, requests: cannonRequests(paymentPosts(merchants)) });
    await cannon({ url: bare.url, connections: 8, duration: 2, requests: cannonRequests(barePosts()) });

    // CPU per request while a load runs: this process (all threads) and PostgreSQL's process tree
    const withCpu = async (load: () => Promise<Cannon>): Promise<Cannon> => {
      const node0 = process.cpuUsage();
      const pg0 = db!.cpuMs();
      const result = await load();
      const node = process.cpuUsage(node0);
      const pg1 = db!.cpuMs();
      return { ...result, nodeCpuUs: (node.user + node.system) / result.total, pgCpuUs: pg0 === null || pg1 === null ? null : ((pg1 - pg0) * 1000) / result.total };
    };
    const bareRounds: Cannon[] = [];
    const oursRounds: Cannon[] = [];
    const bareUrl = bare.url;
    const bareLoad = async (round: number) => {
      console.log(`round ${round} of ${rounds}: bare INSERT route, saturated ...`);
      bareRounds.push(await withCpu(() => cannon({ url: bareUrl, connections, duration, requests: cannonRequests(barePosts()) })));
    };
    const oursLoad = async (round: number) => {
      console.log(`round ${round} of ${rounds}: POST /api/v1/payments, saturated ...`);
      oursRounds.push(await withCpu(() => cannon({ url: baseUrl, connections, duration, requests: cannonRequests(paymentPosts(merchants)) })));
    };
    // bare first in odd rounds, ours first in even ones: a machine getting faster or slower favours neither
    for (let round = 1; round <= rounds; round++)
      if (round % 2 === 1) await bareLoad(round).then(() => oursLoad(round));
      else await oursLoad(round).then(() => bareLoad(round));
    const bareSaturated = medianRun(bareRounds);
    const oursSaturated = medianRun(oursRounds);
    const ratios = oursRounds.map((o, i) => o.rps / bareRounds[i]!.rps);
    const roundRatios = ratios.map(fmtRatio).join(', ');
    // the goal's ratio: the median of the rounds' ratios (each round's two loads ran a minute apart at most)
    const ratio = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)]!;
    const goalRate = Math.max(1, Math.round(bareSaturated.rps / 2));
    console.log(`POST /api/v1/payments at ${fmtInt(goalRate)} req/s (half the bare route's rate) ...`);
    const oursAtGoal = await pacedLoad(baseUrl, paymentPosts(merchants), goalRate, duration * 1000, ctx.signal, withCpu);
    // the latency's peer: the bare route at the same steady rate, through the same load generator
    console.log(`bare INSERT route at ${fmtInt(goalRate)} req/s ...`);
    const bareAtGoal = await pacedLoad(bareUrl, barePosts(), goalRate, duration * 1000, ctx.signal, withCpu);
    // lighter steady loads, to show where the latency goal holds
    const lighter: { fraction: number; rate: number; run: Cannon }[] = [];
    for (const fraction of ctx.quick ? [] : lighterFractions) {
      const rate = Math.max(1, Math.round(bareSaturated.rps * fraction));
      console.log(`POST /api/v1/payments at ${fmtInt(rate)} req/s (${fmtRatio(fraction)} the bare route's rate) ...`);
      lighter.push({ fraction, rate, run: await pacedLoad(baseUrl, paymentPosts(merchants), rate, duration * 1000, ctx.signal, withCpu) });
    }

    // the request path's ceiling: the goal's load with the projections and sagas paused, who catch up afterwards (last,
    // so that their catching up weighs on no other load)
    console.log(`POST /api/v1/payments at ${fmtInt(goalRate)} req/s, projections and sagas paused ...`);
    await service.sagas.stop();
    await service.projections.stop();
    const requestPathAtGoal = await pacedLoad(baseUrl, paymentPosts(merchants), goalRate, duration * 1000, ctx.signal, withCpu);
    await service.projections.start();
    await service.sagas.start();
    const head = await service.store.headPosition();
    if (!(await service.projections.waitFor(head, 300_000)) || !(await service.sagas.waitFor(head, 300_000)))
      throw new Error('the projections and sagas did not catch up after the pause');

    console.log(`payment → webhook: ${fmtInt(latencyPayments)} payments paid in the sandbox, ${latencyConcurrency} at a time ...`);
    const latency = await paymentToWebhook(baseUrl, service.sandboxUrl!, merchants[0]!, latencyPayments, latencyConcurrency);

    const row = (name: string, c: Cannon, reference: string) => [name, fmtInt(c.rps), c.p50.toFixed(1), c.p99.toFixed(1), c.max.toFixed(0), fmtInt(c.non2xx + c.errors), fmtInt(c.nodeCpuUs), fmtInt(c.pgCpuUs), reference];
    const header = ['load', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'non-2xx + errors', 'Node CPU µs/req', 'PG CPU µs/req', 'compared with'];
    const rows = [
      row(`bare INSERT route, saturated (median of ${rounds})`, bareSaturated, `the peer (rounds: ${bareRounds.map(r => fmtInt(r.rps)).join(', ')} req/s)`),
      row(`POST /api/v1/payments, saturated (median of ${rounds})`, oursSaturated, `${fmtRatio(ratio)} of the bare route (median of the rounds: ${roundRatios})`),
      row(`POST /api/v1/payments at ${fmtInt(goalRate)} req/s`, oursAtGoal, 'half the bare route'),
      row(`bare INSERT route at ${fmtInt(goalRate)} req/s`, bareAtGoal, 'the peer at the same steady load'),
      row(`POST /api/v1/payments at ${fmtInt(goalRate)} req/s, projections and sagas paused`, requestPathAtGoal, 'the request path alone (ceiling)'),
      ...lighter.map(l => row(`POST /api/v1/payments at ${fmtInt(l.rate)} req/s`, l.run, `${fmtRatio(l.fraction)} the bare route`)),
    ];
    const goals = [
      ['creation rate ≥ 50 % of the bare route', fmtRatio(ratio), ratio >= 0.5 ? 'PASS' : 'MISS'],
      ['p99 < 50 ms at half the bare rate', `${oursAtGoal.p99.toFixed(1)} ms`, oursAtGoal.p99 < 50 && oursAtGoal.rps >= goalRate * 0.95 ? 'PASS' : 'MISS'],
    ];
    const latencyHeader = ['from', 'to', 'count', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'];
    const latencyRows = [
      ['sandbox payment made', 'webhook received', ...latencyCells(latency.fromPayment)],
      ['sync asked (refresh)', 'webhook received', ...latencyCells(latency.fromRefresh)],
    ];
    console.log(`\n${textTable(header, rows)}\n\n${textTable(['goal', 'actual', 'result'], goals)}\n\n${textTable(latencyHeader, latencyRows)}`);

    const markdown = [
      '# Payment creation',
      '',
      `${new Date().toISOString()}, ${os.cpus().length} vCPU, PostgreSQL ${db.version} (embedded), ${merchantsCount} merchants × ${accountsEach} WALLET-D accounts, autocannon ${connections} connections, ${duration} s per load; the saturated loads in ${rounds} rounds of both (bare first in odd rounds, ours first in even ones); the rate's ratio is the median of the rounds' ratios.`,
      '',
      markdownTable(header, rows),
      '',
      markdownTable(['goal', 'actual', 'result'], goals),
      '',
      `The load at half the bare rate is sent at a steady pace, one request every 1/rate s over up to 256 keep-alive connections (undici), after a warm-up of 3 s at that rate through the same connections (not counted), and each latency counts from the moment its request was due: autocannon's own rate limit sends each second's quota at once, as fast as its connections go, which measures a burst at saturation rather than that load. A service slower than the pace falls behind, and its p99 shows it. The bare route at the same steady load is the latency's peer: what this machine and load generator give the simplest route. The same load with the projections and sagas paused (they catch up afterwards, before the next load) is the request path's ceiling: what the latency would be if the read models and sagas cost nothing. The lighter steady loads (${lighterFractions.map(fmtRatio).join(', ')} the bare rate) show where the latency goal holds.`,
      '',
      `Payment to webhook (${fmtInt(latencyPayments)} payments, ${latencyConcurrency} at a time; the merchant asks for a sync right after the customer paid, as the scheduled sync would after its interval):`,
      '',
      markdownTable(latencyHeader, latencyRows),
      '',
      'The bare route: fastify, JSON body, one named prepared INSERT of a row like a payment, on the same PostgreSQL with the same pool size, in the same process. Ours: API-key check (cached a second), validation, the receiving account from the state cache, the unique-code decision, and one atomic append of the order claim, the payable reservation and the payment (guarded on the account revision), written in a group-commit batch with the concurrent ones; then the projections and sagas of this process handle the three events.',
    ].join('\n');
    const written = writeResults('payments', { bareRounds, oursRounds, ratio, bareSaturated, oursSaturated, oursAtGoal, bareAtGoal, requestPathAtGoal, goalRate, lighter, merchantsCount, accountsEach, connections, duration, rounds, latency }, markdown);
    console.log(`\nwrote ${written.json}\nwrote ${written.md}`);
  } finally {
    await bare?.close();
    await service?.close();
    await db?.stop();
  }
}

