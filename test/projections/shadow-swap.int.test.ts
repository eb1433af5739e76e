import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { query } from '../../src/db/pool.ts';
import { event } from '../../src/events/event.ts';
import { createLogger } from '../../src/logger.ts';
import type { Projection } from '../../src/projections/projection.ts';
import { ProjectionRunner, rebuildProjection, verifyAgainstHistory } from '../../src/projections/runner.ts';
import type { NewEvent } from '../../src/store/event-store.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { freshPool } from '../support/database.ts';
import { nextUuid } from '../support/ids.ts';

const TestTallied = event('TestTallied', 1, z.object({ stream: z.string() }));
const metadata = () => ({
  eventId: nextUuid(),
  correlationId: nextUuid(),
  causationId: null,
  actor: 'test',
  occurredAt: '2026-01-05T03:00:00.000Z',
});

/** Counts each stream's events: an event applied twice, or lost, shows in its count. */
const tally: Projection = {
  name: 'test-tally',
  tables: ['test_tally'],
  handles: ['TestTallied' as never],
  schema: ['create table if not exists test_tally (stream text primary key, n int not null)'],
  async apply(tx, e) {
    const { stream } = e.data as unknown as { stream: string };
    await query(
      tx,
      'TallyEvent',
      'insert into test_tally (stream, n) values ($1, 1) on conflict (stream) do update set n = test_tally.n + 1',
      [stream],
    );
  },
};

const streams = ['a', 'b', 'c', 'd'];
const tallied = (stream: string): NewEvent => ({
  type: TestTallied.type,
  version: 1,
  data: TestTallied({ stream }).data,
  metadata: metadata(),
});

describe('a read model rebuilt into shadow tables while its live projection runs', () => {
  let pool: Awaited<ReturnType<typeof freshPool>>;
  let store: PostgresEventStore;
  let runner: ProjectionRunner;
  const appended = new Map(streams.map(s => [s, 0]));

  /** Appends to every stream, one event each per round, until told to stop; answers how many rounds it made. */
  function keepWriting(until: { stop: boolean }) {
    return (async () => {
      while (!until.stop) {
        await Promise.all(
          streams.map(async s => {
            await store.append(`tally-${s}`, [tallied(s)], 'any');
            appended.set(s, appended.get(s)! + 1);
          }),
        );
      }
    })();
  }

  beforeAll(async () => {
    pool = await freshPool();
    store = await PostgresEventStore.create(pool);
    runner = new ProjectionRunner({ pool, store, log: createLogger('silent') }, [tally]);
    await runner.start();
  });
  afterAll(async () => {
    await runner?.stop();
    await store?.close();
    await pool?.end();
  });

  it('is swapped in with the live checkpoint: the events written meanwhile are applied once, none lost, and verify agrees', async () => {
    const writing = { stop: false };
    const writer = keepWriting(writing);
    while ([...appended.values()].reduce((a, n) => a + n, 0) < 400) await new Promise(r => setTimeout(r, 20));
    const replayed = await rebuildProjection({ pool, store }, tally);
    expect(replayed).toBeGreaterThan(0);
    for (let i = 0; i < 5; i++) {
      // while the writes go on, too: the live rows and their checkpoint are read in one snapshot
      const verified = await verifyAgainstHistory({ pool, store }, tally);
      expect(verified.differences).toEqual([]);
      expect(verified.led).toBe(true);
    }
    await new Promise(r => setTimeout(r, 200));
    writing.stop = true;
    await writer;

    expect(await runner.waitFor(await store.headPosition(), 10_000)).toBe(true);
    const rows = await query<{ stream: string; n: number }>(
      pool,
      'ReadTally',
      'select stream, n from test_tally order by stream',
    );
    expect(Object.fromEntries(rows.rows.map(r => [r.stream, r.n]))).toEqual(Object.fromEntries(appended));
    expect((await verifyAgainstHistory({ pool, store }, tally)).differences).toEqual([]);
    const left = await query(
      pool,
      'ReplaySchemas',
      `select nspname from pg_namespace where nspname ~ '^(verify|rebuild)_'`,
    );
    expect(left.rowCount).toBe(0);
    // a correctness test, not a timing one: the rebuild chases a writer that never pauses, which takes a loaded 2-core
    // machine several times as long as an idle one
  }, 150_000);

  it('verify names a row the live read model has that history does not', async () => {
    await query(pool, 'ForgeTally', `update test_tally set n = n + 1 where stream = 'a'`);
    expect((await verifyAgainstHistory({ pool, store }, tally)).differences).toEqual([
      { table: 'test_tally', onlyLive: 1, onlyReplayed: 1 },
    ]);
  });
});
