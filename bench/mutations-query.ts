/**
 * GET /api/v1/mutations latency with filters over 1,000,000 mutations, against the same query run directly in
 * PostgreSQL in the same run.
 *
 * The service runs in-process (createService + listen(), real HTTP on 127.0.0.1); its users and API keys are made
 * through HTTP. The mutations read model is bulk-loaded with SQL (generate_series), because this benchmark measures
 * reads: 160 owners × 5,000 mutations plus one heavy tenant with 200,000, spread over several bank and e-wallet
 * accounts each, CREDIT/DEBIT, amounts 1,000..10,000,000 rupiah (log-uniform), created over a year.
 *
 * Both sides run the same fixed, seeded mix of filter combinations, sequentially (concurrency 1), interleaved request
 * by request:
 *  - HTTP: GET /api/v1/mutations?... with the owner's API key, over one keep-alive connection (node:http Agent);
 *  - SQL: the handler's own listMutations() (the count and the page query, in parallel, with the same parameters) on
 *    a pg pool of the service's size (createPool(url, service.pool.options.max)).
 * Goals (regular tenants): HTTP p95 ≤ 3 × SQL p95, HTTP p95 < 20 ms. The heavy tenant is reported on its own.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { createPool } from '../src/db/pool.ts';
import { createLogger } from '../src/logger.ts';
import { listMutations, type MutationFilter } from '../src/projections/mutations.ts';
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

const NAME = 'mutations-query';
const GOALS = { maxRatioToSql: 3, maxHttpP95Ms: 20 } as const;

/** CPU time the hypervisor took from this machine (steal) and the total, in ticks, from /proc/stat; null without it. */
function cpuTicks(): { steal: number; total: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    return { steal: fields[7] ?? 0, total: fields.slice(0, 8).reduce((a, b) => a + b, 0) };
  } catch {
    return null;
  }
}
const stealPercent = (from: ReturnType<typeof cpuTicks>, to: ReturnType<typeof cpuTicks>) =>
  from && to && to.total > from.total ? ((to.steal - from.steal) / (to.total - from.total)) * 100 : NaN;

/** The commit measured (with "+changes" when src differs from it), or "unknown". */
function codeVersion(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return dirty ? `${commit}+changes in src` : commit;
  } catch {
    return 'unknown';
  }
}

// ---------------------------------------------------------------- data set

const REGULAR_OWNERS = 160;
const REGULAR_MUTATIONS = 5_000;
const REGULAR_ACCOUNTS = 6; // accounts 0..3 bank, 4..5 e-wallet
const REGULAR_BANK_ACCOUNTS = 4;
const HEAVY_MUTATIONS = 200_000;
const HEAVY_ACCOUNTS = 20; // accounts 0..13 bank, 14..19 e-wallet
const HEAVY_BANK_ACCOUNTS = 14;
const TOTAL_MUTATIONS = REGULAR_OWNERS * REGULAR_MUTATIONS + HEAVY_MUTATIONS;
/** registered through HTTP, queried through HTTP: the first owners of the regular ones */
const HTTP_REGULAR_USERS = 4;
/** created_at spreads over the year before this instant */
const DATA_END = new Date('2026-11-01T00:00:00.000Z');

/**
 * The account ids of an owner, exactly as uuidFromMd5() below makes them in SQL: the md5 of
 * 'bench-account:<owner>:<k>' with the version (4) and variant (8) digits set, so that the API accepts them.
 */
function accountIdOf(ownerId: string, k: number): string {
  const hex = createHash('md5').update(`bench-account:${ownerId}:${k}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The SQL twin of accountIdOf(): `hash` is an md5 hex text expression. */
const uuidFromMd5 = (hash: string) =>
  `(substr(${hash}, 1, 12) || '4' || substr(${hash}, 14, 3) || '8' || substr(${hash}, 18, 15))::uuid`;

/** A fake owner id for the owners that are not registered (they only own rows). */
const fakeOwnerId = (i: number) => accountIdOf('bench-owner', i);

// a deterministic number in [0, 1) per (owner, n, salt): the data set is the same in every run
const unit = (salt: number) =>
  `((hashtextextended(o::text || ':' || n, ${salt}) & 4503599627370495)::float8 / 4503599627370496.0)`;

async function loadAccounts(client: pg.Client, owners: string[], accounts: number, bankAccounts: number) {
  await client.query(
    `insert into mutation_accounts (account_id, owner_id, account_type)
     select ${uuidFromMd5('h')}, o, case when k < $2 then 'bank' else 'ewallet' end
     from unnest($1::uuid[]) o, generate_series(0, $3 - 1) k, lateral (select md5('bench-account:' || o || ':' || k) as h) x`,
    [owners, bankAccounts, accounts],
  );
}

/**
 * All mutations in one statement, inserted in created_at order (oldest first) across all owners, as a live service
 * records them: an owner's rows end up spread over the whole table, not packed together, which is what index and
 * heap access see in production.
 */
async function loadMutations(client: pg.Client, regularOwners: string[], heavyOwner: string) {
  await client.query(
    `insert into mutations (id, account_id, owner_id, account_type, provider_transaction_id, type, amount, description,
       sender_name, reference, status, created_at, recorded_at, payment)
     select md5('bench-mutation:' || o || ':' || n)::uuid,
            ${uuidFromMd5('h')},
            o,
            case when k < banks then 'bank' else 'ewallet' end,
            'BENCH-' || n,
            case when r_type < 0.6 then 'CREDIT' else 'DEBIT' end,
            (round(1000 * power(10, 4 * r_amount) / 100) * 100)::bigint,
            case when r_type < 0.6 then (array['Transfer masuk', 'Pembayaran pesanan', 'QRIS payment'])[1 + (n % 3)]
                 else (array['Transfer keluar', 'Tarik tunai', 'Biaya admin'])[1 + (n % 3)] end,
            'PELANGGAN ' || (n % 997),
            case when n % 2 = 0 then 'SBX' || lpad(n::text, 10, '0') end,
            'SUCCESS',
            $7::timestamptz - r_time * interval '365 days',
            $7::timestamptz - r_time * interval '365 days' + interval '2 minutes',
            null
     from (
       select o, n, banks, floor(${unit(1)} * accounts)::int as k, ${unit(2)} as r_type, ${unit(3)} as r_amount, ${unit(4)} as r_time
       from (
         select o, n, $3::int as accounts, $4::int as banks from unnest($1::uuid[]) o, generate_series(1, $2::int) n
         union all
         select $5::uuid, n, $6::int, $8::int from generate_series(1, $9::int) n
       ) owners_and_numbers
     ) s, lateral (select md5('bench-account:' || o || ':' || k) as h) x
     order by r_time desc`,
    [
      regularOwners,
      REGULAR_MUTATIONS,
      REGULAR_ACCOUNTS,
      REGULAR_BANK_ACCOUNTS,
      heavyOwner,
      HEAVY_ACCOUNTS,
      DATA_END,
      HEAVY_BANK_ACCOUNTS,
      HEAVY_MUTATIONS,
    ],
  );
}

// ---------------------------------------------------------------- the query mix

type Spec = {
  template: string;
  accountIndex?: number;
  accountType?: 'bank' | 'wallet';
  type?: 'CREDIT' | 'DEBIT';
  /** months before DATA_END: 1 = the last month */
  monthsBack?: number;
  months?: number;
  minAmount?: number;
  maxAmount?: number;
  page: number;
  limit: number;
};

type Template = {
  name: string;
  make: (rng: () => number, accounts: number) => Omit<Spec, 'template' | 'page' | 'limit'>;
};

const pick = <T>(rng: () => number, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;

const TEMPLATES: Template[] = [
  { name: 'no filter', make: () => ({}) },
  { name: 'accountType=wallet & type=CREDIT', make: () => ({ accountType: 'wallet', type: 'CREDIT' }) },
  { name: 'from/to one month', make: rng => ({ monthsBack: 1 + Math.floor(rng() * 12), months: 1 }) },
  { name: 'minAmount/maxAmount 100k..500k', make: () => ({ minAmount: 100_000, maxAmount: 500_000 }) },
  { name: 'accountId', make: (rng, accounts) => ({ accountIndex: Math.floor(rng() * accounts) }) },
  {
    name: 'accountId & type=DEBIT & a quarter',
    make: (rng, accounts) => ({
      accountIndex: Math.floor(rng() * accounts),
      type: 'DEBIT',
      monthsBack: 3 + Math.floor(rng() * 10),
      months: 3,
    }),
  },
  {
    name: 'accountType=bank & minAmount=1M & a month',
    make: rng => ({ accountType: 'bank', minAmount: 1_000_000, monthsBack: 1 + Math.floor(rng() * 12), months: 1 }),
  },
  { name: 'type=DEBIT & minAmount=5M', make: () => ({ type: 'DEBIT', minAmount: 5_000_000 }) },
];
const LIMITS = [10, 50, 100] as const;
const DEEP_PAGE = 5;

/** mulberry32: a small seeded PRNG, so the mix is the same in every run */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Tenant = { label: string; userId: string; key: string; accounts: number };
type Request = { tenant: Tenant; spec: Spec; path: string; filter: MutationFilter };

const monthStart = (monthsBack: number) =>
  new Date(Date.UTC(DATA_END.getUTCFullYear(), DATA_END.getUTCMonth() - monthsBack, 1));
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** The query string a client sends, and the filter the handler derives from it (as its zod schema does). */
function request(tenant: Tenant, spec: Spec): Request {
  const qs = new URLSearchParams();
  const filter: MutationFilter = { ownerId: tenant.userId, page: spec.page, limit: spec.limit };
  if (spec.accountIndex !== undefined) {
    const accountId = accountIdOf(tenant.userId, spec.accountIndex);
    qs.set('accountId', accountId);
    filter.accountId = accountId;
  }
  if (spec.accountType) {
    qs.set('accountType', spec.accountType);
    filter.accountType = spec.accountType === 'bank' ? 'bank' : 'ewallet';
  }
  if (spec.type) {
    qs.set('type', spec.type);
    filter.type = spec.type;
  }
  if (spec.monthsBack !== undefined) {
    const from = monthStart(spec.monthsBack);
    const end = monthStart(spec.monthsBack - (spec.months ?? 1)); // exclusive
    const lastDay = new Date(end.getTime() - 86_400_000);
    qs.set('from', isoDay(from));
    qs.set('to', isoDay(lastDay)); // a date alone for `to` includes that whole day
    filter.from = from;
    filter.to = end;
  }
  if (spec.minAmount !== undefined) {
    qs.set('minAmount', String(spec.minAmount));
    filter.minAmount = spec.minAmount;
  }
  if (spec.maxAmount !== undefined) {
    qs.set('maxAmount', String(spec.maxAmount));
    filter.maxAmount = spec.maxAmount;
  }
  qs.set('page', String(spec.page));
  qs.set('limit', String(spec.limit));
  return { tenant, spec, path: `/api/v1/mutations?${qs.toString()}`, filter };
}

function mix(tenants: Tenant[], count: number, seed: number): Request[] {
  const rng = seeded(seed);
  const out: Request[] = [];
  for (let i = 0; i < count; i++) {
    const tenant = pick(rng, tenants);
    const template = TEMPLATES[i % TEMPLATES.length]!; // every template equally often
    const spec: Spec = {
      template: template.name,
      ...template.make(rng, tenant.accounts),
      page: rng() < 2 / 3 ? 1 : DEEP_PAGE,
      limit: pick(rng, LIMITS),
    };
    out.push(request(tenant, spec));
  }
  // shuffle (seeded), so that templates do not come in a fixed rhythm
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

// ---------------------------------------------------------------- clients

type HttpAnswer = { status: number; body: string };

function httpClient(baseUrl: string) {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = (pathAndQuery: string, key?: string) =>
    new Promise<HttpAnswer>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: pathAndQuery,
          method: 'GET',
          agent,
          headers: key ? { 'x-api-key': key } : {},
        },
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

/** A user registered through HTTP (argon2: slow on purpose) with an API key made through HTTP. */
async function registerWithKey(baseUrl: string, n: number): Promise<{ userId: string; key: string }> {
  const reg = await postJson(`${baseUrl}/api/auth/register`, {
    name: `Bench ${n}`,
    email: `bench${n}-${process.pid}@example.com`,
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

type Stats = { n: number; p50: number; p95: number; p99: number; max: number; mean: number };

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

function stats(values: number[]): Stats {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? NaN,
    mean: sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : NaN,
  };
}

type Sample = { template: string; page: number; limit: number; httpMs: number; sqlMs: number; total: number };

/**
 * Runs every request once through HTTP and once as SQL, alternating which goes first. Answers the samples and the
 * number of requests whose HTTP answer disagreed with the SQL one (status, total or page size).
 */
async function measure(
  requests: Request[],
  client: ReturnType<typeof httpClient>,
  pool: pg.Pool,
  signal: AbortSignal,
): Promise<{ samples: Sample[]; mismatches: string[] }> {
  const samples: Sample[] = [];
  const mismatches: string[] = [];
  for (const [i, r] of requests.entries()) {
    if (signal.aborted) break;
    let answer: HttpAnswer | undefined;
    let httpMs = 0;
    let sql: Awaited<ReturnType<typeof listMutations>> | undefined;
    let sqlMs = 0;
    const viaHttp = async () => {
      const t0 = performance.now();
      answer = await client.get(r.path, r.tenant.key);
      httpMs = performance.now() - t0;
    };
    const viaSql = async () => {
      const t0 = performance.now();
      sql = await listMutations(pool, r.filter);
      sqlMs = performance.now() - t0;
    };
    if (i % 2 === 0) {
      await viaHttp();
      await viaSql();
    } else {
      await viaSql();
      await viaHttp();
    }
    const body =
      answer!.status === 200 ? (JSON.parse(answer!.body) as { data: unknown[]; pagination: { total: number } }) : null;
    if (!body || body.pagination.total !== sql!.total || body.data.length !== sql!.rows.length) {
      if (mismatches.length < 5)
        mismatches.push(`${r.path}: HTTP ${answer!.status} ${answer!.body.slice(0, 200)} vs SQL total ${sql!.total}`);
      else mismatches.push(r.path);
    }
    samples.push({
      template: r.spec.template,
      page: r.spec.page,
      limit: r.spec.limit,
      httpMs,
      sqlMs,
      total: sql!.total,
    });
  }
  return { samples, mismatches };
}

// ---------------------------------------------------------------- plans

type PlanNode = {
  'Node Type': string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Heap Fetches'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
};

/** The scan nodes of a plan, e.g. "Index Only Scan mutations_owner_time rows=5000 heap=0". */
function describePlan(node: PlanNode): string[] {
  const out: string[] = [];
  const visit = (n: PlanNode) => {
    if (/Scan/.test(n['Node Type'])) {
      const parts = [
        `${n['Node Type']}${n['Index Name'] ? ` ${n['Index Name']}` : ''}`,
        `rows=${fmtInt(n['Actual Rows'])}`,
      ];
      if (n['Rows Removed by Filter']) parts.push(`filtered=${fmtInt(n['Rows Removed by Filter'])}`);
      if (n['Heap Fetches'] !== undefined) parts.push(`heap fetches=${fmtInt(n['Heap Fetches'])}`);
      out.push(parts.join(' '));
    }
    for (const child of n.Plans ?? []) visit(child);
  };
  visit(node);
  return out;
}

/** The statements listMutations sends for a filter, captured without running them. */
async function statementsOf(
  filter: MutationFilter,
): Promise<{ name: 'count' | 'page'; text: string; values: unknown[] }[]> {
  const captured: { name: 'count' | 'page'; text: string; values: unknown[] }[] = [];
  const fake = {
    query: async (q: { text: string; values: unknown[] }) => {
      captured.push({ name: /count\(\*\)/.test(q.text) ? 'count' : 'page', text: q.text, values: q.values });
      return { rows: [{ n: 0 }], rowCount: 0 };
    },
  };
  await listMutations(fake as unknown as pg.Pool, filter);
  return captured;
}

type PlanRow = {
  tenant: string;
  template: string;
  page: number;
  limit: number;
  countMs: number;
  pageMs: number;
  countPlan: string;
  pagePlan: string;
  countBuffers: number;
  pageBuffers: number;
};

async function explainAll(client: pg.Client, tenants: Tenant[]): Promise<PlanRow[]> {
  const rows: PlanRow[] = [];
  for (const tenant of tenants) {
    const rng = seeded(7);
    for (const template of TEMPLATES) {
      const made = template.make(rng, tenant.accounts);
      for (const page of [1, DEEP_PAGE]) {
        const r = request(tenant, { template: template.name, ...made, page, limit: 100 });
        const out: Partial<PlanRow> = { tenant: tenant.label, template: template.name, page, limit: 100 };
        for (const s of await statementsOf(r.filter)) {
          // run twice, keep the second (warm) plan
          let plan: { Plan: PlanNode; 'Execution Time': number } | undefined;
          for (let k = 0; k < 2; k++) {
            const result = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }>({
              text: `explain (analyze, buffers, format json) ${s.text}`,
              values: s.values,
            });
            plan = result.rows[0]!['QUERY PLAN'][0];
          }
          const buffers = (plan!.Plan['Shared Hit Blocks'] ?? 0) + (plan!.Plan['Shared Read Blocks'] ?? 0);
          if (s.name === 'count') {
            out.countMs = plan!['Execution Time'];
            out.countPlan = describePlan(plan!.Plan).join('; ');
            out.countBuffers = buffers;
          } else {
            out.pageMs = plan!['Execution Time'];
            out.pagePlan = describePlan(plan!.Plan).join('; ');
            out.pageBuffers = buffers;
          }
        }
        rows.push(out as PlanRow);
      }
    }
  }
  return rows;
}

// ---------------------------------------------------------------- run

const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : 'n/a');
const fmt1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');

export async function run(ctx: BenchContext): Promise<void> {
  const requestsRegular = ctx.quick ? 300 : 3_000;
  const requestsHeavy = ctx.quick ? 100 : 1_000;
  const warmup = ctx.quick ? 80 : 400;
  const startedAt = new Date();
  const loadBefore = os.loadavg();
  console.log(
    `GET /api/v1/mutations over ${fmtInt(TOTAL_MUTATIONS)} mutations: ${fmtInt(requestsRegular)} requests (regular tenants) + ` +
      `${fmtInt(requestsHeavy)} (heavy tenant), each through HTTP and as bare SQL, sequential, after ${warmup} warm-up requests`,
  );
  if (loadBefore[0]! > os.cpus().length * 0.5)
    console.warn(
      `  note: load average ${loadBefore[0]!.toFixed(1)} on ${os.cpus().length} CPUs, the results will be noisy`,
    );

  let db: BenchPostgres | undefined;
  let service: Service | undefined;
  let pool: pg.Pool | undefined;
  let admin: pg.Client | undefined;
  let client: ReturnType<typeof httpClient> | undefined;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-mutations-data-'));
  let loadSeconds = 0;
  let tableBytes: Record<string, number> = {};
  let regular: { samples: Sample[]; mismatches: string[] } = { samples: [], mismatches: [] };
  let heavy: { samples: Sample[]; mismatches: string[] } = { samples: [], mismatches: [] };
  let health: number[] = [];
  let plans: PlanRow[] = [];
  let settings: Record<string, string> = {};
  let stealPct = NaN;
  try {
    db = await startBenchPostgres('bench-mutations');
    console.log(`PostgreSQL ${db.version} (embedded, temporary)`);
    settings = Object.fromEntries(
      (
        await db.adminQuery<{ name: string; setting: string; unit: string | null }>(
          `select name, setting, unit from pg_settings where name in ('shared_buffers', 'work_mem', 'effective_cache_size', 'random_page_cost', 'jit')`,
        )
      ).map(r => [r.name, r.unit ? `${r.setting} ${r.unit}` : r.setting]),
    );
    const url = await db.createDatabase('bench_mutations');
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

    // users and keys through HTTP: a few regular tenants and the heavy one
    const registered: { userId: string; key: string }[] = [];
    for (let i = 0; i <= HTTP_REGULAR_USERS; i++) registered.push(await registerWithKey(baseUrl, i));
    const heavyUser = registered.pop()!;
    const regularOwners = [
      ...registered.map(r => r.userId),
      ...Array.from({ length: REGULAR_OWNERS - registered.length }, (_, i) => fakeOwnerId(i)),
    ];

    // bulk load of the read model
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const loadStart = performance.now();
    console.log(
      `bulk-loading ${fmtInt(TOTAL_MUTATIONS)} rows into the mutations read model (SQL in created_at order, not through events) ...`,
    );
    await loadAccounts(admin, regularOwners, REGULAR_ACCOUNTS, REGULAR_BANK_ACCOUNTS);
    await loadAccounts(admin, [heavyUser.userId], HEAVY_ACCOUNTS, HEAVY_BANK_ACCOUNTS);
    await loadMutations(admin, regularOwners, heavyUser.userId);
    if (ctx.signal.aborted) return;
    await admin.query('vacuum (analyze) mutation_accounts');
    await admin.query('vacuum (analyze) mutations');
    loadSeconds = (performance.now() - loadStart) / 1000;
    const count = (await admin.query<{ n: string }>('select count(*) as n from mutations')).rows[0]!.n;
    if (Number(count) !== TOTAL_MUTATIONS) throw new Error(`loaded ${count} mutations, expected ${TOTAL_MUTATIONS}`);
    tableBytes = Object.fromEntries(
      (
        await admin.query<{ name: string; bytes: string }>(
          `select c.relname as name, pg_relation_size(c.oid) as bytes from pg_class c
           where c.relname in ('mutations', 'mutations_pkey', 'mutations_owner_time', 'mutations_account_time', 'mutations_account_id_provider_transaction_id_key')`,
        )
      ).rows.map(r => [r.name, Number(r.bytes)]),
    );
    console.log(
      `  loaded in ${loadSeconds.toFixed(1)} s (VACUUM ANALYZE included); table ${fmtInt((tableBytes.mutations ?? 0) / 1048576)} MiB`,
    );

    pool = createPool(url, service.pool.options.max); // the service's pool settings (src/service.ts)
    client = httpClient(baseUrl);
    const regularTenants: Tenant[] = registered.map((r, i) => ({
      label: `regular ${i + 1}`,
      ...r,
      accounts: REGULAR_ACCOUNTS,
    }));
    const heavyTenant: Tenant = { label: 'heavy', ...heavyUser, accounts: HEAVY_ACCOUNTS };

    // the floor of the HTTP path: a route without database work, over the same connection
    for (let i = 0; i < 50; i++) await client.get('/health');
    for (let i = 0; i < (ctx.quick ? 200 : 1000); i++) {
      const t0 = performance.now();
      await client.get('/health');
      health.push(performance.now() - t0);
    }

    console.log('warm-up ...');
    await measure(mix([...regularTenants, heavyTenant], warmup, 99), client, pool, ctx.signal);
    const ticksBefore = cpuTicks();
    console.log(
      `regular tenants (${REGULAR_MUTATIONS.toLocaleString('en-US')} mutations each): ${fmtInt(requestsRegular)} requests ...`,
    );
    regular = await measure(mix(regularTenants, requestsRegular, 1), client, pool, ctx.signal);
    console.log(
      `heavy tenant (${HEAVY_MUTATIONS.toLocaleString('en-US')} mutations): ${fmtInt(requestsHeavy)} requests ...`,
    );
    heavy = await measure(mix([heavyTenant], requestsHeavy, 2), client, pool, ctx.signal);
    stealPct = stealPercent(ticksBefore, cpuTicks());
    if (ctx.signal.aborted) return;

    console.log('EXPLAIN ANALYZE of each template (limit 100, page 1 and page 5) ...');
    plans = await explainAll(admin, [regularTenants[0]!, heavyTenant]);
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

  // ---------------------------------------------------------------- report
  const summarizeSet = (set: { samples: Sample[] }) => {
    const h = stats(set.samples.map(s => s.httpMs));
    const q = stats(set.samples.map(s => s.sqlMs));
    return { http: h, sql: q, ratioP50: h.p50 / q.p50, ratioP95: h.p95 / q.p95, ratioP99: h.p99 / q.p99 };
  };
  const reg = summarizeSet(regular);
  const hvy = summarizeSet(heavy);
  const healthStats = stats(health);
  const goals = [
    {
      goal: `HTTP p95 ≤ ${GOALS.maxRatioToSql} × SQL p95`,
      actual: fmtRatio(reg.ratioP95),
      pass: reg.ratioP95 <= GOALS.maxRatioToSql,
    },
    {
      goal: `HTTP p95 < ${GOALS.maxHttpP95Ms} ms`,
      actual: `${ms(reg.http.p95)} ms`,
      pass: reg.http.p95 < GOALS.maxHttpP95Ms,
    },
  ];

  const header = [
    'tenant',
    'requests',
    'HTTP p50',
    'HTTP p95',
    'HTTP p99',
    'SQL p50',
    'SQL p95',
    'SQL p99',
    'HTTP/SQL p50',
    'HTTP/SQL p95',
    'HTTP/SQL p99',
  ];
  const line = (label: string, s: ReturnType<typeof summarizeSet>) => [
    label,
    fmtInt(s.http.n),
    ms(s.http.p50),
    ms(s.http.p95),
    ms(s.http.p99),
    ms(s.sql.p50),
    ms(s.sql.p95),
    ms(s.sql.p99),
    fmtRatio(s.ratioP50),
    fmtRatio(s.ratioP95),
    fmtRatio(s.ratioP99),
  ];
  const tableRows = [
    line(`regular (${HTTP_REGULAR_USERS} owners × ${fmtInt(REGULAR_MUTATIONS)})`, reg),
    line(`heavy (1 owner × ${fmtInt(HEAVY_MUTATIONS)}, no goal)`, hvy),
  ];
  const goalHeader = ['goal (regular tenants)', 'actual', 'result'];
  const goalRows = goals.map(g => [g.goal, g.actual, g.pass ? 'PASS' : 'MISS']);

  const byTemplate = (set: { samples: Sample[] }, tenant: string) =>
    TEMPLATES.flatMap(t =>
      [1, DEEP_PAGE].map(page => {
        const s = set.samples.filter(x => x.template === t.name && x.page === page);
        const h = stats(s.map(x => x.httpMs));
        const q = stats(s.map(x => x.sqlMs));
        const total = s.length ? s.reduce((a, x) => a + x.total, 0) / s.length : NaN;
        return [
          tenant,
          t.name,
          String(page),
          fmtInt(s.length),
          fmtInt(total),
          ms(h.p50),
          ms(h.p95),
          ms(q.p50),
          ms(q.p95),
          fmtRatio(h.p95 / q.p95),
        ];
      }),
    );
  const templateHeader = [
    'tenant',
    'filters',
    'page',
    'requests',
    'mean total',
    'HTTP p50',
    'HTTP p95',
    'SQL p50',
    'SQL p95',
    'HTTP/SQL p95',
  ];
  const templateRows = [...byTemplate(regular, 'regular'), ...byTemplate(heavy, 'heavy')];
  const planHeader = [
    'tenant',
    'filters',
    'page',
    'count ms',
    'page ms',
    'count plan',
    'page plan',
    'count buffers',
    'page buffers',
  ];
  const planRows = plans.map(p => [
    p.tenant,
    p.template,
    String(p.page),
    ms(p.countMs),
    ms(p.pageMs),
    p.countPlan,
    p.pagePlan,
    fmtInt(p.countBuffers),
    fmtInt(p.pageBuffers),
  ]);
  const mismatches = [...regular.mismatches, ...heavy.mismatches];

  console.log(`\n${textTable(header, tableRows)}\n\n${textTable(goalHeader, goalRows)}`);
  console.log(
    `\nHTTP floor (GET /health, same connection): p50 ${ms(healthStats.p50)} ms, p95 ${ms(healthStats.p95)} ms; CPU stolen by the hypervisor during the measurement: ${fmt1(stealPct)} %`,
  );
  console.log(`\n${textTable(templateHeader, templateRows)}`);
  console.log(
    `\n${textTable(
      planHeader.slice(0, 7),
      planRows.map(r => r.slice(0, 7)),
    )}`,
  );
  if (mismatches.length > 0)
    console.log(
      `\n${mismatches.length} HTTP answers disagreed with SQL:\n${mismatches
        .slice(0, 5)
        .map(m => `  ${m}`)
        .join('\n')}`,
    );

  const env = {
    date: startedAt.toISOString(),
    code: codeVersion(),
    node: process.version,
    postgres: db?.version ?? 'unknown',
    postgresSettings: settings,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    quick: ctx.quick,
    loadAverage1mBefore: Number(loadBefore[0]!.toFixed(2)),
    loadAverage1mAfter: Number(loadAfter[0]!.toFixed(2)),
    cpuStealPercentDuringMeasurement: Number(stealPct.toFixed(1)),
  };
  const dataSet = {
    mutations: TOTAL_MUTATIONS,
    regularOwners: REGULAR_OWNERS,
    regularMutationsPerOwner: REGULAR_MUTATIONS,
    regularAccountsPerOwner: `${REGULAR_ACCOUNTS} (${REGULAR_BANK_ACCOUNTS} bank, ${REGULAR_ACCOUNTS - REGULAR_BANK_ACCOUNTS} e-wallet)`,
    heavyOwnerMutations: HEAVY_MUTATIONS,
    heavyAccounts: `${HEAVY_ACCOUNTS} (${HEAVY_BANK_ACCOUNTS} bank, ${HEAVY_ACCOUNTS - HEAVY_BANK_ACCOUNTS} e-wallet)`,
    createdAt: `the year before ${DATA_END.toISOString()}`,
    amounts: '1,000..10,000,000 rupiah, log-uniform, whole hundreds',
    types: '60 % CREDIT, 40 % DEBIT',
    load: 'bulk SQL insert into mutations and mutation_accounts (generate_series, deterministic hashes), in created_at order across all owners (as a live service records them), then VACUUM ANALYZE',
    loadSeconds: Number(loadSeconds.toFixed(1)),
    relationBytes: tableBytes,
  };
  const json = {
    benchmark: NAME,
    ...env,
    dataSet,
    method: {
      http: 'GET /api/v1/mutations with x-api-key, node:http keep-alive agent (one connection), sequential; latency to the last body byte',
      sql: 'listMutations(pool, filter) from src/projections/mutations.ts (count + page query in parallel, same parameters) on createPool(url, <the service pool max>); sequential',
      order: 'each request runs once through HTTP and once as SQL, back to back, which goes first alternating',
      warmupRequests: warmup,
      templates: TEMPLATES.map(t => t.name),
      limits: LIMITS,
      pages: [1, DEEP_PAGE],
    },
    goals: { ...GOALS, results: goals },
    httpFloorHealthMs: healthStats,
    regular: { requests: requestsRegular, ...reg },
    heavy: { requests: requestsHeavy, ...hvy },
    byTemplate: templateRows.map(r => Object.fromEntries(templateHeader.map((h, i) => [h, r[i]]))),
    plans,
    mismatches,
  };
  const markdown = [
    '# Benchmark: GET /api/v1/mutations latency over 1,000,000 mutations',
    '',
    `${env.date} · code ${env.code} · Node ${env.node} · PostgreSQL ${env.postgres} (embedded) · ${env.cpus} CPU (${env.cpuModel}) · ` +
      `load average ${env.loadAverage1mBefore} before, ${env.loadAverage1mAfter} after · CPU stolen by the hypervisor during the measurement ${fmt1(stealPct)} %` +
      `${env.quick ? ' · **quick run**' : ''}`,
    '',
    `The mutations read model was **bulk-loaded with SQL** (${fmtInt(TOTAL_MUTATIONS)} rows: ${REGULAR_OWNERS} owners × ` +
      `${fmtInt(REGULAR_MUTATIONS)}, ${dataSet.regularAccountsPerOwner} accounts each, plus one heavy tenant with ` +
      `${fmtInt(HEAVY_MUTATIONS)} over ${dataSet.heavyAccounts} accounts; ${dataSet.amounts}; ${dataSet.types}; created over a year), ` +
      `inserted in created_at order across all owners (as the projection records them, so an owner's rows are spread over ` +
      `the table), then VACUUM ANALYZE: this benchmark measures reads, not projection. The users and API keys were made through HTTP.`,
    '',
    `A fixed, seeded mix of ${TEMPLATES.length} filter combinations (${TEMPLATES.map(t => `\`${t.name}\``).join(', ')}), ` +
      `limit ${LIMITS.join('/')}, page 1 (⅔) or ${DEEP_PAGE} (⅓), is sent sequentially (concurrency 1) through HTTP ` +
      `(one keep-alive connection, service in the same process) and run as bare SQL — the handler's own \`listMutations\` ` +
      `(count and page query in parallel, same parameters) on a pg pool of the service's size — request by request, ` +
      `after ${warmup} warm-up requests. The HTTP path adds the API-key lookup (one more query), fastify, zod and JSON.`,
    '',
    markdownTable(header, tableRows),
    '',
    markdownTable(goalHeader, goalRows),
    '',
    `HTTP floor (GET /health over the same connection, no database): p50 ${ms(healthStats.p50)} ms, p95 ${ms(healthStats.p95)} ms. ` +
      `Latencies in ms. PostgreSQL settings: ${Object.entries(settings)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}.`,
    '',
    '<details><summary>by filter combination and page</summary>',
    '',
    markdownTable(templateHeader, templateRows),
    '',
    '</details>',
    '',
    '<details><summary>EXPLAIN (ANALYZE, BUFFERS) of each combination, limit 100 (warm)</summary>',
    '',
    markdownTable(planHeader, planRows),
    '',
    '</details>',
    ...(mismatches.length > 0
      ? [
          '',
          `**${mismatches.length} HTTP answers disagreed with SQL**`,
          '',
          ...mismatches.slice(0, 5).map(m => `- ${m}`),
        ]
      : []),
  ].join('\n');
  const paths = writeResults(NAME, json, markdown);
  console.log(`\nwrote ${paths.json}\nwrote ${paths.md}`);
  if (mismatches.length > 0) throw new Error(`${mismatches.length} HTTP answers disagreed with SQL`);
}
