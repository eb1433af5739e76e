/** Shared pieces of the benchmarks: timing, a throughput loop, an embedded PostgreSQL of their own, output. */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { databaseUrl, startEmbeddedPostgres } from '../src/db/embedded.ts';

export type BenchContext = {
  quick: boolean;
  signal: AbortSignal;
  /** `--ref <git ref>`: a benchmark that runs the service runs that commit's (a git worktree) instead of this checkout's */
  ref?: string;
  /** `--compare-ref <git ref>`: a benchmark that can also run that commit's service, in turns with the other */
  compareRef?: string;
};

export const resultsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>(resolve => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

/** What one run of a load completed: counted between the end of its warm-up and its end. */
export type LoadSample = {
  /** operations (e.g. appends) completed inside the measured window */
  operations: number;
  /** units (e.g. events) completed inside the measured window */
  units: number;
  /** units completed from the first operation to the last, warm-up included */
  totalUnits: number;
  seconds: number;
  /** milliseconds per operation completed inside the measured window */
  latencies: number[];
};

export type Throughput = {
  operations: number;
  units: number;
  totalUnits: number;
  seconds: number;
  unitsPerSecond: number;
  operationsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  /** units per second of each sample (round), to show how steady the measurement was */
  roundsUnitsPerSecond: number[];
};

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

/** Sums samples of the same load (several rounds) into one throughput. */
export function summarize(samples: LoadSample[]): Throughput {
  const operations = samples.reduce((a, s) => a + s.operations, 0);
  const units = samples.reduce((a, s) => a + s.units, 0);
  const totalUnits = samples.reduce((a, s) => a + s.totalUnits, 0);
  const seconds = samples.reduce((a, s) => a + s.seconds, 0);
  const latencies = samples.flatMap(s => s.latencies).sort((a, b) => a - b);
  return {
    operations,
    units,
    totalUnits,
    seconds,
    unitsPerSecond: seconds > 0 ? units / seconds : 0,
    operationsPerSecond: seconds > 0 ? operations / seconds : 0,
    latencyMs: {
      p50: percentile(latencies, 50),
      p90: percentile(latencies, 90),
      p99: percentile(latencies, 99),
      max: latencies.at(-1) ?? NaN,
    },
    roundsUnitsPerSecond: samples.map(s => (s.seconds > 0 ? s.units / s.seconds : 0)),
  };
}

/**
 * Runs `workers` loops of `operation` (each answers how many units it did) for warm-up + duration, and counts what
 * completed between the end of the warm-up and the end. The first failure stops every worker and is thrown after all
 * of them returned, so that no operation is still running against a database about to be dropped.
 */
export async function runLoad(opts: {
  workers: number;
  warmupMs: number;
  durationMs: number;
  signal: AbortSignal;
  operation: (worker: number) => Promise<number>;
}): Promise<LoadSample> {
  let stop = false;
  let failure: unknown = undefined;
  let measuring = false;
  let operations = 0;
  let units = 0;
  let totalUnits = 0;
  const latencies: number[] = [];

  const worker = async (w: number) => {
    while (!stop) {
      const t0 = performance.now();
      let n: number;
      try {
        n = await opts.operation(w);
      } catch (err) {
        if (failure === undefined) failure = err;
        stop = true;
        return;
      }
      totalUnits += n;
      if (measuring) {
        operations++;
        units += n;
        latencies.push(performance.now() - t0);
      }
    }
  };

  const running = Array.from({ length: opts.workers }, (_, w) => worker(w));
  const stopOnAbort = () => (stop = true);
  opts.signal.addEventListener('abort', stopOnAbort, { once: true });
  let seconds = 0;
  try {
    await sleep(opts.warmupMs, opts.signal);
    measuring = true;
    const start = performance.now();
    await sleep(opts.durationMs, opts.signal);
    measuring = false;
    seconds = (performance.now() - start) / 1000;
  } finally {
    stop = true;
    measuring = false;
    await Promise.all(running);
    opts.signal.removeEventListener('abort', stopOnAbort);
  }
  if (failure !== undefined) throw failure;
  if (opts.signal.aborted) throw new Error('aborted');
  return { operations, units, totalUnits, seconds, latencies };
}

/**
 * Sends `operation` at a steady `rate` per second for `durationMs`, whatever the answers take (an open loop: requests
 * arrive as they would from many independent clients), at most `maxInFlight` at once (the others wait their turn).
 * Each latency counts from the moment its operation was due, not from when it could start, so a stall is counted in
 * full for every operation it delayed. autocannon's own rate limit sends each second's quota at once, as fast as its
 * connections go, which measures a burst at saturation rather than a load.
 */
export async function runPaced(opts: {
  rate: number;
  durationMs: number;
  maxInFlight: number;
  signal: AbortSignal;
  operation: () => Promise<void>;
}): Promise<{ sent: number; completed: number; failed: number; seconds: number; latencies: number[] }> {
  const latencies: number[] = [];
  let failed = 0;
  const waiting: number[] = [];
  const running = new Set<Promise<void>>();
  const launch = (due: number) => {
    const done = opts
      .operation()
      .then(
        () => void latencies.push(performance.now() - due),
        () => void failed++,
      )
      .finally(() => {
        running.delete(done);
        const next = waiting.shift();
        if (next !== undefined) launch(next);
      });
    running.add(done);
  };
  const start = performance.now();
  const interval = 1000 / opts.rate;
  let sent = 0;
  while (!opts.signal.aborted) {
    const now = performance.now();
    if (now - start >= opts.durationMs) break;
    for (; start + sent * interval <= now; sent++) {
      const due = start + sent * interval;
      if (running.size < opts.maxInFlight) launch(due);
      else waiting.push(due);
    }
    await sleep(1, opts.signal);
  }
  while (running.size > 0) await Promise.all([...running]);
  // until the last answer: a service that falls behind drains its queue after the sending stops
  const seconds = (performance.now() - start) / 1000;
  return { sent, completed: latencies.length, failed, seconds, latencies };
}

export type BenchPostgres = {
  serverUrl: string;
  version: string;
  createDatabase(name: string): Promise<string>;
  /** a superuser query on the maintenance database (CHECKPOINT, settings, ...) */
  adminQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string): Promise<R[]>;
  /**
   * CPU time (user + system, ms) used so far by the server's live processes (postmaster and its children), or null
   * where /proc is not available. Differences between two calls tell the server's CPU for the load in between, as long
   * as no connection closed in between.
   */
  cpuMs(): number | null;
  stop(): Promise<void>;
};

let clockTicks: number | undefined;
/** The kernel's clock ticks per second, for CPU times read from /proc. */
export function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** user + system CPU ms of `rootPid` and its direct children (a postmaster's backends and workers), from /proc. */
function processTreeCpuMs(rootPid: number): number | null {
  let ticks = 0;
  let found = false;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // the command name (2nd field) may hold spaces: the fields after it start after the last ')'
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pid = Number(entry);
    const ppid = Number(fields[1]);
    if (pid !== rootPid && ppid !== rootPid) continue;
    found = true;
    ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    // children that exited (a closed connection's backend) count in their parent's cutime and cstime once reaped
    if (pid === rootPid) ticks += Number(fields[13]) + Number(fields[14]);
  }
  return found ? (ticks * 1000) / ticksPerSecond() : null;
}

/**
 * A fresh embedded PostgreSQL in a temporary folder, deleted again by stop(). stop() is safe to call more than once,
 * and also stops the server when starting failed halfway.
 */
export async function startBenchPostgres(prefix: string): Promise<BenchPostgres> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  chmodSync(dir, 0o755);
  let server: Awaited<ReturnType<typeof startEmbeddedPostgres>> | undefined;
  let admin: pg.Client | undefined;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await admin?.end().catch(() => undefined);
    try {
      await server?.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    server = await startEmbeddedPostgres({ dataDir: dir, password: 'bench' });
    const serverUrl = server.url;
    admin = new pg.Client({ connectionString: serverUrl });
    admin.on('error', () => undefined);
    await admin.connect();
    const client = admin;
    const version = (await client.query<{ server_version: string }>('show server_version')).rows[0]!.server_version;
    let postmasterPid: number | null = null;
    try {
      postmasterPid = Number(readFileSync(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]) || null;
    } catch {
      postmasterPid = null;
    }
    return {
      serverUrl,
      version,
      createDatabase: async name => {
        if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
        await client.query(`create database ${name}`);
        return databaseUrl(serverUrl, name);
      },
      adminQuery: async <R extends pg.QueryResultRow>(sql: string) => (await client.query<R>(sql)).rows,
      cpuMs: () => (postmasterPid === null ? null : processTreeCpuMs(postmasterPid)),
      stop,
    };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}

export function writeResults(name: string, json: unknown, markdown: string): { json: string; md: string } {
  mkdirSync(resultsDir, { recursive: true });
  const jsonPath = path.join(resultsDir, `${name}.json`);
  const mdPath = path.join(resultsDir, `${name}.md`);
  writeFileSync(jsonPath, `${JSON.stringify(json, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v), 2)}\n`);
  writeFileSync(mdPath, markdown.endsWith('\n') ? markdown : `${markdown}\n`);
  return { json: jsonPath, md: mdPath };
}

/** A plain-text table with right-aligned columns except the first. */
export function textTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map(r => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map(w => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function markdownTable(header: string[], rows: string[][]): string {
  const align = header.map((_, i) => (i === 0 ? ':--' : '--:'));
  return [header, align, ...rows].map(r => `| ${r.join(' | ')} |`).join('\n');
}

export const fmtInt = (n: number | null | undefined) =>
  n === null || n === undefined || !Number.isFinite(n) ? 'n/a' : Math.round(n).toLocaleString('en-US');

export const fmtRatio = (n: number | null | undefined) =>
  n === null || n === undefined || !Number.isFinite(n) ? 'n/a' : `${n.toFixed(2)}×`;
