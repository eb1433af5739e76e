/**
 * Event append with the audit running against the same appends without it (goal: at least 0.9x). Two
 * databases of one embedded PostgreSQL, the same PostgresEventStore appends (32 writers, 1 and 10 events per append, a
 * new stream every 50 appends); on one of them the audit runs as src/background/work.ts starts it:
 * LedgerCheckpoints (a reader of the whole log signing a checkpoint a minute, and the days' digests, in one pass). Rounds alternate between them, in reverse order every other round; each
 * round's warm-up is longer than the chain's pause between reads, so the measured window sees the chain in its steady
 * state; after each chain round the chain is waited for, so it never catches up during another's round; how long that
 * took is reported as its lag. A third
 * database runs a subscriber that only stores its checkpoint: what any subscriber of "all" costs the appends here.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { digestSigner } from '../src/audit/digest-signer.ts';
import { LedgerCheckpoints } from '../src/audit/ledger-checkpoints.ts';
import { systemClock } from '../src/clock.ts';
import { createPool } from '../src/db/pool.ts';
import { uuidv7 } from '../src/ids.ts';
import { createLogger, type Logger } from '../src/logger.ts';
import type { NewEvent, Position } from '../src/store/event-store.ts';
import { PostgresEventStore } from '../src/store/postgres-event-store.ts';
import { checkpointSchema, saveCheckpoint } from '../src/store/checkpoints.ts';
import { Subscriber } from '../src/store/subscriber.ts';
import { query } from '../src/db/pool.ts';
import { benchSigningKey } from './signing-key.ts';
import {
  fmtInt,
  fmtRatio,
  markdownTable,
  runLoad,
  startBenchPostgres,
  summarize,
  textTable,
  ticksPerSecond,
  writeResults,
  type BenchContext,
  type LoadSample,
} from './harness.ts';

const NAME = 'ledger-append';
const WRITERS = 32;
const STREAM_APPENDS = 50;
const GOAL = 0.9;
const NOTE = 'Payment for order, settled by bank transfer; reference attached for the reconciliation of the month.';

/** What bounds the ratio: written under the table, whose columns it reads. */
const NOTES = `What bounds the ratio. The audit (the chain and the daily digests, one pass over the log)
reads every event from PostgreSQL once, parses it and hashes its two leaves (canonical JSON of the event as stored: v1
for the digests, v2 with secrets committed for the chain; SHA-256) in a thread of its own at nice 10, and folds the leaf
hashes into the chain's and the day's Merkle frontiers on the event loop (a SHA-256 per event for each tree). The
appends themselves are one group-commit batch in flight at a time, so the bare load leaves CPU idle on a quiet machine;
the audit reads in pages of 5,000 every 2 s, so much of its work fits in that idle CPU. When other sessions take the idle
CPU (their share per load above), the appends and the audit share what is left and the ratio falls towards the CPU ratio
(bare ÷ audit). With 10 events an append, an event costs the appends so little that any reader of the log costs a share:
a subscriber that only stores its checkpoint already makes about 0.76x here.
Before the merge the digests were a subscriber of their own (batches of 500, 0.5 s apart, hashed on the event loop): at
most about 1,000 events/s, so under these loads they fell ever further behind (the lag column stops at the 30 s wait),
and their catching up went on through every other load's rounds.
Levers left: fold the frontiers in the hashing thread too, or read the page there; hashing the stored text instead of
its canonical form would halve the hashing, but needs new leaf versions.`;

type CpuMark = { at: number; node: NodeJS.CpuUsage; pgMs: number | null; machineBusyMs: number | null };
type RoundCpu = { nodeUs: number; pgUs: number; othersShare: number };

/** The machine's busy CPU time so far (all cores, ms), from /proc/stat; null where there is none. */
function machineBusyMs(): number | null {
  try {
    const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
    const [user, nice, system, , , irq, softirq, steal] = fields.map(Number) as number[];
    return ((user! + nice! + system! + irq! + softirq! + steal!) * 1000) / ticksPerSecond();
  } catch {
    return null;
  }
}

const cpuNow = (pg: { cpuMs(): number | null }): CpuMark => ({
  at: performance.now(),
  node: process.cpuUsage(),
  pgMs: pg.cpuMs(),
  machineBusyMs: machineBusyMs(),
});

/** CPU per event of this process and its PostgreSQL from `a` to `c`, and others' share of the machine during the load (`a` to `b`). */
function roundCpu(a: CpuMark, b: CpuMark, c: CpuMark, events: number): RoundCpu {
  const nodeMs = (x: CpuMark) => (x.node.user + x.node.system) / 1000;
  const ours = nodeMs(b) - nodeMs(a) + ((b.pgMs ?? 0) - (a.pgMs ?? 0));
  const busy = a.machineBusyMs === null || b.machineBusyMs === null ? ours : b.machineBusyMs - a.machineBusyMs;
  return {
    nodeUs: ((nodeMs(c) - nodeMs(a)) * 1000) / events,
    pgUs: (((c.pgMs ?? 0) - (a.pgMs ?? 0)) * 1000) / events,
    othersShare: Math.max(0, busy - ours) / ((b.at - a.at) * os.availableParallelism()),
  };
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((x, y) => x - y);
  return sorted.length === 0
    ? NaN
    : sorted.length % 2
      ? sorted[(sorted.length - 1) / 2]!
      : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
};

/**
 * The chain's own cost: `n` events appended (10 an append) while it is stopped, then the time and CPU it takes to catch
 * up with nothing else running here: the event loop's busy time, Node's CPU in all threads, PostgreSQL's.
 */
async function chainAlone(
  db: { pool: pg.Pool; store: PostgresEventStore },
  n: number,
  server: { cpuMs(): number | null },
  log: Logger,
) {
  const write = writerOf(db.store, 'alone', 10);
  let done = 0;
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      while (done < n) {
        const appended = await write(w);
        done += appended;
      }
    }),
  );
  const head = await db.store.headPosition();
  const audit = startedAudit(db, log);
  const [loop, node, pgMs, t] = [
    performance.eventLoopUtilization(),
    process.cpuUsage(),
    server.cpuMs() ?? 0,
    performance.now(),
  ];
  await audit.start();
  await audit.waitFor(head, 600_000);
  const seconds = (performance.now() - t) / 1000;
  const [busy, cpu, pgUsed] = [
    performance.eventLoopUtilization(loop),
    process.cpuUsage(node),
    (server.cpuMs() ?? 0) - pgMs,
  ];
  await audit.stop();
  await db.store.close();
  await db.pool.end();
  return {
    events: done,
    seconds,
    eventsPerSecond: done / seconds,
    loopUs: (busy.active * 1000) / done,
    nodeUs: (cpu.user + cpu.system) / done,
    pgUs: (pgUsed * 1000) / done,
  };
}

/** The audit as the service starts it (src/background/work.ts): the daily digests and the chain, one key for both. */
function startedAudit(db: { pool: pg.Pool; store: PostgresEventStore }, log: Logger) {
  const signer = digestSigner(benchSigningKey());
  const ledger = new LedgerCheckpoints(
    { ...db, log, clock: systemClock },
    signer,
    mkdtempSync(path.join(os.tmpdir(), 'bench-ledger-file-')),
  );
  return {
    async start() {
      await ledger.start();
    },
    async waitFor(position: Position, timeoutMs: number) {
      return ledger.waitFor(position, timeoutMs);
    },
    async stop() {
      await ledger.stop();
    },
  };
}

function makeEvents(n: number): NewEvent[] {
  const correlationId = randomUUID();
  return Array.from({ length: n }, (_, i) => ({
    type: 'PaymentRecorded',
    version: 1,
    data: { amount: 1000 + i, orderId: randomUUID(), note: NOTE },
    metadata: {
      eventId: uuidv7(),
      correlationId,
      causationId: null,
      actor: 'user-4f1c2a9e',
      occurredAt: new Date().toISOString(),
    },
  }));
}

/** Writer w's appends, a new stream every STREAM_APPENDS. */
function writerOf(store: PostgresEventStore, prefix: string, eventsPerAppend: number) {
  const state = Array.from({ length: WRITERS }, () => ({ stream: 0, appends: 0 }));
  return async (w: number) => {
    const s = state[w]!;
    if (s.appends === STREAM_APPENDS) {
      s.stream++;
      s.appends = 0;
    }
    const expected = s.appends === 0 ? 'no_stream' : s.appends * eventsPerAppend - 1;
    s.appends++;
    await store.append(`${prefix}-${w}-${s.stream}`, makeEvents(eventsPerAppend), expected);
    return eventsPerAppend;
  };
}

export async function run(ctx: BenchContext): Promise<void> {
  const rounds = ctx.quick ? 1 : 4;
  const roundMs = ctx.quick ? 2000 : 5000;
  // longer than the chain's pause between reads (2 s), so that each measured window sees it at work in its steady state:
  // the backlog of the warm-up taken in during the window, as the end of the window is taken in after it
  const warmupMs = ctx.quick ? 300 : 3000;
  const pg = await startBenchPostgres('bench-ledger-append');
  const log = createLogger('warn');
  try {
    const open = async (name: string) => {
      const pool = createPool(await pg.createDatabase(name), 40);
      return { pool, store: await PostgresEventStore.create(pool) };
    };
    const bare = await open('bare');
    const chained = await open('chained');
    const idle = await open('idle');
    await query(idle.pool, 'CreateCheckpointTable', checkpointSchema);
    const noop = new Subscriber({
      name: 'noop',
      ...idle,
      log,
      handleBatch: async (_events, last) => (await saveCheckpoint(idle.pool, 'noop', last), true),
    });
    await noop.start();
    const audit = startedAudit(chained, log);
    await audit.start();
    const rows: string[][] = [];
    const results: Record<string, unknown>[] = [];
    type Mode = 'bare' | 'idle' | 'chained';
    for (const eventsPerAppend of [1, 10]) {
      const samples: Record<Mode, LoadSample[]> = { bare: [], idle: [], chained: [] };
      const cpu: Record<Mode, RoundCpu[]> = { bare: [], idle: [], chained: [] };
      const lags: number[] = [];
      for (let round = 0; round < rounds; round++) {
        // reversed every other round, so that a machine getting slower or faster favours none of them
        const order: Mode[] = ['bare', 'idle', 'chained'];
        if (round % 2 === 1) order.reverse();
        for (const mode of order) {
          const target = { bare, idle, chained }[mode];
          const operation = writerOf(target.store, `r${round}-${eventsPerAppend}-${mode}`, eventsPerAppend);
          const before = cpuNow(pg);
          const sample = await runLoad({
            workers: WRITERS,
            warmupMs,
            durationMs: roundMs,
            signal: ctx.signal,
            operation,
          });
          const loaded = cpuNow(pg);
          samples[mode].push(sample);
          // the subscribers' catch-up after the load is their work for its events too: counted in the CPU per event
          if (mode === 'chained') {
            const t = performance.now();
            // at most half a minute: an audit that cannot keep up shows as a lag of that, and works on meanwhile
            await audit.waitFor(await chained.store.headPosition(), 30_000);
            lags.push(performance.now() - t);
          }
          if (mode === 'idle') await noop.waitFor(await idle.store.headPosition(), 120_000);
          cpu[mode].push(roundCpu(before, loaded, cpuNow(pg), sample.totalUnits));
        }
      }
      const [b, i, c] = [summarize(samples.bare), summarize(samples.idle), summarize(samples.chained)];
      const ratio = c.unitsPerSecond / b.unitsPerSecond;
      const roundRatios = samples.chained.map(
        (s, r) => s.units / s.seconds / (samples.bare[r]!.units / samples.bare[r]!.seconds),
      );
      const perEvent = (m: Mode) => median(cpu[m].map(x => x.nodeUs)) + median(cpu[m].map(x => x.pgUs));
      const cpuText = (m: Mode) =>
        `${fmtInt(median(cpu[m].map(x => x.nodeUs)))} + ${fmtInt(median(cpu[m].map(x => x.pgUs)))}`;
      rows.push([
        `${WRITERS} writers × ${eventsPerAppend} ev/append`,
        fmtInt(b.unitsPerSecond),
        `${fmtInt(i.unitsPerSecond)} (${fmtRatio(i.unitsPerSecond / b.unitsPerSecond)})`,
        fmtInt(c.unitsPerSecond),
        `${fmtRatio(ratio)} (goal ≥ ${GOAL}: ${ratio >= GOAL ? 'met' : 'MISSED'})`,
        `${fmtRatio(median(roundRatios))} (${roundRatios.map(r => r.toFixed(2)).join(' / ')})`,
        `${cpuText('bare')} / ${cpuText('idle')} / ${cpuText('chained')} (chain ${fmtRatio(perEvent('bare') / perEvent('chained'))})`,
        cpu.bare
          .concat(cpu.idle, cpu.chained)
          .map(x => `${Math.round(x.othersShare * 100)}`)
          .join(' '),
        fmtInt(Math.max(...lags)),
      ]);
      results.push({ eventsPerAppend, bare: b, idleSubscriber: i, chained: c, ratio, roundRatios, cpu, lagMs: lags });
    }
    await audit.stop();
    await noop.stop();
    const alone = await chainAlone(await open('alone'), ctx.quick ? 20_000 : 100_000, pg, log);
    for (const db of [bare, idle, chained]) {
      await db.store.close();
      await db.pool.end();
    }
    const header = [
      'scenario',
      'events/s bare',
      'with a subscriber doing nothing',
      'events/s with the audit (chain and digests)',
      'ratio',
      "median of the rounds' ratios (each round)",
      'CPU µs per event, Node + PostgreSQL: bare / idle subscriber / audit (bare ÷ audit)',
      "others' share of the machine per load, %",
      'chain lag after, ms',
    ];
    const aloneText =
      `The audit alone, catching up ${fmtInt(alone.events)} events appended while it was stopped (no appends meanwhile): ${fmtInt(alone.eventsPerSecond)} events/s; ` +
      `per event ${alone.loopUs.toFixed(1)} µs of the event loop, ${alone.nodeUs.toFixed(1)} µs of Node in all (the hashing thread's included, its start too), ${alone.pgUs.toFixed(1)} µs of PostgreSQL.`;
    console.log(
      `\n${textTable(header, rows)}\n(one run, ${rounds} alternating rounds of ${roundMs / 1000} s; 2 cores shared with other sessions: noisy)\n${aloneText}\n`,
    );
    writeResults(
      NAME,
      { rounds, roundMs, warmupMs, results, chainAlone: alone, quick: ctx.quick, at: new Date().toISOString() },
      `# Event append with the audit running (the ledger's chain and the daily digests)\n\n${markdownTable(header, rows)}\n\nOne run, ${rounds} rounds of ${roundMs / 1000} s each (after ${warmupMs / 1000} s of warm-up), the loads in alternating order, on a machine of 2 cores shared with other sessions. CPU per event is the median over the rounds, warm-up included, and for the idle subscriber and the chain their catch-up after the load too. Others' share: the machine's busy time that was not this benchmark's, per load (bare rounds, then idle, then chain).\n\n${aloneText}\n\n${NOTES}`,
    );
  } finally {
    await pg.stop();
  }
}
