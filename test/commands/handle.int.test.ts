import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { handleCommand, load, type Decider } from '../../src/commands/handle.ts';
import { event, type EventOf } from '../../src/events/event.ts';
import { sagaEventId } from '../../src/ids.ts';
import { WrongExpectedRevision } from '../../src/store/event-store.ts';
import { postgresSnapshots } from '../../src/store/snapshots.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { freshPool } from '../support/database.ts';

const CounterIncremented = event('TestCounterIncremented', 1, z.object({ by: z.int() }));
type CounterEvent = EventOf<typeof CounterIncremented>;
const counter: Decider<{ total: number }, { type: 'Increment'; by: number; max?: number }, CounterEvent> = {
  initialState: () => ({ total: 0 }),
  evolve: (s, e) => ({ total: s.total + e.data.by }),
  decide: (s, c) => (c.max !== undefined && s.total + c.by > c.max ? [] : [CounterIncremented({ by: c.by })]),
};

let pool: Awaited<ReturnType<typeof freshPool>>;
let store: PostgresEventStore;
beforeAll(async () => {
  pool = await freshPool(30);
  store = await PostgresEventStore.create(pool);
});
afterAll(async () => {
  await store.close();
  await pool.end();
});
const now = new Date('2026-01-05T03:00:00.000Z');

describe('snapshots', () => {
  const snapshotted = { ...counter, snapshot: { name: 'test-counter', version: 1, every: 3 } };

  it('are written every few events and give the same state as the whole stream', async () => {
    const snapshots = await postgresSnapshots(pool);
    for (let i = 1; i <= 10; i++) await handleCommand({ store, snapshots }, 'counter-snap', snapshotted, { type: 'Increment', by: i }, { actor: 'test', now });
    const stored = await snapshots.read('counter-snap', 'test-counter', 1);
    expect(stored!.revision).toBeGreaterThanOrEqual(7);
    expect(stored!.state).toEqual({ total: [...Array(stored!.revision + 1).keys()].reduce((a, i) => a + i + 1, 0) });
    const withSnapshot = await load({ store, snapshots }, 'counter-snap', snapshotted);
    const fromHistory = await load({ store }, 'counter-snap', counter);
    expect(withSnapshot.state).toEqual({ total: 55 });
    expect(withSnapshot.state).toEqual(fromHistory.state);
    expect(withSnapshot.revision).toBe(9);
  });

  it('of a big state are written less often: every × 2^k events, at least its size', async () => {
    const snapshots = await postgresSnapshots(pool);
    const written: number[] = [];
    const watched: typeof snapshots = { ...snapshots, write: async (...args) => { written.push(args[3].revision); await snapshots.write(...args); } };
    const big = { ...counter, snapshot: { name: 'test-big', version: 1, every: 3, size: () => 8 } };
    for (let i = 1; i <= 30; i++) await handleCommand({ store, snapshots: watched }, 'counter-big', big, { type: 'Increment', by: 1 }, { actor: 'test', now });
    expect(written).toEqual([0, 12, 24]);
    expect((await load({ store, snapshots }, 'counter-big', big))).toMatchObject({ state: { total: 30 }, revision: 29 });
  });

  it('of another version are ignored', async () => {
    const snapshots = await postgresSnapshots(pool);
    await snapshots.write('counter-old', 'test-counter', 0, { revision: 0, state: { total: 1_000_000 } });
    await handleCommand({ store }, 'counter-old', counter, { type: 'Increment', by: 2 }, { actor: 'test', now });
    expect((await load({ store, snapshots }, 'counter-old', snapshotted)).state).toEqual({ total: 2 });
  });
});

describe('command handling', () => {
  it('decides on the latest state even when writers race: no update is lost', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () => handleCommand({ store }, 'counter-race', counter, { type: 'Increment', by: 1 }, { actor: 'test', now })),
    );
    const succeeded = outcomes.filter(o => o.status === 'fulfilled').length;
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(WrongExpectedRevision);
    expect(succeeded).toBeGreaterThanOrEqual(5);
    expect((await load({ store }, 'counter-race', counter)).state.total).toBe(succeeded);
  });

  it('keeps an invariant under concurrency: a capped counter never passes its cap', async () => {
    await Promise.allSettled(
      Array.from({ length: 12 }, () => handleCommand({ store }, 'counter-capped', counter, { type: 'Increment', by: 1, max: 3 }, { actor: 'test', now })),
    );
    expect((await load({ store }, 'counter-capped', counter)).state.total).toBe(3);
  });

  it('stamps metadata, and with deterministic ids a repeated command appends nothing new', async () => {
    const context = { actor: 'system:test', now, correlationId: 'corr-1', causationId: 'cause-1', eventId: (i: number) => sagaEventId('test', 'cause-1', i) };
    const first = await handleCommand({ store }, 'counter-idem', counter, { type: 'Increment', by: 5 }, context);
    const again = await handleCommand({ store }, 'counter-idem', counter, { type: 'Increment', by: 5 }, context);
    expect(again.revision).toBe(first.revision);
    const events = await store.readStream('counter-idem');
    expect(events).toHaveLength(1);
    expect(events[0]!.metadata).toEqual({
      eventId: sagaEventId('test', 'cause-1', 0),
      correlationId: 'corr-1',
      causationId: 'cause-1',
      actor: 'system:test',
      occurredAt: now.toISOString(),
    });
  });
});
