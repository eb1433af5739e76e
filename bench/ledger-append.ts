/**
 * Event append with the ledger's chain of checkpoints against the same appends without it (issue 24; goal: at least
 * 0.9x). Two databases of one embedded PostgreSQL, the same PostgresEventStore appends (32 writers, 1 and 10 events per
 * append, a new stream every 50 appends); on one of them LedgerCheckpoints runs as in the service (a subscriber of the
 * whole log signing a checkpoint a minute). Rounds alternate between the two; after each chain round the subscriber is
 * waited for, so it never catches up during the other's round; how long that took is reported as its lag. A third
 * database runs a subscriber that only stores its checkpoint: what any subscriber of "all" costs the appends here.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { digestSigner } from '../src/audit/digest-signer.ts';
import { LedgerCheckpoints } from '../src/audit/ledger-checkpoints.ts';
import { systemClock } from '../src/clock.ts';
import { createPool } from '../src/db/pool.ts';
import { uuidv7 } from '../src/ids.ts';
import { createLogger } from '../src/logger.ts';
import type { NewEvent } from '../src/store/event-store.ts';
import { PostgresEventStore } from '../src/store/postgres-event-store.ts';
import { checkpointSchema, saveCheckpoint } from '../src/store/checkpoints.ts';
import { Subscriber } from '../src/store/subscriber.ts';
import { query } from '../src/db/pool.ts';
import { benchSigningKey } from './signing-key.ts';
import { fmtInt, fmtRatio, markdownTable, runLoad, startBenchPostgres, summarize, textTable, writeResults, type BenchContext, type LoadSample } from './harness.ts';

const NAME = 'ledger-append';
const WRITERS = 32;
const STREAM_APPENDS = 50;
const GOAL = 0.9;
const NOTE = 'Payment for order, settled by bank transfer; reference attached for the reconciliation of the month.';

function makeEvents(n: number): NewEvent[] {
  const correlationId = randomUUID();
  return Array.from({ length: n }, (_, i) => ({
    type: 'PaymentRecorded',
    version: 1,
    data: { amount: 1000 + i, orderId: randomUUID(), note: NOTE },
    metadata: { eventId: uuidv7(), correlationId, causationId: null, actor: 'user-4f1c2a9e', occurredAt: new Date().toISOString() },
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
  const rounds = ctx.quick ? 1 : 3;
  const roundMs = ctx.quick ? 2000 : 5000;
  const warmupMs = ctx.quick ? 300 : 1000;
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
    const noop = new Subscriber({ name: 'noop', ...idle, log, handleBatch: async (_events, last) => (await saveCheckpoint(idle.pool, 'noop', last), true) });
    await noop.start();
    const ledger = new LedgerCheckpoints({ ...chained, log, clock: systemClock }, digestSigner(benchSigningKey()), mkdtempSync(path.join(os.tmpdir(), 'bench-ledger-file-')));
    await ledger.start();
    const rows: string[][] = [];
    const results: Record<string, unknown>[] = [];
    for (const eventsPerAppend of [1, 10]) {
      const samples: Record<'bare' | 'idle' | 'chained', LoadSample[]> = { bare: [], idle: [], chained: [] };
      const lags: number[] = [];
      for (let round = 0; round < rounds; round++) {
        for (const mode of ['bare', 'idle', 'chained'] as const) {
          const target = { bare, idle, chained }[mode];
          const operation = writerOf(target.store, `r${round}-${eventsPerAppend}-${mode}`, eventsPerAppend);
          samples[mode].push(await runLoad({ workers: WRITERS, warmupMs, durationMs: roundMs, signal: ctx.signal, operation }));
          if (mode === 'chained') {
            const t = performance.now();
            await ledger.waitFor(await chained.store.headPosition(), 120_000);
            lags.push(performance.now() - t);
          }
          if (mode === 'idle') await noop.waitFor(await idle.store.headPosition(), 120_000);
        }
      }
      const [b, i, c] = [summarize(samples.bare), summarize(samples.idle), summarize(samples.chained)];
      const ratio = c.unitsPerSecond / b.unitsPerSecond;
      rows.push([
        `${WRITERS} writers × ${eventsPerAppend} ev/append`,
        fmtInt(b.unitsPerSecond),
        `${fmtInt(i.unitsPerSecond)} (${fmtRatio(i.unitsPerSecond / b.unitsPerSecond)})`,
        fmtInt(c.unitsPerSecond),
        `${fmtRatio(ratio)} (goal ≥ ${GOAL}: ${ratio >= GOAL ? 'met' : 'MISSED'}); ${fmtRatio(c.unitsPerSecond / i.unitsPerSecond)} of the idle subscriber's`,
        samples.chained.map(s => fmtInt(s.units / s.seconds)).join(' / '),
        fmtInt(Math.max(...lags)),
      ]);
      results.push({ eventsPerAppend, bare: b, idleSubscriber: i, chained: c, ratio, lagMs: lags });
    }
    await ledger.stop();
    await noop.stop();
    for (const db of [bare, idle, chained]) {
      await db.store.close();
      await db.pool.end();
    }
    const header = ['scenario', 'events/s bare', 'with a subscriber doing nothing', 'events/s with the chain', 'ratio', 'chained rounds events/s', 'chain lag after, ms'];
    console.log(`\n${textTable(header, rows)}\n(one run, ${rounds} alternating rounds of ${roundMs / 1000} s; 2 cores shared with other sessions: noisy)\n`);
    writeResults(
      NAME,
      { rounds, roundMs, results, quick: ctx.quick, at: new Date().toISOString() },
      `# Event append with the ledger's chain running\n\n${markdownTable(header, rows)}\n\nOne run, ${rounds} alternating rounds of ${roundMs / 1000} s each, on a machine of 2 cores shared with other sessions.\n`,
    );
  } finally {
    await pg.stop();
  }
}
