/**
 * `npm run bench -- storage`: what a payment costs on disk over its whole life, after the retention. The service is
 * started as `npm start` starts it (bench/processes.ts) with TEST_CLOCK=true, set up over HTTP like a merchant (register,
 * API key, one WALLET-D account linked, one webhook endpoint on a port nothing listens on), then the mix of a shop:
 * 1,500 QRIS payments into the one account, a third paid in the sandbox (and synced), the rest expired by moving the
 * test clock past their expiry; the webhooks of every payment's end tried on their whole retry schedule until they fail
 * for good (the clock moved past the longest wait whenever no retry is due, which brings the queued ones forward). Then the clock is moved past
 * RETENTION_WEBHOOK_DAYS and the retention's pass (src/background/retention.ts, with the configuration's defaults) is
 * run once against the service's database, on the service's clock: its timer runs every ten minutes, longer than
 * this benchmark.
 *
 * Sizes are pg_total_relation_size (heap, indexes, TOAST) of every table: after the mix and after the retention as the
 * files stand after a VACUUM (space freed by deletes and updates waits for later rows), and after the retention once
 * more after VACUUM FULL, the live rows alone, each against a snapshot before the mix taken the same way; the goals
 * are judged on the live rows kept. The peer, in the same run: the rows of the payments benchmark's bare INSERT route (bench/payments-bare.ts), its
 * table and its body as the load sends it, in an embedded PostgreSQL of their own as the route keeps them. Ceiling:
 * 2 KB a payment in all, 1 KB of it events. Bytes do not depend on load: one run, no rounds.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startRetention } from '../src/background/retention.ts';
import { systemClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { freePort } from '../src/db/free-port.ts';
import { createLogger } from '../src/logger.ts';
import { retryDelaysMs } from '../src/webhooks/retry-schedule.ts';
import {
  fmtInt,
  fmtRatio,
  markdownTable,
  sleep,
  startBenchPostgres,
  textTable,
  writeResults,
  type BenchContext,
} from './harness.ts';
import { merchant, postJson } from './payments.ts';
import { embeddedDatabaseOf, killOnExit, startService } from './processes.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dayMs = 24 * 3_600_000;
const ceilingBytes = 2048;
const eventsCeilingBytes = 1024;

type Sizes = Map<string, number>;

/**
 * Every table's bytes (heap, indexes, TOAST) after a VACUUM of each: as the files stand (space freed by deletes and
 * updates is kept for later rows), or with `full` after VACUUM FULL: the live rows alone.
 */
async function sizes(db: Db, full: boolean): Promise<Sizes> {
  const where = `c.relkind = 'r' and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%'`;
  const tables = await ask<{ name: string }>(
    db,
    `select format('%I.%I', n.nspname, c.relname) as name from pg_class c join pg_namespace n on n.oid = c.relnamespace where ${where}`,
  );
  for (const t of tables) await ask(db, `vacuum ${full ? 'full ' : ''}${t.name}`);
  const r = await ask<{ name: string; bytes: string }>(
    db,
    `select c.relname || case when n.nspname = 'public' then '' else ' (' || n.nspname || ')' end as name,
            pg_total_relation_size(c.oid)::text as bytes
       from pg_class c join pg_namespace n on n.oid = c.relnamespace where ${where}`,
  );
  return new Map(r.map(row => [row.name, Number(row.bytes)]));
}

type Db = pg.Pool | pg.Client;

async function ask<R extends pg.QueryResultRow>(db: Db, sql: string, params: unknown[] = []): Promise<R[]> {
  return (await db.query<R>(sql, params)).rows;
}

const count = async (db: Db, sql: string, params: unknown[] = []) =>
  Number((await ask<{ n: string }>(db, sql, params))[0]!.n);

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 300_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await sleep(250);
  }
}

/** Runs `work` for 0..n-1, at most `concurrency` at once. */
async function each(n: number, concurrency: number, work: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

/**
 * The bare INSERT route's rows (bench/payments-bare.ts): `n` of them with the load's body, in an embedded PostgreSQL of
 * their own as the route keeps them. Answers their bytes (heap, index, TOAST).
 */
async function bareRows(n: number): Promise<number> {
  const server = await startBenchPostgres('bench-storage-bare');
  try {
    const db = new pg.Client({ connectionString: await server.createDatabase('bare') });
    await db.connect();
    try {
      await db.query(
        `create table bare_payments (id uuid primary key, order_id text not null, amount bigint not null, body jsonb not null, created_at timestamptz not null default now())`,
      );
      for (let i = 0; i < n; i++) {
        const body = {
          amount: 10_000 + (i % 1000) * 1_000,
          walletAccountId: randomUUID(),
          redirectUrl: 'https://shop.example/thanks',
          orderId: `bench-${i}-${randomUUID()}`,
        };
        await db.query('insert into bare_payments (id, order_id, amount, body) values ($1, $2, $3, $4)', [
          randomUUID(),
          body.orderId,
          body.amount,
          body,
        ]);
      }
      await db.query('vacuum full bare_payments');
      return await count(db, `select pg_total_relation_size('bare_payments') as n`);
    } finally {
      await db.end();
    }
  } finally {
    await server.stop();
  }
}

export async function run(ctx: BenchContext): Promise<void> {
  const payments = ctx.quick ? 150 : 1500;
  const paid = Math.floor(payments / 3);
  const bare = await bareRows(payments);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-storage-'));
  const service = await startService({
    checkout: repoRoot,
    dataDir,
    port: await freePort(),
    sandboxPort: await freePort(),
    // beside the data folder, which stop() deletes: kept to read after a failed run
    logFile: `${dataDir}.log`,
    // the endpoint that is down is on this machine: a private address, allowed as a tester allows it
    env: { TEST_CLOCK: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' },
  });
  const stopOnExit = killOnExit([service]);
  const database = embeddedDatabaseOf(service);
  const db = new pg.Pool({ connectionString: database.superuserUrl, max: 1 });
  db.on('error', () => undefined);
  const clockNow = async () =>
    Date.parse(((await (await fetch(`${service.url}/api/test-clock`)).json()) as { data: { now: string } }).data.now);
  const advance = (ms: number) => postJson(`${service.url}/api/test-clock`, { advanceSeconds: Math.ceil(ms / 1000) });
  try {
    const m = await merchant(service.url, 1, 1);
    const api = (route: string, body: unknown) => postJson(`${service.url}${route}`, body, { 'x-api-key': m.key });
    await api('/api/v1/webhooks', { url: `http://127.0.0.1:${await freePort()}/hooks` });
    const before = await sizes(db, true);
    // the same tables as the files stand after a plain VACUUM (which adds each table's free-space and visibility maps)
    const beforeOnDisk = await sizes(db, false);
    const eventsBefore = await count(db, 'select count(*) as n from es_events');

    const started = performance.now();
    const created: { id: string; totalAmount: number }[] = [];
    await each(payments, 8, async i => {
      const answer = await api('/api/v1/payments', {
        amount: 10_000 + i * 10,
        walletAccountId: m.accountIds[0],
        type: 'QRIS-DYNAMIC',
        redirectUrl: 'https://shop.example/thanks',
        orderId: `shop-${i}`,
      });
      created[i] = answer.data as { id: string; totalAmount: number };
    });
    console.log(`  ${payments} payments created in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    await each(paid, 8, async i => {
      await postJson(`${service.sandboxUrl}/sandbox/payments`, {
        accountNumber: m.phones[0],
        providerCode: 'WALLET-D',
        amount: created[i * 3]!.totalAmount,
      });
    });
    const completed = () => count(db, `select count(*) as n from payments where status = 'COMPLETED'`);
    await until(`${paid} payments completed`, async () => {
      await fetch(`${service.url}/api/v1/accounts/${m.accountIds[0]}/refresh`, { headers: { 'x-api-key': m.key } });
      return (await completed()) >= paid;
    });
    await advance(61 * 60_000); // past the default expiry (60 minutes)
    await until(
      `${payments - paid} payments expired`,
      async () => (await count(db, `select count(*) as n from payments where status = 'EXPIRED'`)) >= payments - paid,
    );
    console.log(`  ${paid} paid, ${payments - paid} expired`);

    // the webhooks' whole retry schedule, to the endpoint that is down
    const pendingDeliveries = () => count(db, `select count(*) as n from webhook_deliveries where status = 'pending'`);
    await until('every payment end queued for the webhook', async () => {
      const n = await count(db, 'select count(*) as n from webhook_deliveries');
      return n >= payments;
    });
    // a retry is queued on the database's clock, which the test clock does not move: the clock goes forward once no
    // retry is due (every one waits for its delay), by more than the longest delay, and brings them all forward
    const dueRetries = () =>
      count(
        db,
        `select count(*) as n from graphile_worker.jobs where task_identifier = 'deliver-webhook' and (run_at <= now() or locked_at is not null)`,
      );
    const longestDelay = Math.max(...retryDelaysMs) * 1.2;
    for (let step = 0; (await pendingDeliveries()) > 0; step++) {
      if (step > retryDelaysMs.length + 5) throw new Error(`deliveries still pending after ${step} moves of the clock`);
      await until('the retries due by now', async () => (await dueRetries()) === 0);
      await advance(longestDelay);
      await until('the retries due by now', async () => (await dueRetries()) === 0);
      console.log(`  clock moved ${step + 1} time(s): ${fmtInt(await pendingDeliveries())} deliveries still retrying`);
    }
    const attempts = await count(db, 'select count(*) as n from webhook_attempts');
    const afterMix = await sizes(db, false);
    const eventsAfter = await count(db, 'select count(*) as n from es_events');

    // past the retention of the webhook log, then one pass of the retention as the service runs it
    const settings = loadConfig({ DATA_DIR: dataDir }).retention;
    await advance((settings.webhookDays + 1) * dayMs);
    const at = await clockNow();
    const pool = new pg.Pool({ connectionString: database.serviceUrl, max: 2 });
    const retention = startRetention(
      // the service's wall clock is the system's: the sessions it started are pruned by it
      { pool, clock: { now: () => new Date(at) }, wallClock: systemClock, log: createLogger('silent') },
      settings,
      { everyMs: 3_600_000 },
    );
    const pruned = await retention.tick();
    await retention.stop();
    await pool.end();
    const onDisk = await sizes(db, false);
    const afterRetention = await sizes(db, true);

    const names = [...new Set([...afterMix.keys(), ...onDisk.keys(), ...afterRetention.keys()])];
    const delta = (s: Sizes, name: string) =>
      (s.get(name) ?? 0) - ((s === afterRetention ? before : beforeOnDisk).get(name) ?? 0);
    const shown = names
      .filter(n => [afterMix, onDisk, afterRetention].some(s => Math.abs(delta(s, n)) >= 8192))
      .sort((x, y) => delta(afterMix, y) - delta(afterMix, x));
    const perPayment = (bytes: number) => fmtInt(bytes / payments);
    const total = (s: Sizes) => names.reduce((sum, n) => sum + delta(s, n), 0);
    const events = eventsAfter - eventsBefore;
    const eventBytes = delta(afterRetention, 'es_events');
    const header = [
      'table',
      'after the mix, on disk (B/payment)',
      'after retention, on disk',
      'after retention, live rows',
    ];
    const cells = (of: (s: Sizes) => number) => [afterMix, onDisk, afterRetention].map(s => perPayment(of(s)));
    const rows = [
      ...shown.map(n => [n, ...cells(s => delta(s, n))]),
      ['all tables', ...cells(total)],
      ['bare INSERT route, its row (peer)', ...cells(() => bare)],
    ];
    const goalHeader = ['goal', 'actual', 'compared with the bare row', 'result'];
    const all = total(afterRetention) / payments;
    const goalRows = [
      [
        `database bytes per payment after retention ≤ ${ceilingBytes}`,
        fmtInt(all),
        fmtRatio(all / (bare / payments)),
        all <= ceilingBytes ? 'PASS' : 'MISS',
      ],
      [
        `events' bytes per payment ≤ ${eventsCeilingBytes} (${(events / payments).toFixed(1)} events a payment, ${fmtInt(eventBytes / events)} B each)`,
        fmtInt(eventBytes / payments),
        fmtRatio(eventBytes / payments / (bare / payments)),
        eventBytes / payments <= eventsCeilingBytes ? 'PASS' : 'MISS',
      ],
    ];
    console.log(textTable(header, rows));
    console.log(textTable(goalHeader, goalRows));
    console.log(`  retention pruned ${fmtInt(pruned)} rows; ${fmtInt(attempts)} webhook attempts were made`);

    let commit = 'unknown';
    try {
      commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
    } catch {
      // not a git checkout
    }
    const version = (await ask<{ server_version: string }>(db, 'show server_version'))[0]!.server_version;
    writeResults(
      'storage',
      {
        date: new Date().toISOString(),
        commit,
        machine: `${os.cpus().length} vCPU ${os.cpus()[0]?.model ?? ''}`.trim(),
        postgres: version,
        payments,
        paid,
        events,
        attempts,
        pruned,
        bareBytes: bare,
        before: Object.fromEntries(before),
        beforeOnDisk: Object.fromEntries(beforeOnDisk),
        afterMix: Object.fromEntries(afterMix),
        afterRetentionOnDisk: Object.fromEntries(onDisk),
        afterRetention: Object.fromEntries(afterRetention),
      },
      [
        '# Database bytes per payment',
        '',
        `${new Date().toISOString().slice(0, 10)}, commit ${commit}, ${os.cpus().length} vCPU, PostgreSQL ${version}.${ctx.quick ? ' Quick run: not a measurement.' : ''}`,
        '',
        `The service as \`npm start\` starts it with TEST_CLOCK=true, one merchant, one WALLET-D account, one webhook endpoint that is down; ${fmtInt(payments)} QRIS payments into the account, ${fmtInt(paid)} paid in the sandbox and synced, the rest expired by the test clock; every webhook tried on its whole schedule (${fmtInt(attempts)} attempts, the clock moved past the longest wait whenever no retry was due). Then the clock moved ${settings.webhookDays + 1} days and the retention's pass run once with the configuration's defaults (${fmtInt(pruned)} rows pruned). Growth of each table over the run (pg_total_relation_size: heap, indexes and TOAST), per payment: on disk after a VACUUM (the files as they stand: space freed by deletes and updates waits for later rows), and live rows only (after VACUUM FULL), each against the snapshot before the mix taken the same way; the goals are judged on the live rows kept; tables that grew by less than 8 KB are left out of the rows but not of the total. The peer: the payments benchmark's bare INSERT route's rows (bench/payments-bare.ts: its table, the load's body), as many, in an embedded PostgreSQL of their own as the route keeps them.`,
        '',
        markdownTable(header, rows),
        '',
        markdownTable(goalHeader, goalRows),
      ].join('\n'),
    );
  } catch (err) {
    console.error(`  the service's log: ${dataDir}.log`);
    throw err;
  } finally {
    await db.end().catch(() => undefined);
    await service.stop();
    stopOnExit();
  }
}
