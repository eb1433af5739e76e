/**
 * GET /api/v1/gateway/transactions (the merchant's statement) over a merchant with 1,000,000 entries, page by page,
 * against the same query run directly in PostgreSQL in the same run. Goal: every page's p95 under 20 ms.
 *
 * The service runs in-process as mutations-query runs it (createService + listen(): the real routes, real HTTP on
 * 127.0.0.1); its user and API key are made through HTTP. The statement read model (gateway_statement) is bulk-loaded
 * with SQL (generate_series), because this benchmark measures reads: the merchant's 1,000,000 entries over a year plus
 * 40 other merchants' 25,000 each, inserted in time order across all merchants (as the projection writes them, so one
 * merchant's rows are spread over the table), and the merchant's payments (the page joins them for the order id).
 *
 * Each case (first, middle and last page; type and from/to filters) runs sequentially, request by request alternating:
 *  - HTTP: GET /api/v1/gateway/transactions?... with the API key over one keep-alive connection;
 *  - SQL: the handler's own listStatement() with the filter the route's schema derives, on a pool of its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { statementQuery } from '../src/api/gateway-statement.ts';
import { loadConfig } from '../src/config.ts';
import { createPool } from '../src/db/pool.ts';
import { createLogger } from '../src/logger.ts';
import { listStatement, type StatementFilter } from '../src/projections/gateway-statement.ts';
import { createService, type Service } from '../src/service.ts';
import {
  fmtInt,
  fmtRatio,
  markdownTable,
  startBenchPostgres,
  textTable,
  writeResults,
  type BenchContext,
  type BenchPostgres,
} from './harness.ts';
import { benchSigningKey } from './signing-key.ts';

const NAME = 'gateway-statement';
const GOAL_P95_MS = 20;
const LIMIT = 50; // the dashboard's page
const YEAR_START = '2026-01-01T00:00:00+07:00';

type Scale = { entries: number; others: number; otherEntries: number };

/**
 * One statement row per (merchant, n), n = seq: a settlement every 40th entry, a withdrawal requested every 400th and
 * paid (every tenth rejected) right after, payments otherwise; `at` spreads n over the year, so it grows with seq as a
 * live ledger's does. Balances are filler: nothing here reads them but the page.
 */
async function seed(admin: pg.Client, merchantId: string, s: Scale) {
  await admin.query(
    `insert into gateway_statement (merchant_id, seq, stream_revision, id, type, type_seq, at, at_max, amount, gross, fee, net, payment_id, withdrawal_id,
       pending, available, on_hold)
     select merchant, n, n - 1, md5('e' || merchant || n)::uuid, type, row_number() over (partition by merchant, type order by n), at, at,
       case when type = 'PAYMENT' then gross - fee when type = 'SETTLEMENT' then 2000000 when type = 'WITHDRAWAL_REJECTED' then 500000 else -500000 end,
       case when type = 'PAYMENT' then gross end, case when type = 'PAYMENT' then fee end, case when type = 'PAYMENT' then gross - fee end,
       case when type = 'PAYMENT' then md5('p' || merchant || n)::uuid end, case when type like 'WITHDRAWAL%' then md5('w' || merchant || n / 400)::uuid end,
       (n::bigint * 7919) % 5000000, (n::bigint * 104729) % 20000000, case when n % 400 = 1 then 500000 else 0 end
     from (
       select merchant, n, at, gross, (gross * 70 + 5000) / 10000 + 200 as fee,
         case when n % 40 = 0 then 'SETTLEMENT' when n % 400 = 1 then 'WITHDRAWAL_REQUESTED' when n % 4000 = 2 then 'WITHDRAWAL_REJECTED'
              when n % 400 = 2 then 'WITHDRAWAL_PAID' else 'PAYMENT' end as type
       from (
         select m.merchant, n, $2::timestamptz + (n::float8 / m.total) * interval '365 days' as at, 10000 + (n::bigint * 7919) % 990000 as gross
         from (select $1::uuid as merchant, $3::int as total union all select md5('m' || k)::uuid, $5::int from generate_series(1, $4) k) m,
           lateral generate_series(1, m.total) n
       ) g
     ) x
     order by at`,
    [merchantId, YEAR_START, s.entries, s.others, s.otherEntries],
  );
  await admin.query(
    `insert into payments (id, owner_id, order_id, receiving_account_id, provider_code, type, amount, unique_code, total_amount, redirect_url, status,
       expires_at, created_at, mutation_id, paid_at, completed_at, method_selection, gateway, base_amount, fee_to_customer, gateway_fee)
     select payment_id, merchant_id, 'order-' || seq, md5('h' || seq % 10)::uuid, 'WALLET-D', 'QRIS-DYNAMIC', gross, 0, gross, 'https://shop.example/thanks',
       'COMPLETED', at + interval '1 hour', at - interval '2 minutes', md5('t' || seq)::uuid, at, at, 'fixed', true, gross, false, fee
     from gateway_statement where merchant_id = $1 and type = 'PAYMENT'`,
    [merchantId],
  );
  await admin.query('vacuum analyze gateway_statement');
  await admin.query('vacuum analyze payments');
}

// ---------------------------------------------------------------- cases

type Case = { name: string; query: Record<string, string>; page: (total: number) => number };
const lastPage = (total: number) => Math.max(1, Math.ceil(total / LIMIT));
const middlePage = (total: number) => Math.max(1, Math.ceil(lastPage(total) / 2));

const CASES: Case[] = [
  { name: 'first page', query: {}, page: () => 1 },
  { name: 'middle page', query: {}, page: middlePage },
  { name: 'last page', query: {}, page: lastPage },
  { name: 'type=SETTLEMENT, first page', query: { type: 'SETTLEMENT' }, page: () => 1 },
  { name: 'type=PAYMENT, middle page', query: { type: 'PAYMENT' }, page: middlePage },
  { name: 'type=WITHDRAWAL_PAID, last page', query: { type: 'WITHDRAWAL_PAID' }, page: lastPage },
  { name: 'from/to June, first page', query: { from: '2026-06-01', to: '2026-06-30' }, page: () => 1 },
  { name: 'from/to June, last page', query: { from: '2026-06-01', to: '2026-06-30' }, page: lastPage },
  {
    name: 'from/to Q2 & type=PAYMENT, middle page',
    query: { from: '2026-04-01', to: '2026-06-30', type: 'PAYMENT' },
    page: middlePage,
  },
  { name: 'from 1 Oct (to now), last page', query: { from: '2026-10-01' }, page: lastPage },
];

type Prepared = { name: string; path: string; filter: StatementFilter; total: number };

/** The query string a client sends, and the filter the route derives from it (its own zod schema). */
function prepare(c: Case, merchantId: string, page: number, total: number): Prepared {
  const params = { ...c.query, page: String(page), limit: String(LIMIT) };
  const filter: StatementFilter = { merchantId, ...statementQuery.parse(params) };
  return {
    name: c.name,
    path: `/api/v1/gateway/transactions?${new URLSearchParams(params).toString()}`,
    filter,
    total,
  };
}

// ---------------------------------------------------------------- clients

function httpClient(baseUrl: string) {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = (pathAndQuery: string, key: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        { host: url.hostname, port: url.port, path: pathAndQuery, method: 'GET', agent, headers: { 'x-api-key': key } },
        res => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });
  return { get, close: () => agent.destroy() };
}

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    json: (await response.json().catch(() => null)) as unknown,
    cookies: response.headers.getSetCookie(),
  };
}

/** The merchant registered through HTTP, with an API key made through HTTP. */
async function registerWithKey(baseUrl: string): Promise<{ userId: string; key: string }> {
  const reg = await postJson(`${baseUrl}/api/auth/register`, {
    name: 'Toko Sejuta',
    email: `statement-${process.pid}@example.com`,
    password: 'rahasia123',
  });
  if (reg.status !== 201) throw new Error(`register answered ${reg.status} ${JSON.stringify(reg.json)}`);
  const userId = (reg.json as { user: { id: string } }).user.id;
  const cookie = reg.cookies.map(c => c.split(';')[0]!).find(c => c.startsWith('svc_token='));
  if (!cookie) throw new Error('register answered no svc_token cookie');
  const created = await postJson(`${baseUrl}/api/dashboard/api-keys`, { name: 'bench' }, { cookie });
  if (created.status !== 201)
    throw new Error(`api key create answered ${created.status} ${JSON.stringify(created.json)}`);
  return { userId, key: (created.json as { data: { key: string } }).data.key };
}

// ---------------------------------------------------------------- measuring

type Stats = { n: number; p50: number; p95: number; p99: number; max: number };
function stats(values: number[]): Stats {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
  return { n: sorted.length, p50: at(50), p95: at(95), p99: at(99), max: sorted.at(-1) ?? NaN };
}

/** `count` requests of one case, each through HTTP and as SQL back to back (which goes first alternating); the HTTP page checked against SQL's. */
async function measure(
  p: Prepared,
  count: number,
  client: ReturnType<typeof httpClient>,
  key: string,
  pool: pg.Pool,
  signal: AbortSignal,
) {
  const httpMs: number[] = [];
  const sqlMs: number[] = [];
  let mismatch: string | null = null;
  for (let i = 0; i < count && !signal.aborted; i++) {
    let answer: { status: number; body: string } | undefined;
    let sql: Awaited<ReturnType<typeof listStatement>> | undefined;
    const viaHttp = async () => {
      const t0 = performance.now();
      answer = await client.get(p.path, key);
      httpMs.push(performance.now() - t0);
    };
    const viaSql = async () => {
      const t0 = performance.now();
      sql = await listStatement(pool, p.filter);
      sqlMs.push(performance.now() - t0);
    };
    if (i % 2 === 0) {
      await viaHttp();
      await viaSql();
    } else {
      await viaSql();
      await viaHttp();
    }
    if (mismatch === null) {
      const body =
        answer!.status === 200
          ? (JSON.parse(answer!.body) as { data: { id: string }[]; pagination: { total: number } })
          : null;
      const ids = body?.data.map(e => e.id).join();
      if (
        !body ||
        body.pagination.total !== sql!.total ||
        ids !== sql!.rows.map(r => r.id).join() ||
        body.data.length === 0
      )
        mismatch = `${p.path}: HTTP ${answer!.status} ${answer!.body.slice(0, 200)} vs SQL total ${sql!.total}, ${sql!.rows.length} rows`;
    }
  }
  return { http: stats(httpMs), sql: stats(sqlMs), mismatch };
}

// ---------------------------------------------------------------- run

const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : 'n/a');

export async function run(ctx: BenchContext): Promise<void> {
  const scale: Scale = ctx.quick
    ? { entries: 100_000, others: 10, otherEntries: 10_000 }
    : { entries: 1_000_000, others: 40, otherEntries: 25_000 };
  const requests = ctx.quick ? 40 : 300;
  const warmup = ctx.quick ? 10 : 30;
  const loadBefore = os.loadavg();
  let db: BenchPostgres | undefined;
  let service: Service | undefined;
  let pool: pg.Pool | undefined;
  let admin: pg.Client | undefined;
  let client: ReturnType<typeof httpClient> | undefined;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-statement-data-'));
  const results: { case: Prepared; http: Stats; sql: Stats; mismatch: string | null }[] = [];
  let seedSeconds = 0;
  try {
    db = await startBenchPostgres('bench-statement');
    const url = await db.createDatabase('bench_statement');
    const config = loadConfig({
      DATA_DIR: dataDir,
      DATABASE_URL: url,
      DIGEST_SIGNING_KEY: benchSigningKey(),
      PORT: '0',
      SANDBOX_PORT: '0',
      LOG_LEVEL: 'silent',
      HOST: '127.0.0.1',
    });
    service = await createService(config, { log: createLogger('silent') });
    const baseUrl = (await service.listen()).replace('localhost', '127.0.0.1');
    const merchant = await registerWithKey(baseUrl);

    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    console.log(
      `seeding ${fmtInt(scale.entries)} statement entries of one merchant and ${fmtInt(scale.others * scale.otherEntries)} of ${scale.others} others (SQL) ...`,
    );
    const seedStarted = performance.now();
    await seed(admin, merchant.userId, scale);
    seedSeconds = (performance.now() - seedStarted) / 1000;
    console.log(`  seeded in ${seedSeconds.toFixed(1)} s`);
    if (ctx.signal.aborted) return;

    pool = createPool(url, service.pool.options.max);
    client = httpClient(baseUrl);
    for (const c of CASES) {
      if (ctx.signal.aborted) break;
      const probe = prepare(c, merchant.userId, 1, 0);
      const { total } = await listStatement(pool, probe.filter);
      const p = prepare(c, merchant.userId, c.page(total), total);
      await measure(p, warmup, client, merchant.key, pool, ctx.signal);
      const r = await measure(p, requests, client, merchant.key, pool, ctx.signal);
      results.push({ case: p, ...r });
      console.log(
        `  ${c.name.padEnd(42)} page ${String(p.filter.page).padStart(6)} of ${fmtInt(total).padStart(9)}: HTTP p95 ${ms(r.http.p95)} ms, SQL p95 ${ms(r.sql.p95)} ms`,
      );
    }
  } finally {
    client?.close();
    await admin?.end().catch(() => undefined);
    await pool?.end().catch(() => undefined);
    await service?.close().catch(err => console.error(`  closing the service: ${String(err)}`));
    await db?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (ctx.signal.aborted) return;
  const loadAfter = os.loadavg();

  const header = [
    'case',
    'page',
    'entries matching',
    'HTTP p50',
    'HTTP p95',
    'HTTP p99',
    'SQL p50',
    'SQL p95',
    'HTTP/SQL p95',
    `goal p95 < ${GOAL_P95_MS} ms`,
  ];
  const rows = results.map(r => [
    r.case.name,
    fmtInt(r.case.filter.page),
    fmtInt(r.case.total),
    ms(r.http.p50),
    ms(r.http.p95),
    ms(r.http.p99),
    ms(r.sql.p50),
    ms(r.sql.p95),
    fmtRatio(r.http.p95 / r.sql.p95),
    r.http.p95 < GOAL_P95_MS ? 'PASS' : 'FAIL',
  ]);
  const mismatches = results.flatMap(r => (r.mismatch ? [r.mismatch] : []));
  console.log(`\n${textTable(header, rows)}`);
  const machine = `${os.cpus().length} CPU (${os.cpus()[0]?.model ?? 'unknown'}), load average ${loadBefore[0]!.toFixed(2)} before, ${loadAfter[0]!.toFixed(2)} after`;
  const markdown = [
    "# Benchmark: a merchant's statement (GET /api/v1/gateway/transactions) over 1,000,000 entries",
    '',
    `${new Date().toISOString()} · Node ${process.version} · PostgreSQL ${db?.version ?? 'unknown'} (embedded) · ${machine}${ctx.quick ? ' · **quick run** (a tenth of the data)' : ''}`,
    '',
    `The statement read model was **seeded with SQL**: ${fmtInt(scale.entries)} entries of one merchant over 2026 (a settlement every 40th, a ` +
      `withdrawal requested and paid every 400th, payments otherwise, each payment with its payments row) and ${fmtInt(scale.others * scale.otherEntries)} ` +
      `of ${scale.others} other merchants, inserted in time order across merchants, then VACUUM ANALYZE (${seedSeconds.toFixed(0)} s). The service runs ` +
      `in-process (createService, real HTTP on 127.0.0.1, the merchant's user and API key made through HTTP). Each case: ${warmup} warm-up requests, then ` +
      `${requests} requests of ${LIMIT} entries through HTTP (one keep-alive connection) and as bare SQL (the route's own \`listStatement\`, same filter, ` +
      'a pool of its own), one after the other, which goes first alternating. Latencies in ms.',
    '',
    markdownTable(header, rows),
    ...(mismatches.length > 0
      ? ['', `**${mismatches.length} cases where HTTP disagreed with SQL**`, '', ...mismatches.map(m => `- ${m}`)]
      : []),
  ].join('\n');
  const written = writeResults(
    NAME,
    { scale, seedSeconds, requests, warmup, limit: LIMIT, results, loadBefore, loadAfter },
    markdown,
  );
  console.log(`\nwrote ${written.json}\nwrote ${written.md}`);
  if (mismatches.length > 0) throw new Error(`HTTP disagreed with SQL:\n${mismatches.join('\n')}`);
}
