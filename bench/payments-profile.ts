/**
 * Where a payment's work goes: `npx tsx bench/payments-profile.ts [count] [accounts] [--cpu-prof]` starts the service
 * as bench/payments.ts does (npm start's command, its own DATA_DIR), turns on pg_stat_statements in its embedded
 * PostgreSQL (a restart the service rides out), creates `count` payments into `accounts` accounts (32 in flight),
 * waits until the service is idle again (projections, sagas, outbox caught up), and prints every statement's calls per
 * payment with its share of PostgreSQL's execution time, the transactions per payment, and the CPU per payment of the
 * service's Node and PostgreSQL. `--cpu-prof` also writes V8 CPU profiles of the service into .scratch/cpu-prof.
 * A tool for finding work to cut, not a benchmark: its figures include pg_stat_statements' own cost.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { freePort } from '../src/db/embedded.ts';
import { sleep } from './harness.ts';
import { merchant } from './payments.ts';
import { startService, treeCpuMs } from './processes.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const count = Number(args.find(a => /^\d+$/.test(a)) ?? 3000);
const accounts = Number(args.filter(a => /^\d+$/.test(a))[1] ?? 1);
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
      parents.set(Number(entry), { ppid: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]), comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) });
    } catch {
      // gone
    }
  }
  const found = [root];
  for (let i = 0; i < found.length; i++) for (const [pid, p] of parents) if (p.ppid === found[i] && p.comm !== 'postgres') found.push(pid);
  return found;
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-payments-profile-'));
chmodSync(tmp, 0o711);
const dataDir = path.join(tmp, 'data');
const profDir = path.join(repoRoot, '.scratch', 'cpu-prof');
if (cpuProf) mkdirSync(profDir, { recursive: true });
const service = await startService({
  checkout: repoRoot,
  dataDir,
  port: await freePort(),
  sandboxPort: await freePort(),
  logFile: path.join(tmp, 'service.log'),
  // Node 20 refuses --cpu-prof in NODE_OPTIONS: a preload profiles between two SIGUSR2s instead
  env: cpuProf ? { NODE_OPTIONS: `--require ${writeProfiler()}` } : {},
});
try {
  const secrets = JSON.parse(readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')) as { embeddedPostgresPassword: string };
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
    const ready = await fetch(`${service.url}/ready`).then(r => r.ok, () => false);
    if (ready) break;
    await sleep(300);
  }
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  await db.query('create extension if not exists pg_stat_statements');

  const m = await merchant(service.url, 1, accounts);
  let n = 0;
  const nextPost = () => {
    n++;
    const body = { amount: 10_000 + (n % 1000) * 1_000, walletAccountId: m.accountIds[n % accounts]!, redirectUrl: 'https://shop.example/thanks', orderId: `profile-${n}-${randomUUID()}` };
    return { path: '/api/v1/payments', headers: { 'content-type': 'application/json', 'x-api-key': m.key }, body: JSON.stringify(body) };
  };
  await sleep(2000);
  // warm-up (JIT, prepared statements, caches), not counted
  await autocannon({ url: service.url, connections: 32, amount: Math.min(count, 3000), requests: [{ method: 'POST', setupRequest: (r: autocannon.Request) => ({ ...r, ...nextPost() }) }] });
  await sleep(3000);
  const xacts = async () => Number((await db.query(`select xact_commit + xact_rollback as n from pg_stat_database where datname = 'service'`)).rows[0].n);
  await db.query('select pg_stat_statements_reset()');
  const x0 = await xacts();
  const cpu0 = treeCpuMs(service.pid)!;
  const profile = () => {
    if (cpuProf) for (const pid of nodeProcesses(service.pid)) process.kill(pid, 'SIGUSR2');
  };
  profile();
  const t0 = performance.now();
  const result = await autocannon({
    url: service.url,
    connections: 32,
    amount: count,
    requests: [{ method: 'POST', setupRequest: (r: autocannon.Request) => ({ ...r, ...nextPost() }) }],
  });
  const loadSec = (performance.now() - t0) / 1000;
  const cpuLoad = treeCpuMs(service.pid)!;
  profile();
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
  const ok = result['2xx'];
  const per = (v: number) => (v / ok).toFixed(2);
  console.log(`${ok} payments (2xx) into ${accounts} account(s) in ${loadSec.toFixed(1)} s (${(ok / loadSec).toFixed(0)}/s), non-2xx ${result.non2xx}, p50 ${result.latency.p50} p99 ${result.latency.p99} ms`);
  console.log(`CPU per payment during the load: Node ${(((cpuLoad.nodeMs - cpu0.nodeMs) * 1000) / ok).toFixed(0)} µs, PostgreSQL ${(((cpuLoad.pgMs - cpu0.pgMs) * 1000) / ok).toFixed(0)} µs`);
  console.log(`CPU per payment until idle: Node ${(((cpu1.nodeMs - cpu0.nodeMs) * 1000) / ok).toFixed(0)} µs, PostgreSQL ${(((cpu1.pgMs - cpu0.pgMs) * 1000) / ok).toFixed(0)} µs`);
  console.log(`transactions per payment: ${per(x1 - x0)}`);
  const rows = (
    await db.query<{ calls: string; ms: number; toplevel: boolean; query: string }>(
      `select calls, total_exec_time as ms, toplevel, query from pg_stat_statements
       where dbid = (select oid from pg_database where datname = 'service') order by calls desc`,
    )
  ).rows;
  const totalMs = rows.filter(r => r.toplevel).reduce((a, r) => a + r.ms, 0);
  const top = rows.filter(r => r.toplevel);
  console.log(`top-level statements per payment: ${per(top.reduce((a, r) => a + Number(r.calls), 0))}; their execution ${((totalMs * 1000) / ok).toFixed(0)} µs per payment`);
  console.log('calls/payment  exec µs/payment  top  statement');
  for (const r of rows.slice(0, 60)) {
    if (Number(r.calls) < ok / 50) continue;
    console.log(`${per(Number(r.calls)).padStart(13)}  ${((r.ms * 1000) / ok).toFixed(0).padStart(15)}  ${r.toplevel ? 'yes' : ' no'}  ${r.query.replace(/\s+/g, ' ').slice(0, process.env.FULL ? 5000 : 150)}`);
  }
  await db.end();
} finally {
  await service.stop();
  rmSync(tmp, { recursive: true, force: true });
}
