/**
 * Append throughput of our PostgreSQL event store, against two references on the same embedded PostgreSQL:
 *  - plain INSERT: one autocommit `insert ... select from unnest(...)` per append into a table with the columns of
 *    es_events; no stream table, no revision check, no unique index besides the identity primary key (the floor);
 *  - Emmett (@event-driven-io/emmett-postgresql): `appendToStream` with the exact expected stream version.
 * Every contender has its own database and a pg pool of the same size; the same event payloads are appended.
 * Each writer appends to its own streams, starting a new one every STREAM_APPENDS appends, always with the
 * correct expected revision, so that no append is refused.
 */
import { randomUUID } from 'node:crypto';
import { uuidv7 } from '../src/ids.ts';
import os from 'node:os';
import {
  getPostgreSQLEventStore,
  type PostgresEventStore as EmmettEventStore,
} from '@event-driven-io/emmett-postgresql';
import pg from 'pg';
import type { NewEvent } from '../src/store/event-store.ts';
import { PostgresEventStore } from '../src/store/postgres-event-store.ts';
import {
  fmtInt,
  fmtRatio,
  markdownTable,
  runLoad,
  summarize,
  startBenchPostgres,
  textTable,
  writeResults,
  type BenchContext,
  type BenchPostgres,
  type LoadSample,
  type Throughput,
} from './harness.ts';

const NAME = 'event-store-append';
const POOL_MAX = 40;
const STREAM_APPENDS = 50;
const SCENARIOS = [
  { writers: 1, eventsPerAppend: 1 },
  { writers: 1, eventsPerAppend: 10 },
  { writers: 32, eventsPerAppend: 1 },
  { writers: 32, eventsPerAppend: 10 },
] as const;
const GOALS = { writers: 32, minVsEmmett: 1.5, minVsPlain: 0.6 } as const;

type ContenderKey = 'ours' | 'plain' | 'emmett';
const CONTENDERS: { key: ContenderKey; label: string }[] = [
  { key: 'ours', label: 'ours (PostgresEventStore)' },
  { key: 'plain', label: 'plain INSERT' },
  { key: 'emmett', label: 'Emmett' },
];

/** One writer's appends: each call appends `eventsPerAppend` events to the writer's current stream. */
type Writer = () => Promise<void>;

type Contender = {
  key: ContenderKey;
  /** a writer of one scenario; `streamPrefix` is unique per scenario and writer */
  writer(streamPrefix: string, eventsPerAppend: number): Writer;
  close(): Promise<void>;
};

// ---------------------------------------------------------------- payloads

// ~100 bytes, like a free-text reference on a payment
const NOTE = 'Payment for order, settled by bank transfer; reference attached for the reconciliation of the month.';
let amountSeed = 0;

/** Fresh events for one append, the same shape for every contender. */
function makeEvents(n: number): NewEvent[] {
  const correlationId = randomUUID();
  const events: NewEvent[] = [];
  for (let i = 0; i < n; i++) {
    amountSeed = (amountSeed * 7919 + 104729) % 1_000_003;
    events.push({
      type: 'PaymentRecorded',
      version: 1,
      data: { amount: 1000 + amountSeed, orderId: randomUUID(), note: NOTE },
      metadata: {
        // time-ordered, as the service's own event ids (src/ids.ts); the same ids go to every contender
        eventId: uuidv7(),
        correlationId,
        causationId: i === 0 ? null : events[0]!.metadata.eventId,
        actor: 'user-4f1c2a9e',
        occurredAt: new Date().toISOString(),
      },
    });
  }
  return events;
}

/** Rotates the writer to a new stream every STREAM_APPENDS appends. */
function streamRotation(prefix: string) {
  let stream = 0;
  let appends = 0;
  return {
    /** the stream of the next append, and whether it is the stream's first */
    next(): { streamId: string; first: boolean } {
      if (appends === STREAM_APPENDS) {
        stream++;
        appends = 0;
      }
      appends++;
      return { streamId: `${prefix}s${stream}`, first: appends === 1 };
    },
  };
}

// ---------------------------------------------------------------- contenders

// Emmett's driver (dumbo) sets process-wide pg type parsers (int8 as BigInt, its own JSON parser) when it starts.
// Our service sets int8 as Number (src/db/pool.ts). Our two pools carry their own parsers, so that each library runs
// with the parsers it is written for, whatever the order of their start.
const INT8 = pg.types.builtins.INT8;
const JSON_OIDS = new Set<number>([pg.types.builtins.JSON, pg.types.builtins.JSONB]);
const ourTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format !== 'binary' && oid === INT8) return (v: string) => Number(v);
    if (format !== 'binary' && JSON_OIDS.has(oid)) return (v: string) => JSON.parse(v) as unknown;
    return pg.types.getTypeParser(oid, format as 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

function benchPool(connectionString: string, types?: pg.CustomTypesConfig): pg.Pool {
  // idle connections stay open: no reconnects inside a measurement, and the server CPU of every backend is counted
  const pool = new pg.Pool({ connectionString, max: POOL_MAX, idleTimeoutMillis: 0, ...(types ? { types } : {}) });
  pool.on('error', () => undefined);
  return pool;
}

async function oursContender(url: string): Promise<Contender> {
  const pool = benchPool(url, ourTypes);
  try {
    const store = await PostgresEventStore.create(pool, { listen: true });
    return {
      key: 'ours',
      writer(prefix, n) {
        const streams = streamRotation(prefix);
        let revision = -1;
        return async () => {
          const { streamId, first } = streams.next();
          const result = await store.append(streamId, makeEvents(n), first ? 'no_stream' : revision);
          revision = result.nextRevision;
        };
      },
      async close() {
        try {
          await store.close();
        } finally {
          await pool.end();
        }
      },
    };
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
}

const plainSchema = `
create table plain_events (
  position bigint generated always as identity primary key,
  stream_id text not null,
  revision bigint not null,
  event_id uuid not null,
  type text not null,
  version int not null,
  data json not null,
  metadata json not null
)`;

const plainInsert = `
insert into plain_events (stream_id, revision, event_id, type, version, data, metadata)
select $1, $2::bigint + e.ord - 1, e.event_id, e.type, e.version, e.data, e.metadata
from unnest($3::uuid[], $4::text[], $5::int[], $6::json[], $7::json[])
  with ordinality as e(event_id, type, version, data, metadata, ord)`;

async function plainContender(url: string): Promise<Contender> {
  const pool = benchPool(url, ourTypes);
  try {
    await pool.query(plainSchema);
    return {
      key: 'plain',
      writer(prefix, n) {
        const streams = streamRotation(prefix);
        let revision = -1;
        return async () => {
          const { streamId, first } = streams.next();
          if (first) revision = -1;
          const events = makeEvents(n);
          // prepared, like our store's statements: the peer gets every advantage ours has
          await pool.query({
            name: 'plain-insert',
            text: plainInsert,
            values: [
              streamId,
              revision + 1,
              events.map(e => e.metadata.eventId),
              events.map(e => e.type),
              events.map(e => e.version),
              events.map(e => JSON.stringify(e.data)),
              events.map(e => JSON.stringify(e.metadata)),
            ],
          });
          revision += n;
        };
      },
      close: () => pool.end(),
    };
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
}

async function emmettContender(url: string): Promise<Contender> {
  // getPostgreSQLEventStore(url) alone would use a pg pool of pg's default size (10), which caps 32 writers at 10
  // transactions in flight; it gets a pool of the same size as the others instead. It does not end a pool it was
  // given (close() is then a no-op), so we end it.
  const pool = benchPool(url);
  let store: EmmettEventStore | undefined;
  try {
    store = getPostgreSQLEventStore(url, { connectionOptions: { pool } });
    await store.schema.migrate();
    const emmett = store;
    return {
      key: 'emmett',
      writer(prefix, n) {
        const streams = streamRotation(prefix);
        // Emmett's stream version counts events: 0n for a stream that does not exist, then the number of events
        // (its STREAM_DOES_NOT_EXIST is not checked by its SQL function; 0n is, by the insert into emt_streams).
        let version = 0n;
        return async () => {
          const { streamId, first } = streams.next();
          if (first) version = 0n;
          const events = makeEvents(n).map(e => ({ type: e.type, data: e.data, metadata: e.metadata }));
          const result = await emmett.appendToStream(streamId, events, { expectedStreamVersion: version });
          version = result.nextExpectedStreamVersion;
        };
      },
      async close() {
        try {
          await emmett.close();
        } finally {
          await pool.end();
        }
      },
    };
  } catch (err) {
    await store?.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
    throw err;
  }
}

const factories: Record<ContenderKey, (url: string) => Promise<Contender>> = {
  ours: oursContender,
  plain: plainContender,
  emmett: emmettContender,
};

// ---------------------------------------------------------------- run

type CellResult =
  | ({
      ok: true;
      walBytesPerEvent: number | null;
      serverCpuUsPerEvent: number | null;
      clientCpuUsPerEvent: number;
    } & Throughput)
  | { ok: false; error: string };

type Row = {
  writers: number;
  eventsPerAppend: number;
  results: Record<ContenderKey, CellResult>;
  oursVsPlain: number | null;
  oursVsEmmett: number | null;
};

const evs = (r: CellResult | undefined) => (r?.ok ? r.unitsPerSecond : null);
const ratio = (a: number | null, b: number | null) => (a !== null && b !== null && b > 0 ? a / b : null);
const errorText = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err));

async function walLsn(db: BenchPostgres): Promise<string | null> {
  const rows = await db.adminQuery<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn').catch(() => []);
  return rows[0]?.lsn ?? null;
}

async function walBytesBetween(db: BenchPostgres, from: string | null, to: string | null): Promise<number | null> {
  if (!from || !to) return null;
  const rows = await db
    .adminQuery<{ bytes: string }>(`select pg_wal_lsn_diff('${to}', '${from}')::text as bytes`)
    .catch(() => []);
  return rows[0] ? Number(rows[0].bytes) : null;
}

export async function run(ctx: BenchContext): Promise<void> {
  const warmupMs = ctx.quick ? 300 : 1000;
  const durationMs = ctx.quick ? 2000 : 8000;
  // The measured time of a cell is split into rounds, the contenders taking turns (in reverse order every other
  // round), so that a slow disk or a busy neighbour on the machine weighs on all of them alike.
  const rounds = ctx.quick ? 1 : 4;
  const roundMs = durationMs / rounds;
  const rampMs = 250; // before each later round: writers are warm, but 32 of them need a moment to get going
  const startedAt = new Date();
  const loadBefore = os.loadavg();
  console.log(
    `append throughput, ${warmupMs / 1000} s warm-up + ${durationMs / 1000} s per cell ` +
      `(${rounds} round${rounds === 1 ? '' : 's'} of ${roundMs / 1000} s, contenders interleaved), ` +
      `pool max ${POOL_MAX}, new stream every ${STREAM_APPENDS} appends`,
  );
  if (loadBefore[0]! > os.cpus().length * 0.5)
    console.warn(
      `  note: load average ${loadBefore[0]!.toFixed(1)} on ${os.cpus().length} CPUs, the results will be noisy`,
    );

  const db = await startBenchPostgres('bench-es-append');
  const contenders = new Map<ContenderKey, Contender>();
  const setupErrors = new Map<ContenderKey, string>();
  const rows: Row[] = [];
  let settings: Record<string, string> = {};
  try {
    console.log(`PostgreSQL ${db.version} (embedded, temporary)`);
    settings = Object.fromEntries(
      (
        await db.adminQuery<{ name: string; setting: string; unit: string | null }>(
          `select name, setting, unit from pg_settings
           where name in ('shared_buffers', 'synchronous_commit', 'fsync', 'wal_level', 'max_wal_size', 'commit_delay')`,
        )
      ).map(r => [r.name, r.unit ? `${r.setting} ${r.unit}` : r.setting]),
    );
    for (const { key } of CONTENDERS) {
      try {
        contenders.set(key, await factories[key](await db.createDatabase(`bench_${key}`)));
      } catch (err) {
        setupErrors.set(key, errorText(err));
        console.error(`  ${key}: setup failed: ${errorText(err)}`);
      }
    }

    for (const [s, scenario] of SCENARIOS.entries()) {
      if (ctx.signal.aborted) break;
      const label = `${String(scenario.writers).padStart(2)} writers × ${String(scenario.eventsPerAppend).padStart(2)} ev/append`;
      type Cell = {
        writers: Writer[];
        samples: LoadSample[];
        walBytes: number | null;
        serverCpuMs: number | null;
        clientCpuMs: number;
        error?: string;
      };
      const cells = new Map<ContenderKey, Cell>();
      for (const [key, contender] of contenders) {
        cells.set(key, {
          writers: Array.from({ length: scenario.writers }, (_, w) =>
            contender.writer(`order-c${s}w${w}`, scenario.eventsPerAppend),
          ),
          samples: [],
          walBytes: 0,
          serverCpuMs: 0,
          clientCpuMs: 0,
        });
      }
      for (let round = 0; round < rounds && !ctx.signal.aborted; round++) {
        const order = round % 2 === 0 ? CONTENDERS : [...CONTENDERS].reverse();
        for (const { key } of order) {
          const cell = cells.get(key);
          if (!cell || cell.error !== undefined || ctx.signal.aborted) continue;
          await db.adminQuery('checkpoint').catch(() => undefined);
          const lsnBefore = await walLsn(db);
          const serverCpuBefore = db.cpuMs();
          const clientCpuBefore = process.cpuUsage();
          try {
            const sample = await runLoad({
              workers: scenario.writers,
              warmupMs: round === 0 ? warmupMs : rampMs,
              durationMs: roundMs,
              signal: ctx.signal,
              operation: async w => {
                await cell.writers[w]!();
                return scenario.eventsPerAppend;
              },
            });
            const clientCpu = process.cpuUsage(clientCpuBefore);
            const serverCpuAfter = db.cpuMs();
            cell.samples.push(sample);
            cell.clientCpuMs += (clientCpu.user + clientCpu.system) / 1000;
            cell.serverCpuMs =
              cell.serverCpuMs === null || serverCpuBefore === null || serverCpuAfter === null
                ? null
                : cell.serverCpuMs + serverCpuAfter - serverCpuBefore;
            const wal = await walBytesBetween(db, lsnBefore, await walLsn(db));
            cell.walBytes = wal === null || cell.walBytes === null ? null : cell.walBytes + wal;
          } catch (err) {
            cell.error = errorText(err);
            if (!ctx.signal.aborted) console.error(`  ${label}  ${key}: FAILED ${cell.error}`);
          }
        }
      }
      if (ctx.signal.aborted) break;

      const results = {} as Record<ContenderKey, CellResult>;
      for (const { key } of CONTENDERS) {
        const cell = cells.get(key);
        if (!cell) {
          results[key] = { ok: false, error: `setup failed: ${setupErrors.get(key) ?? 'unknown'}` };
          continue;
        }
        if (cell.error !== undefined) {
          results[key] = { ok: false, error: cell.error };
          continue;
        }
        const t = summarize(cell.samples);
        const walBytesPerEvent = cell.walBytes !== null && t.totalUnits > 0 ? cell.walBytes / t.totalUnits : null;
        const perEventUs = (ms: number) => (t.totalUnits > 0 ? (ms * 1000) / t.totalUnits : 0);
        results[key] = {
          ok: true,
          ...t,
          walBytesPerEvent,
          serverCpuUsPerEvent: cell.serverCpuMs === null ? null : perEventUs(cell.serverCpuMs),
          clientCpuUsPerEvent: perEventUs(cell.clientCpuMs),
        };
        console.log(
          `  ${label}  ${key.padEnd(6)} ${fmtInt(t.unitsPerSecond).padStart(8)} ev/s  ` +
            `(${fmtInt(t.operationsPerSecond)} appends/s, p50 ${t.latencyMs.p50.toFixed(2)} ms, ` +
            `p99 ${t.latencyMs.p99.toFixed(2)} ms, server CPU ${fmtInt(results[key].ok ? results[key].serverCpuUsPerEvent : null)} µs/ev` +
            `${rounds > 1 ? `, rounds ${t.roundsUnitsPerSecond.map(fmtInt).join(' / ')}` : ''})`,
        );
      }
      rows.push({
        ...scenario,
        results,
        oursVsPlain: ratio(evs(results.ours), evs(results.plain)),
        oursVsEmmett: ratio(evs(results.ours), evs(results.emmett)),
      });
    }
  } finally {
    for (const [key, contender] of contenders) {
      await contender.close().catch(err => console.error(`  closing ${key}: ${errorText(err)}`));
    }
    await db.stop();
  }
  if (ctx.signal.aborted) return;
  const loadAfter = os.loadavg();

  // ---------------------------------------------------------------- report
  const goals = rows
    .filter(r => r.writers === GOALS.writers)
    .flatMap(r => [
      {
        scenario: `${r.writers} writers × ${r.eventsPerAppend} ev/append`,
        goal: `ours ≥ ${GOALS.minVsEmmett} × Emmett`,
        actual: r.oursVsEmmett,
        pass: r.oursVsEmmett !== null && r.oursVsEmmett >= GOALS.minVsEmmett,
      },
      {
        scenario: `${r.writers} writers × ${r.eventsPerAppend} ev/append`,
        goal: `ours ≥ ${GOALS.minVsPlain * 100} % of plain INSERT`,
        actual: r.oursVsPlain,
        pass: r.oursVsPlain !== null && r.oursVsPlain >= GOALS.minVsPlain,
      },
    ]);

  const header = ['scenario', 'ours ev/s', 'plain INSERT ev/s', 'Emmett ev/s', 'ours/plain', 'ours/Emmett'];
  const cell = (r: CellResult) => (r.ok ? fmtInt(r.unitsPerSecond) : 'ERROR');
  const tableRows = rows.map(r => [
    `${r.writers} writer${r.writers === 1 ? '' : 's'} × ${r.eventsPerAppend} ev/append`,
    cell(r.results.ours),
    cell(r.results.plain),
    cell(r.results.emmett),
    fmtRatio(r.oursVsPlain),
    fmtRatio(r.oursVsEmmett),
  ]);
  const goalHeader = ['goal (32 writers)', 'scenario', 'actual', 'result'];
  const goalRows = goals.map(g => [g.goal, g.scenario, fmtRatio(g.actual), g.pass ? 'PASS' : 'MISS']);
  const latencyHeader = [
    'scenario',
    'contender',
    'appends/s',
    'p50 ms',
    'p90 ms',
    'p99 ms',
    'WAL bytes/event',
    'server CPU µs/event',
    'client CPU µs/event',
    'ev/s per round',
  ];
  const latencyRows = rows.flatMap(r =>
    CONTENDERS.map(({ key }) => {
      const c = r.results[key];
      const scenario = `${r.writers} × ${r.eventsPerAppend}`;
      return c.ok
        ? [
            scenario,
            key,
            fmtInt(c.operationsPerSecond),
            c.latencyMs.p50.toFixed(2),
            c.latencyMs.p90.toFixed(2),
            c.latencyMs.p99.toFixed(2),
            fmtInt(c.walBytesPerEvent),
            fmtInt(c.serverCpuUsPerEvent),
            fmtInt(c.clientCpuUsPerEvent),
            c.roundsUnitsPerSecond.map(fmtInt).join(' / '),
          ]
        : [scenario, key, 'ERROR', '', '', '', '', '', '', ''];
    }),
  );
  const errors = rows.flatMap(r =>
    CONTENDERS.flatMap(({ key }) => {
      const c = r.results[key];
      return c.ok ? [] : [`${r.writers} writers × ${r.eventsPerAppend} ev/append, ${key}: ${c.error}`];
    }),
  );

  console.log(`\n${textTable(header, tableRows)}\n\n${textTable(goalHeader, goalRows)}`);
  if (errors.length > 0) console.log(`\nerrors:\n${errors.map(e => `  ${e}`).join('\n')}`);

  const env = {
    date: startedAt.toISOString(),
    node: process.version,
    postgres: db.version,
    postgresSettings: settings,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    quick: ctx.quick,
    warmupSeconds: warmupMs / 1000,
    durationSeconds: durationMs / 1000,
    rounds,
    rampSecondsBeforeLaterRounds: rampMs / 1000,
    loadAverage1mBefore: Number(loadBefore[0]!.toFixed(2)),
    loadAverage1mAfter: Number(loadAfter[0]!.toFixed(2)),
    poolMax: POOL_MAX,
    newStreamEveryAppends: STREAM_APPENDS,
  };
  const json = {
    benchmark: NAME,
    ...env,
    contenders: {
      ours: 'PostgresEventStore.create(pool, { listen: true }).append(stream, events, no_stream | exact revision)',
      plain:
        'one autocommit INSERT ... SELECT FROM unnest(...) per append, prepared; identity primary key only; no stream table, no checks',
      emmett:
        'getPostgreSQLEventStore(url, { connectionOptions: { pool } }).appendToStream(stream, events, { expectedStreamVersion })',
    },
    goals: {
      writers: GOALS.writers,
      oursVsEmmettAtLeast: GOALS.minVsEmmett,
      oursVsPlainAtLeast: GOALS.minVsPlain,
      results: goals,
    },
    rows,
  };
  const markdown = [
    `# Benchmark: event-store append throughput`,
    '',
    `${env.date} · Node ${env.node} · PostgreSQL ${env.postgres} (embedded) · ${env.cpus} CPU (${env.cpuModel}) · ` +
      `${env.warmupSeconds} s warm-up + ${env.durationSeconds} s per cell in ${env.rounds} round(s)` +
      ` · load average ${env.loadAverage1mBefore} before, ${env.loadAverage1mAfter} after${env.quick ? ' · **quick run**' : ''}`,
    '',
    `Each writer appends to its own streams (a new stream every ${STREAM_APPENDS} appends) with the correct expected ` +
      `revision; every contender has its own database on the same server and a pg pool of ${POOL_MAX}. ` +
      `Within each scenario the contenders take turns, round by round (order reversed every other round; ` +
      `a CHECKPOINT before each turn). PostgreSQL settings: ` +
      `${Object.entries(settings)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}.`,
    '',
    '- **ours**: `PostgresEventStore.append` (concurrent appends written together, one prepared statement per batch of up to 200 (group commit), each append checked and answered on its own; LISTEN/NOTIFY on)',
    '- **plain INSERT**: one autocommit `INSERT … SELECT FROM unnest(…)` per append, sent as a prepared statement, same columns as `es_events`, identity primary key only, no stream table, no checks',
    '- **Emmett**: `@event-driven-io/emmett-postgresql` `appendToStream` with `expectedStreamVersion` (transaction + `emt_append_to_stream` function)',
    '',
    markdownTable(header, tableRows),
    '',
    markdownTable(goalHeader, goalRows),
    '',
    '<details><summary>appends per second, latency per append, WAL and CPU per event, each round</summary>',
    '',
    markdownTable(latencyHeader, latencyRows),
    '',
    'WAL bytes/event: WAL written from the start of each turn (warm-up included) to its end, over the events appended in that time; it includes the full-page images that follow the CHECKPOINT before each turn. ' +
      'Server CPU: user + system time of all PostgreSQL processes over the same span, per event; client CPU: this Node process (all of its work: driver, JSON, the benchmark loop).',
    '',
    '</details>',
    ...(errors.length > 0 ? ['', '**Errors**', '', ...errors.map(e => `- ${e}`)] : []),
  ].join('\n');
  const paths = writeResults(NAME, json, markdown);
  console.log(`\nwrote ${paths.json}\nwrote ${paths.md}`);
  if (errors.length > 0) throw new Error(`${errors.length} cell(s) failed`);
}
