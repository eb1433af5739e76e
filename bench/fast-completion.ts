/**
 * Fast completion, measured from outside as a user runs the service: the time from a
 * customer's payment in the sandbox to the signed payment.completed webhook, with nobody asking for a sync; the lag of
 * the scheduled syncs under the same load; and the checks per minute the cadence costs the provider.
 *
 * Per scenario, a service of its own (bench/processes.ts: this checkout's `npm start` command, its own DATA_DIR, so
 * its own embedded PostgreSQL and sandbox, the real clock), set up over HTTP as merchants would: registered, an API
 * key, a webhook endpoint pointing at a small HTTP receiver in this process, sandbox wallets (WALLET-D and WALLET-E,
 * linked by phone number) synchronised hourly, so that only the payment checks can complete a payment in time.
 *
 * - Receiving accounts hold a steady number of pending QRIS-DYNAMIC payments. At a steady pace the oldest pending
 *   payment is paid in the sandbox (`POST /sandbox/payments {qris}` with the payload read back from the payment's
 *   qrisImage PNG, as a payer's phone would) and a new payment is created into the same account, so the number pending
 *   stays put and every account keeps a young pending payment. No refresh, no "Saya sudah bayar".
 *   A: 50 accounts with 2 pending payments each (100); B: 1,000 accounts with one each.
 * - Late payers (full run only): a few accounts with one payment each, paid once that payment is past the cadence's
 *   fast period (10 minutes), when the account is checked once a minute. No goal; it shows the other half of the cadence.
 * - Scheduled syncs: a group of accounts without payments at a 5-minute interval (the API's minimum), linked evenly
 *   over one interval before the measurement, so that their regular slots fall evenly in it; lag = syncedAt − slot of
 *   their AccountSynced (trigger 'schedule') whose slot falls in the measured window. In a quick run they are linked
 *   during the window instead, and their first slots are measured.
 * - Checks: AccountSynced events with trigger 'payment-check' in the window, read from the service's event store over a
 *   read-only connection (port from DATA_DIR/pg/postmaster.pid, password from DATA_DIR/secrets.json), against what the
 *   cadence asks for (every account with a pending payment: 4 a minute while its newest is under 10 minutes old, then
 *   1), integrated second by second over the window from this benchmark's own record of each payment's life.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { Jimp } from 'jimp';
import jsqrModule from 'jsqr';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { freePort } from '../src/db/free-port.ts';
import { fmtInt, fmtRatio, markdownTable, sleep, textTable, writeResults, type BenchContext } from './harness.ts';
import { MIX_FULL, MIX_QUICK, runMix, type MixResult } from './payer-mix.ts';
import { killOnExit, machineBusyMs, startService, treeCpuMs, type StartedService, type TreeCpu } from './processes.ts';
import { occurredAtOfSql } from '../src/store/postgres-event-metadata.ts';

// jsqr is CommonJS with an ESM-style default in its types: the function is the module itself at run time
const jsQR = ((jsqrModule as unknown as { default?: typeof jsqrModule }).default ??
  jsqrModule) as unknown as typeof jsqrModule.default;

const NAME = 'fast-completion';
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

type Scenario = {
  id: 'A' | 'B';
  label: string;
  short: string;
  accounts: number;
  pendingPerAccount: number;
  /** payments paid per second during the window (each replaced by a new one into the same account) */
  payPerSecond: number;
  windowSec: number;
  /** merchants the receiving accounts are spread over (a free plan's points bound the accounts of one) */
  merchants: number;
};
type Size = {
  scenarios: Scenario[];
  /** accounts without payments at a 5-minute interval, for the scheduled syncs' lag */
  scheduled: { accounts: number; merchants: number; spreadSec: number; duringWindow: boolean };
  latePayers: number;
  /** after the pending payments are created, before the window: the checks reach their steady pace */
  settleSec: number;
  linkConcurrency: number;
  createConcurrency: number;
};

const FULL: Size = {
  scenarios: [
    {
      id: 'A',
      label: '50 accounts, 100 pending payments',
      short: '50 accounts, 100 pending',
      accounts: 50,
      pendingPerAccount: 2,
      payPerSecond: 1,
      windowSec: 300,
      merchants: 1,
    },
    {
      id: 'B',
      label: '1,000 accounts, a pending payment each',
      short: '1,000 accounts, 1,000 pending',
      accounts: 1_000,
      pendingPerAccount: 1,
      payPerSecond: 2.5,
      windowSec: 300,
      merchants: 4,
    },
  ],
  scheduled: { accounts: 200, merchants: 2, spreadSec: 300, duringWindow: false },
  latePayers: 10,
  settleSec: 15,
  linkConcurrency: 16,
  createConcurrency: 8,
};
const QUICK: Size = {
  scenarios: [
    {
      id: 'A',
      label: '10 accounts, 20 pending payments',
      short: '10 accounts, 20 pending',
      accounts: 10,
      pendingPerAccount: 2,
      payPerSecond: 0.5,
      windowSec: 40,
      merchants: 1,
    },
    {
      id: 'B',
      label: '40 accounts, a pending payment each',
      short: '40 accounts, 40 pending',
      accounts: 40,
      pendingPerAccount: 1,
      payPerSecond: 1,
      windowSec: 40,
      merchants: 2,
    },
  ],
  scheduled: { accounts: 10, merchants: 1, spreadSec: 35, duringWindow: true },
  latePayers: 0,
  settleSec: 5,
  linkConcurrency: 8,
  createConcurrency: 4,
};

const GOALS = { paidToWebhookP99Ms: 20_000, scheduledLagP99Ms: 5_000 } as const;
/** The service's defaults (src/config.ts PAYMENT_CHECK_*), which the started service runs with. */
const CADENCE = { fastSeconds: 15, fastForMinutes: 10, slowSeconds: 60 } as const;
const RECEIVER_INTERVAL_MINUTES = 60;
const SCHEDULED_INTERVAL_MINUTES = 5;
/** a paid payment whose webhook has not arrived this long after the last payment counts as missing */
const DRAIN_MS = 180_000;

// ---------------------------------------------------------------- statistics

export type Stats = { n: number; p50: number; p90: number; p95: number; p99: number; max: number; mean: number };

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

/** Percentiles; missing values (Infinity) sort last, so a percentile that reaches them is Infinity. */
export function stats(values: number[]): Stats {
  const sorted = [...values].sort((a, b) => a - b);
  const finite = sorted.filter(Number.isFinite);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? NaN,
    mean: finite.length ? finite.reduce((a, b) => a + b, 0) / finite.length : NaN,
  };
}

export const secs = (ms: number) =>
  Number.isNaN(ms) ? 'n/a' : Number.isFinite(ms) ? (ms / 1000).toFixed(2) : 'missing';
const fmt1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const pct = (share: number | null) =>
  share === null || !Number.isFinite(share) ? 'n/a' : `${Math.round(share * 100)} %`;

// ---------------------------------------------------------------- HTTP

export async function call<T = Record<string, unknown>>(
  url: string,
  init: { method?: string; key?: string; body?: unknown; cookie?: string } = {},
): Promise<T> {
  const headers: Record<string, string> = {};
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.key) headers['x-api-key'] = init.key;
  if (init.cookie) headers.cookie = init.cookie;
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  if (!response.ok)
    throw new Error(
      `${init.method ?? (init.body === undefined ? 'GET' : 'POST')} ${url}: ${response.status} ${text.slice(0, 300)}`,
    );
  return (text ? JSON.parse(text) : {}) as T;
}

/** Tries an idempotent-enough set-up call again after a transient failure (a 5xx, a reset connection). */
export async function retrying<T>(what: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await what();
    } catch (err) {
      if (i >= attempts || /: 4\d\d /.test(String(err))) throw err;
      await sleep(500 * i);
    }
  }
}

/** Runs `items` through `work`, at most `concurrency` at once, in order of start. */
export async function bounded<T, R>(
  items: T[],
  concurrency: number,
  work: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  return results;
}

export type Merchant = { name: string; key: string };

/** Registered (the session cookie), with an API key. */
export async function registerMerchant(baseUrl: string, name: string): Promise<Merchant> {
  const email = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${Date.now()}@bench.example`;
  const registered = await fetch(`${baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, email, password: 'rahasia123' }),
  });
  if (!registered.ok) throw new Error(`register ${name}: ${registered.status} ${await registered.text()}`);
  const cookie = registered.headers.get('set-cookie')!.split(';')[0]!;
  const key = (
    await call<{ data: { key: string } }>(`${baseUrl}/api/dashboard/api-keys`, { body: { name: 'bench' }, cookie })
  ).data.key;
  return { name, key };
}

export type Account = { id: string; merchant: Merchant; phone: string; providerCode: string; linkedAt: number };

export async function linkWallet(
  baseUrl: string,
  merchant: Merchant,
  phone: string,
  providerCode: string,
  intervalMinutes: number,
  name: string,
): Promise<Account> {
  const linked = await retrying(() =>
    call<{ accountId: string }>(`${baseUrl}/api/v1/accounts`, {
      key: merchant.key,
      body: { type: 'ewallet', providerCode, accountName: name, intervalMinutes, phoneNumber: phone },
    }),
  );
  return { id: linked.accountId, merchant, phone, providerCode, linkedAt: Date.now() };
}

/** Reads a QR image back to its payload, as a payer's phone would (the idea of test/support/payments.ts). */
async function decodeQrPng(png: Buffer): Promise<string> {
  const image = await Jimp.read(png);
  const decoded = jsQR(new Uint8ClampedArray(image.bitmap.data), image.bitmap.width, image.bitmap.height);
  if (!decoded?.data) throw new Error('the QR image could not be read');
  return decoded.data;
}

type Payment = {
  id: string;
  account: Account;
  totalAmount: number;
  qris: string;
  createdAt: number;
  kind: 'steady' | 'late';
  paidAt?: number;
  transactionId?: string;
  webhookAt?: number;
};

let orderSeed = 0;

/** A QRIS-DYNAMIC payment into the account, and its QR read back from the qrisImage PNG. */
async function createPayment(baseUrl: string, account: Account, kind: Payment['kind']): Promise<Payment> {
  const orderId = `fast-${process.pid}-${++orderSeed}`;
  const created = await retrying(() =>
    call<{ data: { id: string; totalAmount: number; qrisImage?: string; type: string } }>(
      `${baseUrl}/api/v1/payments`,
      {
        key: account.merchant.key,
        body: {
          amount: 20_000 + (orderSeed % 200) * 500,
          walletAccountId: account.id,
          type: 'QRIS-DYNAMIC',
          redirectUrl: 'https://shop.example/thanks',
          orderId,
        },
      },
    ),
  );
  const createdAt = Date.now();
  const { id, totalAmount, qrisImage, type } = created.data;
  if (!qrisImage) throw new Error(`payment ${id} (${type}) has no qrisImage`);
  // the image's address is built on PUBLIC_BASE_URL (localhost:PORT): fetch its path from the service as started
  const imageUrl = `${baseUrl}${new URL(qrisImage).pathname}`;
  const png = await retrying(async () => {
    const response = await fetch(imageUrl);
    if (!response.ok) throw new Error(`GET ${imageUrl}: ${response.status}`);
    return Buffer.from(await response.arrayBuffer());
  });
  return { id, account, totalAmount, qris: await decodeQrPng(png), createdAt, kind };
}

/** The customer pays the QR in the sandbox; paidAt is when the sandbox answered (the credit exists from then on). */
async function pay(sandboxUrl: string, p: Payment): Promise<void> {
  const answer = await call<{ transactionId: string; amount: number }>(`${sandboxUrl}/sandbox/payments`, {
    body: { qris: p.qris },
  });
  p.paidAt = Date.now();
  p.transactionId = answer.transactionId;
  if (answer.amount !== p.totalAmount)
    throw new Error(`payment ${p.id}: the QR paid ${answer.amount}, the payment asks ${p.totalAmount}`);
}

/**
 * The merchants' webhook endpoints (/hooks/<merchant>): the first payment.completed of each payment whose signature
 * verifies with its merchant's secret, with its arrival time.
 */
export async function startReceiver() {
  const arrived = new Map<string, number>();
  const secrets = new Map<string, Webhook>();
  let deliveries = 0;
  let refused = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', c => chunks.push(c as Buffer));
    req.on('end', () => {
      const at = Date.now();
      res.writeHead(204).end();
      deliveries++;
      try {
        const verifier = secrets.get(req.url ?? '');
        if (!verifier) throw new Error(`no endpoint ${req.url}`);
        const body = verifier.verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>) as {
          type?: string;
          data?: { id?: string };
        };
        if (body.type === 'payment.completed' && body.data?.id && !arrived.has(body.data.id))
          arrived.set(body.data.id, at);
      } catch {
        refused++;
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    /** an endpoint for a merchant: its URL, to be registered; then `verifyWith` its secret */
    endpoint: (merchant: string) => ({
      url: `${base}/hooks/${encodeURIComponent(merchant)}`,
      verifyWith: (secret: string) => void secrets.set(`/hooks/${encodeURIComponent(merchant)}`, new Webhook(secret)),
    }),
    arrived,
    deliveries: () => deliveries,
    /** deliveries whose signature did not verify (or that were not for an endpoint of ours) */
    refused: () => refused,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>(resolve => server.close(() => resolve()));
    },
  };
}

/** A read-only connection to the service's own database: its port from postmaster.pid, its password from secrets.json. */
export function serviceDatabase(dataDir: string): pg.Pool {
  const port = Number(readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[3]);
  const { embeddedPostgresPassword } = JSON.parse(readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')) as {
    embeddedPostgresPassword: string;
  };
  const pool = new pg.Pool({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    password: embeddedPostgresPassword,
    database: 'service',
    max: 2,
    options: '-c default_transaction_read_only=on',
  });
  pool.on('error', () => undefined);
  return pool;
}

// ---------------------------------------------------------------- one scenario

type QueueSample = { t: number; checkReady: number; checkTotal: number; syncReady: number; syncTotal: number };

type ScenarioResult = {
  scenario: Scenario;
  setup: {
    linkSeconds: number;
    linksPerSecond: number;
    createSeconds: number;
    scheduledLinkSeconds: number;
    totalSeconds: number;
  };
  window: { start: number; end: number; seconds: number };
  paid: {
    count: number;
    paidToWebhook: Stats;
    paidToRecorded: Stats;
    recordedToWebhook: Stats;
    missing: number;
    ageAtPaymentS: Stats;
    queueStarved: number;
    payFailures: number;
  };
  late: { count: number; paidToWebhook: Stats; ageAtPaymentS: Stats; missing: number } | null;
  scheduled: { accounts: number; slotsExpected: number; slotsObserved: number; kind: string; lag: Stats };
  checks: {
    inWindow: number;
    perMinute: number;
    expectedPerMinute: number;
    providerRequestsPerMinute: number;
    accountsChecked: number;
    /** between two checks of one account, both in the window (ms) */
    interval: Stats;
    scheduledSyncsInWindow: number;
    refreshesInWindow: number;
  };
  queue: { checkReadyMax: number; checkReadyMean: number; syncReadyMax: number; samples: number };
  cpu: { serviceNodePct: number | null; servicePgPct: number | null; benchPct: number; othersPct: number | null };
  events: { inWindowPerMinute: number; total: number; databaseBytes: number };
  webhooks: { deliveries: number; refused: number };
  loadavgBefore: number[];
  loadavgAfter: number[];
};

async function runScenario(
  ctx: BenchContext,
  size: Size,
  scenario: Scenario,
  tmp: string,
  started: StartedService[],
): Promise<ScenarioResult | null> {
  const loadavgBefore = os.loadavg();
  const dataDir = mkdtempSync(path.join(tmp, `data-${scenario.id}-`));
  console.log(
    `\nscenario ${scenario.id}: ${scenario.label}; paying ${scenario.payPerSecond}/s for ${scenario.windowSec} s`,
  );
  console.log(`  load average ${loadavgBefore.map(l => l.toFixed(2)).join(' ')}`);
  const service = await startService({
    checkout: repoRoot,
    dataDir,
    port: await freePort(),
    sandboxPort: await freePort(),
    logFile: path.join(tmp, `service-${scenario.id}.log`),
  });
  started.push(service);
  const receiver = await startReceiver();
  const db = serviceDatabase(dataDir);
  let sampler: NodeJS.Timeout | undefined;
  try {
    const base = service.url;
    const t0 = Date.now();

    // merchants: the receiving ones (webhook endpoint at the receiver), and those of the scheduled group
    const receivingMerchants: Merchant[] = [];
    for (let m = 0; m < scenario.merchants; m++) {
      const merchant = await registerMerchant(base, `Toko ${scenario.id}${m + 1}`);
      const endpoint = receiver.endpoint(merchant.name);
      const hook = await call<{ data: { secret: string } }>(`${base}/api/v1/webhooks`, {
        key: merchant.key,
        body: { url: endpoint.url },
      });
      endpoint.verifyWith(hook.data.secret);
      receivingMerchants.push(merchant);
    }
    const scheduledMerchants: Merchant[] = [];
    for (let m = 0; m < size.scheduled.merchants; m++)
      scheduledMerchants.push(await registerMerchant(base, `Jadwal ${scenario.id}${m + 1}`));

    const scenarioDigit = scenario.id === 'A' ? '1' : '2';
    const phone = (group: string, i: number) => `0817${scenarioDigit}${group}${String(i).padStart(6, '0')}`;
    const wallet = (i: number) => (i % 2 === 0 ? 'WALLET-D' : 'WALLET-E');

    // late payers first: their payments must be past the fast period by the time they are paid
    const late: Payment[] = [];
    for (let i = 0; i < (ctx.quick ? 0 : size.latePayers); i++) {
      const account = await linkWallet(
        base,
        receivingMerchants[0]!,
        phone('9', i),
        wallet(i),
        RECEIVER_INTERVAL_MINUTES,
        `Telat ${i}`,
      );
      late.push(await createPayment(base, account, 'late'));
    }

    // the scheduled group, linked evenly over one interval (in the background)
    const scheduledAccounts: Account[] = [];
    const scheduledLinkFailures: string[] = [];
    const linkScheduled = async () => {
      const start = Date.now();
      const spacing = (size.scheduled.spreadSec * 1000) / size.scheduled.accounts;
      const inFlight = new Set<Promise<void>>();
      for (let i = 0; i < size.scheduled.accounts && !ctx.signal.aborted; i++) {
        const wait = start + i * spacing - Date.now();
        if (wait > 0) await sleep(wait, ctx.signal);
        const p: Promise<void> = linkWallet(
          base,
          scheduledMerchants[i % scheduledMerchants.length]!,
          phone('5', i),
          wallet(i),
          SCHEDULED_INTERVAL_MINUTES,
          `Jadwal ${i}`,
        )
          .then(
            a => void scheduledAccounts.push(a),
            (err: unknown) => void scheduledLinkFailures.push(String(err)),
          )
          .finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      await Promise.all(inFlight);
      return (Date.now() - start) / 1000;
    };
    let scheduledLinking: Promise<number> | undefined;
    if (!size.scheduled.duringWindow) {
      console.log(
        `  linking ${size.scheduled.accounts} accounts at a ${SCHEDULED_INTERVAL_MINUTES}-minute interval evenly over ${size.scheduled.spreadSec} s, in the background ...`,
      );
      scheduledLinking = linkScheduled();
    }

    // the receiving accounts, linked with bounded parallelism, spread over the merchants
    const linkStart = Date.now();
    const receivers = await bounded(
      Array.from({ length: scenario.accounts }, (_, i) => i),
      size.linkConcurrency,
      i =>
        linkWallet(
          base,
          receivingMerchants[i % receivingMerchants.length]!,
          phone('1', i),
          wallet(i),
          RECEIVER_INTERVAL_MINUTES,
          `Kasir ${i}`,
        ),
    );
    const linkSeconds = (Date.now() - linkStart) / 1000;
    console.log(
      `  linked ${fmtInt(receivers.length)} receiving accounts in ${linkSeconds.toFixed(1)} s (${fmt1(receivers.length / linkSeconds)}/s)`,
    );

    const scheduledLinkSeconds = scheduledLinking ? await scheduledLinking : NaN;
    if (scheduledLinking)
      console.log(
        `  scheduled group linked (${scheduledAccounts.length} of ${size.scheduled.accounts}, ${scheduledLinkFailures.length} failed)`,
      );
    if (ctx.signal.aborted) return null;

    // the pending payments: a round over every account, as many rounds as payments per account
    const createStart = Date.now();
    const order = Array.from(
      { length: scenario.accounts * scenario.pendingPerAccount },
      (_, i) => receivers[i % receivers.length]!,
    );
    const initial = await bounded(order, size.createConcurrency, a => createPayment(base, a, 'steady'));
    const createSeconds = (Date.now() - createStart) / 1000;
    console.log(
      `  ${fmtInt(initial.length)} pending payments created in ${createSeconds.toFixed(1)} s; settling ${size.settleSec} s ...`,
    );
    const queue: Payment[] = [...initial];
    const steady: Payment[] = [...initial];

    // the job queue, sampled every 2 s from here on
    const queueSamples: QueueSample[] = [];
    let sampling = false;
    sampler = setInterval(() => {
      if (sampling) return;
      sampling = true;
      db.query<{ task: string; total: number; ready: number }>(
        `select t.identifier as task, count(*)::int as total,
                count(*) filter (where j.locked_at is null and j.run_at <= now())::int as ready
           from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id group by 1`,
      )
        .then(r => {
          const of = (task: string) => r.rows.find(x => x.task === task);
          queueSamples.push({
            t: Date.now(),
            checkReady: of('check-account')?.ready ?? 0,
            checkTotal: of('check-account')?.total ?? 0,
            syncReady: of('sync-account')?.ready ?? 0,
            syncTotal: of('sync-account')?.total ?? 0,
          });
        })
        .catch(() => undefined)
        .finally(() => (sampling = false));
    }, 2000);
    await sleep(size.settleSec * 1000, ctx.signal);
    if (ctx.signal.aborted) return null;

    // the window: pay the oldest pending payment at a steady pace, replace it with a new one into the same account
    if (size.scheduled.duringWindow) scheduledLinking = linkScheduled();
    const cpu0 = treeCpuMs(service.pid);
    const self0 = process.cpuUsage();
    const busy0 = machineBusyMs();
    const windowStart = Date.now();
    const windowMs = scenario.windowSec * 1000;
    const interval = 1000 / scenario.payPerSecond;
    const inFlight = new Set<Promise<void>>();
    let launched = 0;
    let starved = 0;
    let payFailures = 0;
    const failures: string[] = [];
    const payAndReplace = async (p: Payment) => {
      try {
        await pay(service.sandboxUrl, p);
      } catch (err) {
        payFailures++;
        failures.push(String(err));
      }
      if (ctx.signal.aborted) return;
      try {
        const next = await createPayment(base, p.account, 'steady');
        queue.push(next);
        steady.push(next);
      } catch (err) {
        failures.push(`replacement: ${String(err)}`);
      }
    };
    // late payers, each once its payment is past the fast period (after the window if need be)
    const latePaying = Promise.all(
      late.map(async p => {
        const wait = p.createdAt + (CADENCE.fastForMinutes * 60 + 30) * 1000 - Date.now();
        if (wait > 0) await sleep(wait, ctx.signal);
        if (ctx.signal.aborted) return;
        await pay(service.sandboxUrl, p).catch(err => void failures.push(`late: ${String(err)}`));
      }),
    );
    let lastReport = Date.now();
    while (!ctx.signal.aborted) {
      const now = Date.now();
      if (now - windowStart >= windowMs) break;
      for (; windowStart + launched * interval <= now; launched++) {
        const p = queue.shift();
        if (!p) {
          starved++;
          continue;
        }
        const running: Promise<void> = payAndReplace(p).finally(() => inFlight.delete(running));
        inFlight.add(running);
      }
      if (now - lastReport >= 30_000) {
        lastReport = now;
        const done = steady.filter(x => x.paidAt !== undefined && receiver.arrived.has(x.id)).length;
        const last = queueSamples.at(-1);
        console.log(
          `  ${((now - windowStart) / 1000).toFixed(0)} s: ${launched} paid, ${done} webhooks in, ${queue.length} pending in the queue, ` +
            `check jobs ready ${last?.checkReady ?? 'n/a'} of ${last?.checkTotal ?? 'n/a'}`,
        );
      }
      await sleep(5, ctx.signal);
    }
    const windowEnd = Date.now();
    const cpu1 = treeCpuMs(service.pid);
    const self = process.cpuUsage(self0);
    const busy1 = machineBusyMs();
    await Promise.all(inFlight);
    if (scheduledLinking) await scheduledLinking;
    if (ctx.signal.aborted) return null;
    console.log(
      `  window over: ${launched} payments paid; waiting for their webhooks${late.length ? ' and the late payers' : ''} ...`,
    );
    await latePaying;

    // the webhooks of every paid payment, or the deadline
    const paidOnes = () => [...steady, ...late].filter(p => p.paidAt !== undefined);
    const deadline = Math.max(Date.now(), ...paidOnes().map(p => p.paidAt!)) + DRAIN_MS;
    while (!ctx.signal.aborted && Date.now() < deadline && paidOnes().some(p => !receiver.arrived.has(p.id)))
      await sleep(250, ctx.signal);
    clearInterval(sampler);
    sampler = undefined;
    for (const p of [...steady, ...late]) p.webhookAt = receiver.arrived.get(p.id);
    if (failures.length) console.log(`  ${failures.length} failure(s), e.g. ${failures[0]}`);

    // ---------------------------------------------------------------- what the service recorded
    const synced = (
      await db.query<{ account_id: string; trigger: string; slot: string | null; synced_at: string }>(
        `select data->>'accountId' as account_id, data->>'trigger' as trigger, data->>'slot' as slot, data->>'syncedAt' as synced_at
           from es_events where type = 'AccountSynced'`,
      )
    ).rows.map(r => ({
      accountId: r.account_id,
      trigger: r.trigger,
      slot: r.slot ? Date.parse(r.slot) : null,
      at: Date.parse(r.synced_at),
    }));
    const recordedAt = new Map(
      (
        await db.query<{ tx: string; at: string }>(
          `select data->>'providerTransactionId' as tx, data->>'recordedAt' as at from es_events where type = 'MutationRecorded'`,
        )
      ).rows.map(r => [r.tx, Date.parse(r.at)]),
    );
    const linkedAt = new Map(
      (
        await db.query<{ id: string; at: string }>(
          `select data->>'accountId' as id, data->>'linkedAt' as at from es_events where type = 'AccountLinked'`,
        )
      ).rows.map(r => [r.id, Date.parse(r.at)]),
    );
    const eventsInWindow = Number(
      (
        await db.query<{ n: string }>(
          `select count(*)::text as n from es_events where (${occurredAtOfSql('es_events')})::timestamptz between $1 and $2`,
          [new Date(windowStart), new Date(windowEnd)],
        )
      ).rows[0]!.n,
    );
    const totals = (
      await db.query<{ events: string; bytes: string }>(
        `select (select count(*) from es_events)::text as events, pg_database_size('service')::text as bytes`,
      )
    ).rows[0]!;

    // ---------------------------------------------------------------- figures
    const inWindow = (t: number) => t >= windowStart && t <= windowEnd;
    const paidSteady = steady.filter(p => p.paidAt !== undefined);
    const latency = (list: Payment[]) =>
      list.map(p => (p.webhookAt !== undefined ? p.webhookAt - p.paidAt! : Infinity));
    const withRecord = paidSteady.filter(p => p.transactionId && recordedAt.has(p.transactionId));
    const paidToRecorded = stats(withRecord.map(p => recordedAt.get(p.transactionId!)! - p.paidAt!));
    const recordedToWebhook = stats(
      withRecord.filter(p => p.webhookAt !== undefined).map(p => p.webhookAt! - recordedAt.get(p.transactionId!)!),
    );
    const paidLate = late.filter(p => p.paidAt !== undefined);

    // scheduled syncs of the scheduled group whose slot falls in the window
    const scheduledIds = new Set(scheduledAccounts.map(a => a.id));
    const slotsObserved = synced.filter(
      s => s.trigger === 'schedule' && scheduledIds.has(s.accountId) && s.slot !== null && inWindow(s.slot),
    );
    const slotEveryMs = SCHEDULED_INTERVAL_MINUTES * 60_000;
    let slotsExpected = 0;
    for (const a of scheduledAccounts) {
      const first = linkedAt.get(a.id);
      if (first === undefined) continue;
      for (let slot = first; slot <= windowEnd; slot += slotEveryMs) if (slot >= windowStart) slotsExpected++;
    }
    const firstSlots = slotsObserved.filter(s => s.slot === linkedAt.get(s.accountId)).length;
    const slotKind =
      firstSlots === slotsObserved.length
        ? 'first slots'
        : firstSlots === 0
          ? 'regular slots'
          : `${firstSlots} first, ${slotsObserved.length - firstSlots} regular slots`;

    // checks: measured, and what the cadence asks for, second by second over the window
    const checks = synced.filter(s => s.trigger === 'payment-check');
    const checksInWindow = checks.filter(s => inWindow(s.at));
    const byAccount = new Map<string, number[]>();
    for (const c of checks) byAccount.set(c.accountId, [...(byAccount.get(c.accountId) ?? []), c.at]);
    const gaps: number[] = [];
    for (const list of byAccount.values()) {
      list.sort((a, b) => a - b);
      for (let i = 1; i < list.length; i++)
        if (inWindow(list[i - 1]!) && inWindow(list[i]!)) gaps.push(list[i]! - list[i - 1]!);
    }
    const lives = new Map<string, { created: number; ended: number }[]>();
    for (const p of [...steady, ...late]) {
      const ended = p.webhookAt ?? Infinity;
      lives.set(p.account.id, [...(lives.get(p.account.id) ?? []), { created: p.createdAt, ended }]);
    }
    let expectedChecks = 0;
    for (let t = windowStart; t < windowEnd; t += 1000) {
      for (const list of lives.values()) {
        let newest = -Infinity;
        for (const l of list) if (l.created <= t && t < l.ended && l.created > newest) newest = l.created;
        if (newest === -Infinity) continue;
        const young = t - newest < CADENCE.fastForMinutes * 60_000;
        expectedChecks +=
          Math.min(1, (t + 1000 > windowEnd ? windowEnd - t : 1000) / 1000) /
          (young ? CADENCE.fastSeconds : CADENCE.slowSeconds);
      }
    }
    const windowMinutes = (windowEnd - windowStart) / 60_000;
    const perMinute = checksInWindow.length / windowMinutes;
    const windowQueue = queueSamples.filter(s => inWindow(s.t));
    const cpuShare = (a: TreeCpu | null, b: TreeCpu | null, k: 'nodeMs' | 'pgMs') =>
      a && b ? (b[k] - a[k]) / (windowEnd - windowStart) : null;
    const selfMs = (self.user + self.system) / 1000;
    const serviceMs = cpu0 && cpu1 ? cpu1.nodeMs + cpu1.pgMs - cpu0.nodeMs - cpu0.pgMs : 0;
    const othersPct =
      busy0 === null || busy1 === null
        ? null
        : Math.max(0, busy1 - busy0 - serviceMs - selfMs) / (windowEnd - windowStart) / os.cpus().length;

    const result: ScenarioResult = {
      scenario,
      setup: {
        linkSeconds,
        linksPerSecond: receivers.length / linkSeconds,
        createSeconds,
        scheduledLinkSeconds,
        totalSeconds: (windowStart - t0) / 1000,
      },
      window: { start: windowStart, end: windowEnd, seconds: (windowEnd - windowStart) / 1000 },
      paid: {
        count: paidSteady.length,
        paidToWebhook: stats(latency(paidSteady)),
        paidToRecorded,
        recordedToWebhook,
        missing: paidSteady.filter(p => p.webhookAt === undefined).length,
        ageAtPaymentS: stats(paidSteady.map(p => (p.paidAt! - p.createdAt) / 1000)),
        queueStarved: starved,
        payFailures,
      },
      late: late.length
        ? {
            count: paidLate.length,
            paidToWebhook: stats(latency(paidLate)),
            ageAtPaymentS: stats(paidLate.map(p => (p.paidAt! - p.createdAt) / 1000)),
            missing: paidLate.filter(p => p.webhookAt === undefined).length,
          }
        : null,
      scheduled: {
        accounts: scheduledAccounts.length,
        slotsExpected,
        slotsObserved: slotsObserved.length,
        kind: slotKind,
        lag: stats(slotsObserved.map(s => s.at - s.slot!)),
      },
      checks: {
        inWindow: checksInWindow.length,
        perMinute,
        expectedPerMinute: expectedChecks / windowMinutes,
        // a check asks the provider for the balance and one page of transactions
        providerRequestsPerMinute: perMinute * 2,
        accountsChecked: new Set(checksInWindow.map(c => c.accountId)).size,
        interval: stats(gaps),
        scheduledSyncsInWindow: synced.filter(s => s.trigger === 'schedule' && inWindow(s.at)).length,
        refreshesInWindow: synced.filter(s => s.trigger === 'refresh' && inWindow(s.at)).length,
      },
      queue: {
        checkReadyMax: windowQueue.length ? Math.max(...windowQueue.map(s => s.checkReady)) : NaN,
        checkReadyMean: windowQueue.length
          ? windowQueue.reduce((a, s) => a + s.checkReady, 0) / windowQueue.length
          : NaN,
        syncReadyMax: windowQueue.length ? Math.max(...windowQueue.map(s => s.syncReady)) : NaN,
        samples: windowQueue.length,
      },
      cpu: {
        serviceNodePct: cpuShare(cpu0, cpu1, 'nodeMs'),
        servicePgPct: cpuShare(cpu0, cpu1, 'pgMs'),
        benchPct: selfMs / (windowEnd - windowStart),
        othersPct,
      },
      events: {
        inWindowPerMinute: eventsInWindow / windowMinutes,
        total: Number(totals.events),
        databaseBytes: Number(totals.bytes),
      },
      webhooks: { deliveries: receiver.deliveries(), refused: receiver.refused() },
      loadavgBefore,
      loadavgAfter: os.loadavg(),
    };
    const l = result.paid.paidToWebhook;
    console.log(
      `  paid → webhook: ${result.paid.count} payments, p50 ${secs(l.p50)} s, p90 ${secs(l.p90)} s, p99 ${secs(l.p99)} s, max ${secs(l.max)} s, ${result.paid.missing} missing; ` +
        `scheduled lag p99 ${secs(result.scheduled.lag.p99)} s over ${result.scheduled.slotsObserved} ${slotKind}; ` +
        `${fmtInt(perMinute)} checks/min (cadence ${fmtInt(result.checks.expectedPerMinute)})`,
    );
    return result;
  } finally {
    if (sampler) clearInterval(sampler);
    await db.end().catch(() => undefined);
    await receiver.close().catch(() => undefined);
    await service.stop().catch(err => console.error(`  stopping the service: ${String(err)}`));
    started.splice(started.indexOf(service), 1);
  }
}

// ---------------------------------------------------------------- run

export async function run(ctx: BenchContext): Promise<void> {
  const size = ctx.quick ? QUICK : FULL;
  const cpus = os.cpus().length;
  const loadBefore = os.loadavg();
  let commit = 'unknown';
  let dirty = '';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'package.json', 'package-lock.json'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    // not a git checkout
  }
  console.log(
    `fast completion: payment to webhook with nobody asking, the scheduled syncs' lag beside, the checks' cost; ` +
      `a service of its own per scenario (npm start's command)${ctx.quick ? " — quick run: small sizes, not the goals' figures" : ''}`,
  );
  if (loadBefore[0]! > cpus * 0.5)
    console.warn(`  note: load average ${loadBefore[0]!.toFixed(1)} on ${cpus} CPUs, the results will be noisy`);

  const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-fast-'));
  // run as root, the embedded PostgreSQL runs as 'postgres', which must pass through to its data folder
  chmodSync(tmp, 0o711);
  const started: StartedService[] = [];
  const killServices = killOnExit(started);
  const results: ScenarioResult[] = [];
  const mixResults: MixResult[] = [];
  try {
    // the two cadences side by side on one payer mix, each in a service of its own
    const runs = [
      ['fixed', false],
      ['payer', false],
      ['payer', true],
      ...(process.env.FAST_COMPLETION_FIXED_PUSH === '1' ? [['fixed', true] as const] : []),
    ] as const;
    for (const [cadence, push] of runs) {
      if (ctx.signal.aborted) return;
      const r = await runMix(ctx, ctx.quick ? MIX_QUICK : MIX_FULL, cadence, push, tmp, started, repoRoot);
      if (r) mixResults.push(r);
    }
    // the steady scenarios below (every account always holding a young payment, the scheduled syncs' lag beside) take
    // a quarter of an hour more: FAST_COMPLETION_STEADY=1 runs them too
    for (const scenario of process.env.FAST_COMPLETION_STEADY === '1' ? size.scenarios : []) {
      if (ctx.signal.aborted) return;
      const r = await runScenario(ctx, size, scenario, tmp, started);
      if (r) results.push(r);
    }
  } finally {
    process.removeListener('exit', killServices);
    rmSync(tmp, { recursive: true, force: true });
  }
  if (ctx.signal.aborted) return;
  const loadAfter = os.loadavg();

  // ---------------------------------------------------------------- tables
  const ratioCell = (value: number, goal: number) => (Number.isFinite(value) ? fmtRatio(value / goal) : 'n/a');
  const verdict = (value: number, goal: number) => (Number.isFinite(value) && value < goal ? 'PASS' : 'MISS');
  const quad = (s: Stats, keys: ('p50' | 'p90' | 'p95' | 'p99' | 'max')[]) =>
    `${keys.map(k => secs(s[k])).join(' / ')} s`;
  const mainHeader = ['scenario', 'figure', 'value', 'goal', 'ratio', 'result'];
  const mainRows: string[][] = [];
  for (const r of results) {
    const tag = `${r.scenario.id}: ${r.scenario.short}`;
    mainRows.push([
      tag,
      `paid → webhook p50 / p90 / p99 / max (${fmtInt(r.paid.count)} paid${r.paid.missing ? `, ${r.paid.missing} missing` : ''})`,
      quad(r.paid.paidToWebhook, ['p50', 'p90', 'p99', 'max']),
      'p99 < 20 s',
      ratioCell(r.paid.paidToWebhook.p99, GOALS.paidToWebhookP99Ms),
      verdict(r.paid.paidToWebhook.p99, GOALS.paidToWebhookP99Ms),
    ]);
    mainRows.push([
      tag,
      `scheduled-sync lag p50 / p95 / p99 / max (${fmtInt(r.scheduled.slotsObserved)} ${r.scheduled.kind} of ${fmtInt(r.scheduled.slotsExpected)} due)`,
      quad(r.scheduled.lag, ['p50', 'p95', 'p99', 'max']),
      'p99 < 5 s',
      ratioCell(r.scheduled.lag.p99, GOALS.scheduledLagP99Ms),
      r.scheduled.slotsObserved < r.scheduled.slotsExpected
        ? 'MISS (slots not synced)'
        : verdict(r.scheduled.lag.p99, GOALS.scheduledLagP99Ms),
    ]);
    mainRows.push([
      tag,
      'payment checks per minute (provider requests/min)',
      `${fmtInt(r.checks.perMinute)} (${fmtInt(r.checks.providerRequestsPerMinute)})`,
      `cadence asks ${fmtInt(r.checks.expectedPerMinute)}`,
      fmtRatio(r.checks.perMinute / r.checks.expectedPerMinute),
      '—',
    ]);
    if (r.late)
      mainRows.push([
        tag,
        `late payer (past 10 min: checked each minute) paid → webhook p50 / max (${r.late.count})`,
        quad(r.late.paidToWebhook, ['p50', 'max']),
        `no goal (slow cadence ${CADENCE.slowSeconds} s)`,
        '—',
        '—',
      ]);
  }

  const detailHeader = [
    'scenario',
    'paid → credit recorded p50 / p99',
    'recorded → webhook p50 / p99',
    'between checks of an account p50 / p99',
    'check jobs ready mean / max',
    'payment age when paid',
    'service CPU (Node + PG, of one CPU)',
    'events/min',
    "others' CPU",
  ];
  const detailRows = results.map(r => [
    r.scenario.id,
    quad(r.paid.paidToRecorded, ['p50', 'p99']),
    quad(r.paid.recordedToWebhook, ['p50', 'p99']),
    quad(r.checks.interval, ['p50', 'p99']),
    `${fmt1(r.queue.checkReadyMean)} / ${fmtInt(r.queue.checkReadyMax)}`,
    `${fmtInt(r.paid.ageAtPaymentS.p50)} s (max ${fmtInt(r.paid.ageAtPaymentS.max)} s)`,
    `${pct(r.cpu.serviceNodePct)} + ${pct(r.cpu.servicePgPct)}`,
    fmtInt(r.events.inWindowPerMinute),
    pct(r.cpu.othersPct),
  ]);
  const setupHeader = [
    'scenario',
    'receiving accounts linked',
    'pending payments created',
    'scheduled group',
    'window',
    'events at the end',
    'database at the end',
    'load average before → after',
  ];
  const setupRows = results.map(r => [
    r.scenario.id,
    `${fmtInt(r.scenario.accounts)} in ${r.setup.linkSeconds.toFixed(1)} s (${fmt1(r.setup.linksPerSecond)}/s)`,
    `${fmtInt(r.scenario.accounts * r.scenario.pendingPerAccount)} in ${r.setup.createSeconds.toFixed(1)} s`,
    `${fmtInt(r.scheduled.accounts)} at ${SCHEDULED_INTERVAL_MINUTES} min`,
    `${r.window.seconds.toFixed(0)} s, ${r.scenario.payPerSecond}/s paid`,
    fmtInt(r.events.total),
    `${(r.events.databaseBytes / 2 ** 20).toFixed(0)} MiB`,
    `${r.loadavgBefore.map(l => l.toFixed(2)).join(' ')} → ${r.loadavgAfter.map(l => l.toFixed(2)).join(' ')}`,
  ]);

  if (results.length)
    console.log(
      `\n${textTable(mainHeader, mainRows)}\n\n${textTable(detailHeader, detailRows)}\n\n${textTable(setupHeader, setupRows)}`,
    );
  console.log(
    `\nload average before ${loadBefore.map(l => l.toFixed(2)).join(' ')}, after ${loadAfter.map(l => l.toFixed(2)).join(' ')}`,
  );

  const mixHeader = [
    'cadence',
    'push',
    'paid → webhook p50 / p90 / p99 / max (paid in the span)',
    'on time p50 / p99',
    'late (downloaded QR) p50 / p99',
    'checks per paid payment (provider requests)',
    'checks/min',
    'goal (no push: p50 < 3 s, p99 < 8 s)',
  ];
  const fixedPerPaid = mixResults.find(r => r.cadence === 'fixed' && !r.push)?.checksPerPaid ?? NaN;
  const mixRows = mixResults.flatMap(r => [
    [
      r.cadence === 'fixed' ? 'fixed (15 s, then 60 s)' : 'follows the payer',
      r.push ? 'on' : 'off',
      `${quad(r.paidToWebhook, ['p50', 'p90', 'p99', 'max'])} (${fmtInt(r.paidInSpan)}${r.missing ? `, ${r.missing} missing` : ''})`,
      quad(r.byKind['on-time'], ['p50', 'p99']),
      `${quad(r.byKind.late, ['p50', 'p99'])} (${r.byKind.late.n})`,
      `${r.checksPerPaid.toFixed(1)} (${(r.checksPerPaid * 2).toFixed(1)})`,
      fmtInt(r.checksPerMinute),
      r.push
        ? `with push p50 < 1 s: ${r.paidToWebhook.p50 < 1000 ? 'PASS' : 'MISS'}`
        : `${r.paidToWebhook.p50 < 3000 && r.paidToWebhook.p99 < 8000 ? 'PASS' : 'MISS'}${r.cadence === 'payer' ? `; checks ${fmtRatio(r.checksPerPaid / fixedPerPaid)} of fixed (goal ≤ 1.00×: ${r.checksPerPaid <= fixedPerPaid ? 'PASS' : 'MISS'})` : ''}`,
    ],
  ]);
  console.log(`\n${textTable(mixHeader, mixRows)}`);

  const markdown = [
    '# Fast completion: payment to webhook with nobody asking',
    '',
    `${ctx.quick ? '**Quick run (a smoke test, not the figures).** ' : ''}${new Date().toISOString()}, ${cpus} vCPU, Node ${process.version}, the service of this checkout at ${commit}${dirty ? ' with uncommitted changes in src/ or the package files' : ''}.`,
    '',
    `## The cadences side by side (bench/payer-mix.ts)`,
    '',
    `${fmtInt((ctx.quick ? MIX_QUICK : MIX_FULL).accounts)} receiving accounts, customers one after another at each (a gap of ${(ctx.quick ? MIX_QUICK : MIX_FULL).gapSec.join(' to ')} s), each page asking for its status every 3 s while in sight, once with visibility=hidden as it goes out of sight, and at once when back (a page closed also asks once with visibility=closed as it goes): 60 % on a phone read the page, leave it for the wallet app (four in five saving the QR first, the others a screenshot) 5 to 40 s before paying, 10 to 120 s after the bill, and come back 2 to 6 s after paying; 15 % at a desk keep the page in sight and pay with a phone 5 to 120 s after the bill; 10 % download the QR in a page open 20 s, close it (hidden, then closed) and pay 3 to 10 minutes later; 15 % open the page 20 to 60 s, close it (hidden, then closed) and never pay; bills of 15 minutes. The same customers (one seed) for each cadence, each in a service of its own (PAYMENT_CHECK_CADENCE). Measured over ${mixResults[0]?.spanSeconds ?? 'n/a'} s after the first ${(ctx.quick ? MIX_QUICK : MIX_FULL).measureFromSec} s: paid (the sandbox's answer) to the first signed payment.completed; checks = AccountSynced with trigger payment-check in the span, per payment paid in it (a check asks the provider for the balance and a page of transactions: two requests). No refresh, no "Saya sudah bayar"; push off is SANDBOX_PUSH=none, on is the sandbox's default (it notifies for the e-wallets). Load average ${mixResults.map(r => `${r.cadence}${r.push ? '+push' : ''} ${r.loadavg[0].map(l => l.toFixed(2)).join(' ')} → ${r.loadavg[1].map(l => l.toFixed(2)).join(' ')}`).join('; ')}.`,
    '',
    markdownTable(mixHeader, mixRows),
    '',
    '## Steady load (every account always holding a young payment)',
    '',
    `${ctx.quick ? '**Quick run (a smoke test, not the figures).** ' : ''}${new Date().toISOString()}, ${cpus} vCPU, Node ${process.version}, the service of this checkout at ${commit}${dirty ? ' with uncommitted changes in src/ or the package files' : ''}. Load average ${loadBefore.map(l => l.toFixed(2)).join(' ')} before, ${loadAfter.map(l => l.toFixed(2)).join(' ')} after.`,
    '',
    "Per scenario a service of its own, started with `npm start`'s command (bench/processes.ts: its own DATA_DIR, so its own embedded PostgreSQL and sandbox, the real clock, logging at its default level to a file), set up over HTTP: merchants registered, each with an API key and a webhook endpoint at a receiver in the benchmark's process; receiving accounts are sandbox `WALLET-D`/`WALLET-E` wallets linked by phone number, synchronised hourly. Each holds pending QRIS-DYNAMIC payments; during the window the oldest pending payment is paid at a steady pace in the sandbox (`POST /sandbox/payments {qris}`, the payload read back from the payment's `qrisImage` PNG) and a new payment is created into the same account, so the number pending stays put. Nobody refreshes or presses \"Saya sudah bayar\": only the payment checks (every 15 s while an account's newest pending payment is under 10 minutes old, then every minute) can complete a payment. Paid = the sandbox's answer; webhook = the first signed `payment.completed` for the payment at the receiver.",
    '',
    `Scheduled syncs: ${fmtInt(size.scheduled.accounts)} accounts without payments at a ${SCHEDULED_INTERVAL_MINUTES}-minute interval, ${size.scheduled.duringWindow ? 'linked during the window (their first slots are measured)' : `linked evenly over ${size.scheduled.spreadSec} s before the window, so that their regular slots fall evenly in it`}; lag = \`syncedAt\` − slot of their \`AccountSynced\` (trigger \`schedule\`) whose slot falls in the window. Checks: \`AccountSynced\` with trigger \`payment-check\` in the window, read from the service's event store (read-only); the cadence's figure integrates, second by second, 4 a minute for every account whose newest pending payment is under 10 minutes old and 1 for the others, from the benchmark's own record of each payment (created, webhook received). A check asks the provider for the balance and a page of transactions: two requests.`,
    '',
    markdownTable(mainHeader, mainRows),
    '',
    `ratio = figure / goal (under 1.00× meets it); for the checks, measured / what the cadence asks. Webhooks: ${results.map(r => `${r.scenario.id} ${fmtInt(r.webhooks.deliveries)} deliveries, ${r.webhooks.refused} whose signature did not verify${r.paid.payFailures ? `, ${r.paid.payFailures} sandbox payments failed` : ''}${r.paid.queueStarved ? `, ${r.paid.queueStarved} times no pending payment was left to pay` : ''}`).join('; ')}.`,
    '',
    'Where the time goes and what it costs (credit recorded = the `MutationRecorded` of the sandbox transaction; check jobs ready = `check-account` jobs waiting for a worker, sampled every 2 s; CPU over the window):',
    '',
    markdownTable(detailHeader, detailRows),
    '',
    markdownTable(setupHeader, setupRows),
  ];
  // without the steady scenarios, the comparison alone
  const mixOnly = markdown.indexOf('## Steady load (every account always holding a young payment)');
  const written = writeResults(
    NAME,
    {
      at: new Date().toISOString(),
      quick: ctx.quick,
      cpus,
      node: process.version,
      commit,
      uncommitted: dirty || null,
      goals: GOALS,
      cadence: CADENCE,
      size,
      loadavgBefore: loadBefore,
      loadavgAfter: loadAfter,
      scenarios: results,
      mix: mixResults,
    },
    (results.length ? markdown : markdown.slice(0, mixOnly)).join('\n'),
  );
  console.log(`\nwrote ${written.json}\nwrote ${written.md}`);
}
