/**
 * A witness catching up 100,000 events (goal: under 30 s): docs/witness.mjs's first run against the service (in this
 * process, createService + listen(): the real routes over real HTTP on 127.0.0.1), which checks the chain from seq 0,
 * reads every event through /api/audit/ledger/events a page at a time, recomputes each checkpoint's root and posts its
 * cosignature. The events are written by SQL (a type no projection reads, ten WIB days of occurredAt); the service's
 * own leader chains them and signs once a minute of test-clock time has passed. A second run with nothing new is timed
 * too. BENCH_WITNESS_TRACE=1 prints each request's time.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { digestSigner } from '../src/audit/digest-signer.ts';
import { latestLedgerCheckpoint } from '../src/audit/ledger-checkpoint-rows.ts';
import { TestClock } from '../src/clock.ts';
import { createAuditor } from '../src/commands/auditor.ts';
import { loadConfig } from '../src/config.ts';
import { query } from '../src/db/pool.ts';
import { createLogger } from '../src/logger.ts';
import { createService, type Service } from '../src/service.ts';
import { fmtInt, markdownTable, startBenchPostgres, textTable, writeResults, type BenchContext } from './harness.ts';
import { benchSigningKey } from './signing-key.ts';

const NAME = 'witness';
const GOAL_SECONDS = 30;
const CHUNK = 50_000;
const STREAMS = 10_000;

/** Events no projection reads, ~250 bytes each with a password hash to commit to, spread over ten WIB days. */
async function writeLog(service: Service, events: number) {
  const t0 = Date.parse('2026-01-05T00:00:00.000Z');
  const spacingMs = Math.floor((10 * 86_400_000) / events);
  for (let from = 0; from < events; from += CHUNK) {
    await query(
      service.pool,
      'BenchInsertWitnessLog',
      `insert into es_events (stream_id, revision, event_id, type, version, data, metadata)
       select 'bench-' || (k % $3), k / $3, md5(k::text)::uuid, 'BenchRecorded', 1,
              json_build_object('paymentId', md5('p' || k), 'amount', 10000 + k % 90000, 'orderId', 'INV-' || k,
                                'passwordHash', '$argon2id$v=19$m=65536,t=3,p=4$' || md5('s' || k) || '$' || md5('h' || k), 'note', repeat('x', 40)),
              json_build_object('eventId', md5(k::text)::uuid, 'correlationId', md5('c' || k)::uuid, 'causationId', null, 'actor', 'bench',
                                'occurredAt', to_char(to_timestamp(($4::bigint + k::bigint * $5) / 1000.0) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
         from generate_series($1::bigint, $2::bigint - 1) k order by k`,
      [from, Math.min(events, from + CHUNK), STREAMS, t0, spacingMs],
    );
  }
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const t = performance.now();
  const value = await work();
  return { value, seconds: (performance.now() - t) / 1000 };
}

export async function run(ctx: BenchContext): Promise<void> {
  const events = ctx.quick ? 10_000 : 100_000;
  const pg = await startBenchPostgres('bench-witness');
  const signingKey = benchSigningKey();
  const clock = new TestClock(new Date('2026-01-15T03:00:00.000Z'));
  let service: Service | null = null;
  try {
    const config = loadConfig({
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'bench-witness-data-')),
      DATABASE_URL: await pg.createDatabase('witness'),
      DIGEST_SIGNING_KEY: signingKey,
      PORT: '0',
      SANDBOX_PORT: '0',
      LOG_LEVEL: 'silent',
      HOST: '127.0.0.1',
    });
    service = await createService(config, { log: createLogger('silent'), clock });
    const url = (await service.listen()).replace('localhost', '127.0.0.1');
    const { token } = await createAuditor(
      { store: service.store, clock, readModels: service.projections },
      'bench witness',
      'operator:bench',
    );
    await writeLog(service, events);
    // the leader takes the log in (cutting each day's end), then the last day a minute later
    const head = await service.store.headPosition();
    if (!(await service.ledger.waitFor(head, 300_000))) throw new Error('the ledger did not catch up in 5 minutes');
    clock.advance(61_000);
    let latest = await latestLedgerCheckpoint(service.pool);
    for (let i = 0; i < 200 && (latest?.to ?? 0) < events; i++) {
      await new Promise(r => setTimeout(r, 100));
      latest = await latestLedgerCheckpoint(service.pool);
    }
    if (!latest || latest.to < events) throw new Error(`no checkpoint covers the log: ${JSON.stringify(latest)}`);
    console.log(`${NAME}: ${fmtInt(latest.to)} events in ${latest.seq + 1} checkpoints`);

    const { runWitness } = (await import(new URL('../docs/witness.mjs', import.meta.url).href)) as {
      runWitness: (args: string[], io: object) => Promise<number>;
    };
    const state = path.join(mkdtempSync(path.join(tmpdir(), 'bench-witness-')), 'state.json');
    const said: string[] = [];
    const asked: string[] = [];
    const io = {
      print: (t: string) => said.push(t),
      complain: (t: string) => said.push(t),
      fetch: async (input: URL, init: RequestInit) => {
        const t = performance.now();
        const r = await fetch(input, init);
        const body = await r.text();
        if (process.env.BENCH_WITNESS_TRACE)
          asked.push(`${(performance.now() - t).toFixed(0)} ms ${input.pathname}${input.search.slice(0, 40)}`);
        return new Response(body, { status: r.status, headers: r.headers });
      },
    };
    const args = ['--url', url, '--state', state, '--token', token];
    const publicKey = digestSigner(signingKey).publicKey;
    const first = await timed(() => runWitness([...args, '--public-key', publicKey], io));
    if (first.value !== 0) throw new Error(`the witness refused: ${said.slice(-3).join('\n')}`);
    const again = await timed(() => runWitness(args, io));
    if (again.value !== 0) throw new Error(`the witness refused: ${said.slice(-3).join('\n')}`);
    const memoryMb = process.memoryUsage().rss / 1e6;
    if (asked.length > 0) console.log(asked.join('\n'));

    const header = ['run', 'events', 'checkpoints', 'seconds', 'events/s', 'goal'];
    const rows = [
      [
        'first run: the chain from seq 0, every event read and hashed',
        fmtInt(latest.to),
        fmtInt(latest.seq + 1),
        first.seconds.toFixed(1),
        fmtInt(latest.to / first.seconds),
        `< ${GOAL_SECONDS} s: ${first.seconds < GOAL_SECONDS ? 'met' : 'MISSED'}`,
      ],
      ['a run with nothing new', '0', '0', again.seconds.toFixed(2), '', ''],
    ];
    console.log(
      `\n${textTable(header, rows)}\nrss after (service and witness in one process): ${memoryMb.toFixed(0)} MB (2 shared cores: other sessions' load adds noise)\n`,
    );
    const written = writeResults(
      NAME,
      {
        events: latest.to,
        checkpoints: latest.seq + 1,
        firstRunSeconds: first.seconds,
        nothingNewSeconds: again.seconds,
        goalSeconds: GOAL_SECONDS,
        rssMb: memoryMb,
        quick: ctx.quick,
        at: new Date().toISOString(),
      },
      `# A witness catching up ${fmtInt(latest.to)} events\n\n${markdownTable(header, rows)}\n\nOne run on a shared 2-core machine; the service and the witness share the process (and its cores).\n`,
    );
    console.log(`results: ${written.md}`);
  } finally {
    await service?.close();
    await pg.stop();
  }
}
