import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { query } from '../../src/db/pool.ts';
import { event } from '../../src/events/event.ts';
import { createLogger } from '../../src/logger.ts';
import type { Projection } from '../../src/projections/projection.ts';
import { ProjectionRunner } from '../../src/projections/runner.ts';
import { readCheckpoint, saveCheckpointForward } from '../../src/store/checkpoints.ts';
import { comparePositions, type NewEvent } from '../../src/store/event-store.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { freshPool } from '../support/database.ts';
import { nextUuid } from '../support/ids.ts';
import { eventually } from '../support/sandbox.ts';

// declared, so that the store and the runner know them
event('TestCounted', 1, z.object({ n: z.int() }));
event('TestIgnored', 1, z.object({ n: z.int() }));
const counts: Projection = {
  name: 'test-counts',
  tables: ['test_counts'],
  handles: ['TestCounted' as never],
  schema: ['create table if not exists test_counts (n int primary key)'],
  async apply(tx, e) {
    await query(tx, 'InsertTestCount', 'insert into test_counts (n) values ($1)', [
      (e.data as unknown as { n: number }).n,
    ]);
  },
};
const recorded = (type: string, n: number): NewEvent => ({
  type,
  version: 1,
  data: { n },
  metadata: {
    eventId: nextUuid(),
    correlationId: nextUuid(),
    causationId: null,
    actor: 'test',
    occurredAt: '2026-01-05T03:00:00.000Z',
  },
});

let pool: Awaited<ReturnType<typeof freshPool>>;
let store: PostgresEventStore;
beforeAll(async () => {
  pool = await freshPool();
  store = await PostgresEventStore.create(pool);
});
afterAll(async () => {
  await store.close();
  await pool.end();
});

describe('a projection that events pass by', () => {
  it('stores how far they moved it when it stops, not a second earlier', async () => {
    const runner = new ProjectionRunner({ pool, store, log: createLogger('silent') }, [counts]);
    await runner.start();
    const counted = await store.append(`counts-${nextUuid()}`, [recorded('TestCounted', 1)], 'no_stream');
    expect(await runner.waitFor(counted.position, 5000)).toBe(true); // applied, its checkpoint stored
    const ignoredOnly = await store.append(`others-${nextUuid()}`, [recorded('TestIgnored', 2)], 'no_stream');
    expect(await runner.waitFor(ignoredOnly.position, 5000)).toBe(true);
    await runner.stop(); // within the second after the counted event's checkpoint
    expect(await readCheckpoint(pool, 'projection:test-counts')).toEqual(ignoredOnly.position);
  });

  it('stores how far they moved it within about a second when nothing follows, without stopping', async () => {
    const runner = new ProjectionRunner({ pool, store, log: createLogger('silent') }, [counts]);
    await runner.start();
    try {
      const counted = await store.append(`counts-${nextUuid()}`, [recorded('TestCounted', 3)], 'no_stream');
      expect(await runner.waitFor(counted.position, 5000)).toBe(true);
      const ignoredOnly = await store.append(`others-${nextUuid()}`, [recorded('TestIgnored', 4)], 'no_stream');
      expect(await runner.waitFor(ignoredOnly.position, 5000)).toBe(true);
      await eventually(
        async () => comparePositions(await readCheckpoint(pool, 'projection:test-counts'), ignoredOnly.position) === 0,
        3000,
      );
    } finally {
      await runner.stop();
    }
  });
});

describe('saveCheckpointForward', () => {
  it('moves a checkpoint forward, never back', async () => {
    const name = `test-forward-${nextUuid()}`;
    await saveCheckpointForward(pool, name, { commit: 10n, prepare: 5n });
    expect(await readCheckpoint(pool, name)).toEqual({ commit: 10n, prepare: 5n });
    await saveCheckpointForward(pool, name, { commit: 10n, prepare: 4n });
    await saveCheckpointForward(pool, name, { commit: 9n, prepare: 99n });
    expect(await readCheckpoint(pool, name)).toEqual({ commit: 10n, prepare: 5n });
    await saveCheckpointForward(pool, name, { commit: 11n, prepare: 1n });
    expect(await readCheckpoint(pool, name)).toEqual({ commit: 11n, prepare: 1n });
  });
});
