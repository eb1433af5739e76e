import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { query } from '../../src/db/pool.ts';
import { event } from '../../src/events/event.ts';
import { createLogger } from '../../src/logger.ts';
import type { Projection } from '../../src/projections/projection.ts';
import { ProjectionRunner, verifyAgainstHistory } from '../../src/projections/runner.ts';
import type { NewEvent } from '../../src/store/event-store.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { freshPool } from '../support/database.ts';
import { nextUuid } from '../support/ids.ts';

const TestCounted = event('TestCounted', 1, z.object({ stream: z.string() }));
const TestPassedBy = event('TestPassedBy', 1, z.object({ stream: z.string() }));
const metadata = () => ({
  eventId: nextUuid(),
  correlationId: nextUuid(),
  causationId: null,
  actor: 'test',
  occurredAt: '2026-01-05T03:00:00.000Z',
});

/** Written by hand: its apply counts whatever it is given, but it handles TestCounted only. */
const counts: Projection = {
  name: 'test-counts',
  tables: ['test_counts'],
  handles: ['TestCounted' as never],
  schema: ['create table if not exists test_counts (stream text primary key, n int not null)'],
  async apply(tx, e) {
    const { stream } = e.data as unknown as { stream: string };
    await query(
      tx,
      'CountEvent',
      'insert into test_counts (stream, n) values ($1, 1) on conflict (stream) do update set n = test_counts.n + 1',
      [stream],
    );
  },
};

const recorded = (type: typeof TestCounted | typeof TestPassedBy, stream: string): NewEvent => ({
  type: type.type,
  version: 1,
  data: type({ stream }).data,
  metadata: metadata(),
});

describe('a replay of a read model', () => {
  let pool: Awaited<ReturnType<typeof freshPool>>;
  let store: PostgresEventStore;
  let runner: ProjectionRunner;

  beforeAll(async () => {
    pool = await freshPool();
    store = await PostgresEventStore.create(pool);
    runner = new ProjectionRunner({ pool, store, log: createLogger('silent') }, [counts]);
    await runner.start();
  });
  afterAll(async () => {
    await runner?.stop();
    await store?.close();
    await pool?.end();
  });

  it('applies the event types its projection handles only, as the live run does', async () => {
    const appended = await store.append(
      `counts-${nextUuid()}`,
      [recorded(TestCounted, 'a'), recorded(TestPassedBy, 'a'), recorded(TestCounted, 'b')],
      'no_stream',
    );
    expect(await runner.waitFor(appended.position, 10_000)).toBe(true);
    const rows = await query<{ stream: string; n: number }>(
      pool,
      'ReadCounts',
      'select stream, n from test_counts order by stream',
    );
    expect(rows.rows).toEqual([
      { stream: 'a', n: 1 },
      { stream: 'b', n: 1 },
    ]);
    expect((await verifyAgainstHistory({ pool, store }, counts)).differences).toEqual([]);
  });
});
