/**
 * Where a payment's work goes: `npx tsx bench/payments-profile.ts [accounts] [--cpu-prof]` starts the service as
 * bench/payments.ts does (npm start's command, its own DATA_DIR), turns on pg_stat_statements in its embedded
 * PostgreSQL (a restart the service rides out), creates payments into `accounts` accounts (default 1) for SECONDS
 * (default 8) through bench/payments-load.ts, 32 in flight or at a steady RATE per second, waits until the service is idle again (projections, sagas, outbox caught up), and prints every statement's calls per
 * payment with its share of PostgreSQL's execution time, the transactions per payment, and the CPU per payment of the
 * service's Node and PostgreSQL (BY_TIME=1: statements by execution time). `--cpu-prof` also writes V8 CPU profiles of
 * the service into .scratch/cpu-prof; PERF=1 records its PostgreSQL with perf into .scratch/perf.data.
 * A tool for finding work to cut, not a benchmark: its figures include pg_stat_statements' own cost.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from '../src/db/free-port.ts';
import { sleep } from './harness.ts';
import { forkReady, LoadGenerator, merchant, stopChild, worktreeCheckout } from './payments.ts';
import { killOnExit, startService, treeCpuMs } from './processes.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const accounts = Number(args.find(a => /^\d+$/.test(a)) ?? 1);
const cpuProf = args.includes('--cpu-prof');

/** A preload that starts V8's profiler on the first SIGUSR2 and writes the profile into profDir on the second. */
function writeProfiler(): string {
  const file = path.join(profDir, 'profiler.cjs');
  writeFileSync(
    file,
    `const inspector = require('node:inspector'); const fs = require('node:fs');
const session = new inspector.Session(); session.connect(); let on = false;
process.on('SIGUSR2', () => {
  if (!on) { on = true; session.post('Profiler.setSamplingInterval', { interval: 200 }, () => session.post('Profiler.enable', () => session.post('Profiler.start'))); return; }
  session.post('Profiler.stop', (err, r) => { if (!err) fs.writeFileSync(${JSON.stringify(profDir)} + '/service-' + process.pid + '.cpuprofile', JSON.stringify(r.profile)); on = false; });
});
`,
  );
  return file;
}

/** `root` and its descendants that are not PostgreSQL's (the profiler's signal is PostgreSQL's own). */
function nodeProcesses(root: number): number[] {
  const parents = new Map<number, { ppid: number; comm: string }>();
  for (const entry of readdirSync('/proc').filter(e => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), {
        ppid: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]),
        comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
      });
    } catch {
      // gone
    }
  }
  const found = [root];
  for (let i = 0; i < found.length; i++)
    for (const [pid, p] of parents) if (p.ppid === found[i] && p.comm !== 'postgres') found.push(pid);
  return found;
}

/** The PostgreSQL processes below `root` (its embedded server and the server's backends). */
function postgresProcesses(root: number): number[] {
  const all = new Map<number, { ppid: number; comm: string }>();
  for (const entry of readdirSync('/proc').filter(e => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      all.set(Number(entry), {
        ppid: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]),
        comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
      });
    } catch {
      // gone
    }
  }
  const below = [root];
  for (let i = 0; i < below.length; i++) for (const [pid, p] of all) if (p.ppid === below[i]) below.push(pid);
  return below.filter(pid => all.get(pid)?.comm === 'postgres');
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-payments-profile-'));
chmodSync(tmp, 0o711);
const dataDir = path.join(tmp, 'data');
const profDir = path.join(repoRoot, '.scratch', 'cpu-prof');
if (cpuProf) mkdirSync(profDir, { recursive: true });
// REF=<git ref>: that commit's service (a git worktree), not this working tree's
const checkout = process.env.REF ? worktreeCheckout(process.env.REF, path.join(tmp, 'checkout')) : null;
// a reader gone (`| head`) must not end this process before it stops the service it started
process.stdout.on('error', () => undefined);
const service = await startService({
  checkout: checkout?.dir ?? repoRoot,
  dataDir,
  port: await freePort(),
  sandboxPort: await freePort(),
  logFile: path.join(tmp, 'service.log'),
  // Node 20 refuses --cpu-prof in NODE_OPTIONS: a preload profiles between two SIGUSR2s instead
  env: cpuProf ? { NODE_OPTIONS: `--require ${writeProfiler()}` } : {},
});
// and the service goes with this process however it ends (a second Ctrl-C, an uncaught error)
const killService = killOnExit([service]);
try {
  const secrets = JSON.parse(readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')) as {
    embeddedPostgresPassword: string;
  };
  const pgDir = (() => {
    try {
      return readFileSync(path.join(dataDir, 'pg-location'), 'utf8').trim();
    } catch {
      return path.join(dataDir, 'pg');
    }
  })();
  const postmaster = () => readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n');
  const port = Number(postmaster()[3]);
  const url = `postgres://postgres:${encodeURIComponent(secrets.embeddedPostgresPassword)}@127.0.0.1:${port}/service`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`alter system set shared_preload_libraries = 'pg_stat_statements'`);
  await admin.query(`alter system set pg_stat_statements.track = 'all'`);
  await admin.end();
  // the service's supervisor starts its PostgreSQL again, now with the extension loaded
  process.kill(Number(postmaster()[0]), 'SIGINT');
  await sleep(3000);
  for (let i = 0; i < 100; i++) {
    const ready = await fetch(`${service.url}/ready`).then(
      r => r.ok,
      () => false,
    );
    if (ready) break;
    await sleep(300);
  }
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  await db.query('create extension if not exists pg_stat_statements');

  const m = await merchant(service.url, 1, accounts);
  const generator = await forkReady<{ pid: number }>('payments-load.ts');
  const loads = new LoadGenerator(generator.child);
  const target = { kind: 'payments' as const, url: service.url, key: m.key, accountIds: m.accountIds };
  // warm-up (JIT, prepared statements, caches), not counted; PRELOAD=60: that long, to measure on a bigger database
  await loads.run({ target, connections: 32, durationSec: Number(process.env.PRELOAD ?? 3) });
  // CHECKPOINT=1: the measured load starts right after a checkpoint (its full-page images, as a busy database has them)
  if (process.env.CHECKPOINT) await db.query('checkpoint');
  await sleep(3000);
  const xacts = async () =>
    Number(
      (await db.query(`select xact_commit + xact_rollback as n from pg_stat_database where datname = 'service'`))
        .rows[0].n,
    );
  const sessions = async () =>
    Number((await db.query(`select sessions from pg_stat_database where datname = 'service'`)).rows[0].sessions);
  const s0 = await sessions();
  const walStats = async () =>
    (
      await db.query<{ records: string; fpi: string; bytes: string; checkpoints: string }>(
        `select wal_records as records, wal_fpi as fpi, wal_bytes as bytes, (select num_timed + num_requested from pg_stat_checkpointer) as checkpoints from pg_stat_wal`,
      )
    ).rows[0]!;
  const w0 = await walStats();
  await db.query('select pg_stat_statements_reset()');
  const x0 = await xacts();
  const cpu0 = treeCpuMs(service.pid)!;
  const profile = () => {
    if (cpuProf) for (const pid of nodeProcesses(service.pid)) process.kill(pid, 'SIGUSR2');
  };
  profile();
  // PERF=1: the whole machine sampled by perf meanwhile (PostgreSQL's share: perf report --comm postgres)
  const perf = process.env.PERF
    ? spawn(
        'perf',
        [
          'record',
          '-F',
          '999',
          '-g',
          '-p',
          postgresProcesses(service.pid).join(','),
          '-o',
          path.join(repoRoot, '.scratch', 'perf.data'),
        ],
        { stdio: 'ignore' },
      )
    : null;
  // what PostgreSQL runs meanwhile besides the service's statements (autovacuum, checkpointer), sampled every 250 ms
  const busy = new Map<string, number>();
  const sampler = setInterval(() => {
    db.query<{ what: string }>(
      `select backend_type || ' ' || application_name || ' ' || coalesce(client_port::text, '') || coalesce(': ' || left(query, 60), '') as what from pg_stat_activity
        where (state = 'active' and backend_type <> 'client backend') or backend_start > now() - interval '250 milliseconds'`,
    ).then(
      r => r.rows.forEach(row => busy.set(row.what, (busy.get(row.what) ?? 0) + 1)),
      () => undefined,
    );
  }, 250);
  const t0 = performance.now();
  // SECONDS (default 8) as fast as answered over 32 connections, or RATE=200 at that steady pace
  const result = await loads.run({
    target,
    connections: 32,
    durationSec: Number(process.env.SECONDS ?? 8),
    overallRate: process.env.RATE ? Number(process.env.RATE) : undefined,
  });
  const loadSec = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  const cpuLoad = treeCpuMs(service.pid)!;
  profile();
  if (perf) {
    perf.kill('SIGINT');
    await new Promise(resolve => perf.once('exit', resolve));
  }
  // idle again: the projections, sagas and outbox have done their share of these payments
  let before = cpuLoad;
  for (let i = 0; i < 120; i++) {
    await sleep(500);
    const now = treeCpuMs(service.pid)!;
    const used = now.nodeMs + now.pgMs - before.nodeMs - before.pgMs;
    before = now;
    if (used < 40) break;
  }
  const cpu1 = treeCpuMs(service.pid)!;
  const x1 = await xacts();
  const ok = result.ok;
  const per = (v: number) => (v / ok).toFixed(2);
  console.log(
    `${ok} payments (2xx) into ${accounts} account(s) in ${loadSec.toFixed(1)} s (${(ok / loadSec).toFixed(0)}/s), non-2xx ${result.non2xx}, p50 ${result.p50.toFixed(1)} p99 ${result.p99.toFixed(1)} ms`,
  );
  console.log(
    `CPU per payment during the load: Node ${(((cpuLoad.nodeMs - cpu0.nodeMs) * 1000) / ok).toFixed(0)} µs, PostgreSQL ${(((cpuLoad.pgMs - cpu0.pgMs) * 1000) / ok).toFixed(0)} µs`,
  );
  console.log(
    `CPU per payment until idle: Node ${(((cpu1.nodeMs - cpu0.nodeMs) * 1000) / ok).toFixed(0)} µs, PostgreSQL ${(((cpu1.pgMs - cpu0.pgMs) * 1000) / ok).toFixed(0)} µs`,
  );
  console.log(`transactions per payment: ${per(x1 - x0)}; connections opened meanwhile: ${(await sessions()) - s0}`);
  const w1 = await walStats();
  const d = (k: 'records' | 'fpi' | 'bytes' | 'checkpoints') => Number(w1[k]) - Number(w0[k]);
  console.log(
    `WAL per payment: ${per(d('records'))} records, ${per(d('fpi'))} full-page images, ${(d('bytes') / ok / 1024).toFixed(1)} KiB; ${d('checkpoints')} checkpoint(s) meanwhile`,
  );
  const sizes = await db.query<{ name: string; mb: string }>(
    `select relname as name, round(pg_total_relation_size(oid) / 1048576.0) as mb from pg_class where relname in ('es_events', 'es_streams', 'payments') order by 1`,
  );
  console.log(`sizes: ${sizes.rows.map(r => `${r.name} ${r.mb} MiB`).join(', ')}`);
  console.log(
    `other PostgreSQL work seen during the load (samples of 250 ms): ${[...busy].map(([w, n]) => `${w} ×${n}`).join('; ') || 'none'}`,
  );
  const rows = (
    await db.query<{ calls: string; ms: number; toplevel: boolean; query: string }>(
      `select calls, total_exec_time as ms, toplevel, query from pg_stat_statements
       where dbid = (select oid from pg_database where datname = 'service') order by calls desc`,
    )
  ).rows;
  const totalMs = rows.filter(r => r.toplevel).reduce((a, r) => a + r.ms, 0);
  const top = rows.filter(r => r.toplevel);
  console.log(
    `top-level statements per payment: ${per(top.reduce((a, r) => a + Number(r.calls), 0))}; their execution ${((totalMs * 1000) / ok).toFixed(0)} µs per payment`,
  );
  console.log('calls/payment  exec µs/payment  top  statement');
  if (process.env.BY_TIME) rows.sort((a, b) => b.ms - a.ms);
  for (const r of rows.slice(0, 60)) {
    if (Number(r.calls) < ok / 50 && (r.ms * 1000) / ok < 3) continue;
    console.log(
      `${per(Number(r.calls)).padStart(13)}  ${((r.ms * 1000) / ok).toFixed(0).padStart(15)}  ${r.toplevel ? 'yes' : ' no'}  ${r.query.replace(/\s+/g, ' ').slice(0, process.env.FULL ? 5000 : 150)}`,
    );
  }
  await db.end();
  await stopChild(generator.child);
} finally {
  await service.stop();
  process.removeListener('exit', killService);
  checkout?.remove();
  rmSync(tmp, { recursive: true, force: true });
}
