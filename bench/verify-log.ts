/**
 * `verify-log` over a log of 1,000,000 events (goal: under 60 s). The events are written straight into
 * es_events by SQL (100,000 per transaction, 10,000 streams, ten WIB days, ~200-byte payloads with a password hash to
 * commit to); the chain is then built as the live subscriber builds it (takeEvents, a checkpoint every 100 events, i.e.
 * about every 1.4 minutes of event time, and at each day's end) and stored; then verifyLog recomputes everything from
 * the log, with the newest checkpoint kept as an auditor's; and the same rows read bare, the ceiling verify-log's reading
 * cannot beat, measured in the same run. All timed.
 */
import { query } from '../src/db/pool.ts';
import { createPool } from '../src/db/pool.ts';
import { digestSigner } from '../src/audit/digest-signer.ts';
import { emptyChain, takeEvents, type ChainState } from '../src/audit/ledger-chain.ts';
import { checkpointLine, ledgerSchema } from '../src/audit/ledger-checkpoint-rows.ts';
import type { LedgerCheckpoint } from '../src/audit/ledger-format.ts';
import { logEvents } from '../src/audit/stream-pages.ts';
import { verifyLog } from '../src/audit/verify-log.ts';
import type { RecordedEvent } from '../src/store/event-store.ts';
import { PostgresEventStore } from '../src/store/postgres-event-store.ts';
import { benchSigningKey } from './signing-key.ts';
import { fmtInt, markdownTable, startBenchPostgres, textTable, writeResults, type BenchContext } from './harness.ts';

const NAME = 'verify-log';
const GOAL_SECONDS = 60;
const CHUNK = 100_000;
const STREAMS = 10_000;
const CHAIN_BATCH = 100;

async function writeLog(pool: ReturnType<typeof createPool>, events: number) {
  const t0 = Date.parse('2026-01-05T00:00:00.000Z');
  const spacingMs = Math.floor((10 * 86_400_000) / events);
  for (let from = 0; from < events; from += CHUNK) {
    const to = Math.min(events, from + CHUNK);
    await query(
      pool,
      'BenchInsertLog',
      `insert into es_events (stream_id, revision, event_id, type, version, data, metadata)
       select 'bench-' || (k % $3), k / $3, md5(k::text)::uuid, 'PaymentCreated', 1,
              json_build_object('paymentId', md5('p' || k), 'amount', 10000 + k % 90000, 'orderId', 'INV-' || k,
                                'passwordHash', '$argon2id$v=19$m=65536,t=3,p=4$' || md5('s' || k) || '$' || md5('h' || k), 'note', repeat('x', 40)),
              json_build_object('eventId', md5(k::text)::uuid, 'correlationId', md5('c' || k)::uuid, 'causationId', null, 'actor', 'bench',
                                'occurredAt', to_char(to_timestamp(($4::bigint + k::bigint * $5) / 1000.0) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
         from generate_series($1::bigint, $2::bigint - 1) k order by k`,
      [from, to, STREAMS, t0, spacingMs],
    );
  }
}

/** The chain the live subscriber would sign: batches of CHAIN_BATCH events, `now` a minute and a bit after each batch. */
async function buildChain(
  store: PostgresEventStore,
  signer: ReturnType<typeof digestSigner>,
): Promise<LedgerCheckpoint[]> {
  const checkpoints: LedgerCheckpoint[] = [];
  let state: ChainState = emptyChain;
  let batch: RecordedEvent[] = [];
  const flush = () => {
    const now = new Date(Date.parse(batch.at(-1)!.metadata.occurredAt) + 61_000);
    const taken = takeEvents(state, batch, now, signer);
    checkpoints.push(...taken.checkpoints);
    state = taken.state;
    batch = [];
  };
  for await (const e of logEvents(store)) {
    batch.push(e);
    if (batch.length === CHAIN_BATCH) flush();
  }
  if (batch.length > 0) flush();
  return checkpoints;
}

export async function run(ctx: BenchContext): Promise<void> {
  const events = ctx.quick ? 100_000 : 1_000_000;
  const pg = await startBenchPostgres('bench-verify-log');
  try {
    const pool = createPool(await pg.createDatabase('ledger'), 4);
    const store = await PostgresEventStore.create(pool, { listen: false });
    const signer = digestSigner(benchSigningKey());
    let t = performance.now();
    await writeLog(pool, events);
    const writeSeconds = (performance.now() - t) / 1000;
    console.log(`${NAME}: ${fmtInt(events)} events written in ${writeSeconds.toFixed(1)} s`);

    t = performance.now();
    const checkpoints = await buildChain(store, signer);
    const chainSeconds = (performance.now() - t) / 1000;
    await query(pool, 'CreateLedgerCheckpoints', ledgerSchema);
    for (let i = 0; i < checkpoints.length; i += 5000) {
      const part = checkpoints.slice(i, i + 5000);
      await query(
        pool,
        'BenchInsertCheckpoints',
        'insert into ledger_checkpoints (seq, checkpoint) select seq, line::json from unnest($1::bigint[], $2::text[]) as c(seq, line)',
        [part.map(c => c.seq), part.map(checkpointLine)],
      );
    }
    console.log(`${NAME}: chain of ${fmtInt(checkpoints.length)} checkpoints built in ${chainSeconds.toFixed(1)} s`);

    t = performance.now();
    const verdict = await verifyLog(
      { store, pool },
      { publicKey: signer.publicKey, kept: [{ checkpoint: checkpoints.at(-1)!, source: 'bench' }] },
    );
    const verifySeconds = (performance.now() - t) / 1000;
    if (!verdict.clean || verdict.events !== events)
      throw new Error(`verify-log found ${JSON.stringify(verdict.problems.slice(0, 3))} over ${verdict.events} events`);
    // the ceiling, measured in the same run: the same rows read bare, in the same pages, nothing hashed or checked
    t = performance.now();
    let read = 0;
    for await (const _ of logEvents(store)) read++;
    const bareSeconds = (performance.now() - t) / 1000;
    const memoryMb = process.memoryUsage().rss / 1e6;
    await store.close();
    await pool.end();

    const header = ['step', 'events', 'checkpoints', 'seconds', 'events/s', 'goal'];
    const rows = [
      ['write the log (SQL)', fmtInt(events), '', writeSeconds.toFixed(1), fmtInt(events / writeSeconds), ''],
      [
        'build the chain (as the subscriber)',
        fmtInt(events),
        fmtInt(checkpoints.length),
        chainSeconds.toFixed(1),
        fmtInt(events / chainSeconds),
        '',
      ],
      ['read the log bare (the ceiling)', fmtInt(read), '', bareSeconds.toFixed(1), fmtInt(read / bareSeconds), ''],
      [
        'verify-log',
        fmtInt(verdict.events),
        fmtInt(verdict.checkpoints),
        verifySeconds.toFixed(1),
        fmtInt(events / verifySeconds),
        `< ${GOAL_SECONDS} s: ${verifySeconds < GOAL_SECONDS ? 'met' : 'MISSED'}`,
      ],
    ];
    console.log(
      `\n${textTable(header, rows)}\nrss after: ${memoryMb.toFixed(0)} MB (2 shared cores: other sessions' load adds noise)\n`,
    );
    const written = writeResults(
      NAME,
      {
        events,
        checkpoints: checkpoints.length,
        writeSeconds,
        chainSeconds,
        verifySeconds,
        bareSeconds,
        goalSeconds: GOAL_SECONDS,
        rssMb: memoryMb,
        quick: ctx.quick,
        at: new Date().toISOString(),
      },
      `# verify-log over ${fmtInt(events)} events\n\n${markdownTable(header, rows)}\n\nOne run on a shared 2-core machine; the daily digests are checked in the same pass (none stored here).\n`,
    );
    console.log(`results: ${written.md}`);
  } finally {
    await pg.stop();
  }
}
