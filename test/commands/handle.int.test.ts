import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Decider } from '../../src/domain/decider.ts';
import { handleCommand, load } from '../../src/store/commands/handle.ts';
import { createPool } from '../../src/db/pool.ts';
import { event, type EventOf } from '../../src/events/event.ts';
import { sagaEventId } from '../../src/ids.ts';
import { WrongExpectedRevision, type EventStore } from '../../src/store/event-store.ts';
import { postgresSnapshots } from '../../src/store/snapshots.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { freshDatabaseUrl } from '../support/database.ts';

const CounterIncremented = event('TestCounterIncremented', 1, z.object({ by: z.int() }));
type CounterEvent = EventOf<typeof CounterIncremented>;
const counter: Decider<{ total: number }, { type: 'Increment'; by: number; max?: number }, CounterEvent> = {
  initialState: () => ({ total: 0 }),
  evolve: (s, e) => ({ total: s.total + e.data.by }),
  decide: (s, c) => (c.max !== undefined && s.total + c.by > c.max ? [] : [CounterIncremented({ by: c.by })]),
};

let pool: pg.Pool;
let store: PostgresEventStore;
let elsewherePool: pg.Pool;
let elsewhere: PostgresEventStore; // another process's store on the same database
beforeAll(async () => {
  const url = await freshDatabaseUrl();
  pool = createPool(url, 30);
  store = await PostgresEventStore.create(pool);
  elsewherePool = createPool(url, 10);
  elsewhere = await PostgresEventStore.create(elsewherePool);
});
afterAll(async () => {
  await store.close();
  await elsewhere.close();
  await pool.end();
  await elsewherePool.end();
});
const now = new Date('2026-01-05T03:00:00.000Z');

describe('snapshots', () => {
  const snapshotted = { ...counter, snapshot: { name: 'test-counter', version: 1, every: 3 } };

  it('are written every few events and give the same state as the whole stream', async () => {
    const snapshots = await postgresSnapshots(pool);
    for (let i = 1; i <= 10; i++)
      await handleCommand(
        { store, snapshots },
        'counter-snap',
        snapshotted,
        { type: 'Increment', by: i },
        { actor: 'test', now },
      );
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
    const watched: typeof snapshots = {
      ...snapshots,
      write: async (...args) => {
        written.push(args[3].revision);
        await snapshots.write(...args);
      },
    };
    const big = { ...counter, snapshot: { name: 'test-big', version: 1, every: 3, size: () => 8 } };
    for (let i = 1; i <= 30; i++)
      await handleCommand(
        { store, snapshots: watched },
        'counter-big',
        big,
        { type: 'Increment', by: 1 },
        { actor: 'test', now },
      );
    expect(written).toEqual([0, 12, 24]);
    expect(await load({ store, snapshots }, 'counter-big', big)).toMatchObject({ state: { total: 30 }, revision: 29 });
  });

  it('of another version are ignored', async () => {
    const snapshots = await postgresSnapshots(pool);
    await snapshots.write('counter-old', 'test-counter', 0, { revision: 0, state: { total: 1_000_000 } });
    await handleCommand({ store }, 'counter-old', counter, { type: 'Increment', by: 2 }, { actor: 'test', now });
    expect((await load({ store, snapshots }, 'counter-old', snapshotted)).state).toEqual({ total: 2 });
  });
});

/**
 * Two processes' worth of writers on one database: each PostgresEventStore has its own pool and its own queue of
 * commands per stream, so commands sent through `here` and `elsewhere` race. Each read waits (briefly) for the
 * other writer's read, so that both decide on the same revision and append together: the race happens every round.
 */
function racingWriters() {
  const conflicts = { count: 0 };
  let waiting: (() => void) | null = null;
  const meet = () =>
    new Promise<void>(resolve => {
      if (waiting) {
        waiting();
        waiting = null;
        resolve();
        return;
      }
      const timer = setTimeout(() => {
        if (waiting === release) waiting = null;
        resolve();
      }, 250); // the other writer is done (or slow): go on alone
      const release = () => {
        clearTimeout(timer);
        resolve();
      };
      waiting = release;
    });
  const writer = (inner: PostgresEventStore): EventStore => {
    const wrapped: EventStore = Object.create(inner);
    wrapped.readStream = async (streamId, options) => {
      const read = await inner.readStream(streamId, options);
      await meet();
      return read;
    };
    wrapped.append = async (streamId, events, expected) => {
      try {
        return await inner.append(streamId, events, expected);
      } catch (err) {
        if (err instanceof WrongExpectedRevision) conflicts.count++;
        throw err;
      }
    };
    return wrapped;
  };
  return { here: writer(store), elsewhere: writer(elsewhere), conflicts };
}

// the event records the total it decided on, so a decision on a stale total shows in the stream
const TallyRaised = event('TestTallyRaised', 1, z.object({ to: z.int() }));
type TallyEvent = EventOf<typeof TallyRaised>;
const tally: Decider<{ total: number }, { type: 'Raise'; max?: number }, TallyEvent> = {
  // retries enough that the race, not the retry budget, decides the outcome
  attempts: 40,
  initialState: () => ({ total: 0 }),
  evolve: (_s, e) => ({ total: e.data.to }),
  decide: (s, c) => (c.max !== undefined && s.total >= c.max ? [] : [TallyRaised({ to: s.total + 1 })]),
};

const raising = { actor: 'test', now };

describe('command handling', () => {
  it('decides on the latest state even when writers race: no update is lost', async () => {
    const { here, elsewhere: there, conflicts } = racingWriters();
    const raise = (writer: EventStore) =>
      handleCommand({ store: writer }, 'tally-race', tally, { type: 'Raise' }, raising);
    await Promise.all([here, there].flatMap(writer => Array.from({ length: 10 }, () => raise(writer))));
    const events = await store.readStream('tally-race');
    expect(events.map(e => e.data.to)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect((await load({ store }, 'tally-race', tally)).state.total).toBe(20);
    expect(conflicts.count).toBeGreaterThan(0); // the writers did race
  });

  it('keeps an invariant under concurrency: a capped counter never passes its cap', async () => {
    const { here, elsewhere: there, conflicts } = racingWriters();
    const raise = (writer: EventStore) =>
      handleCommand({ store: writer }, 'tally-capped', tally, { type: 'Raise', max: 3 }, raising);
    await Promise.all([here, there].flatMap(writer => Array.from({ length: 6 }, () => raise(writer))));
    expect((await store.readStream('tally-capped')).map(e => e.data.to)).toEqual([1, 2, 3]);
    expect(conflicts.count).toBeGreaterThan(0);
  });

  it('stamps metadata, and with deterministic ids a repeated command appends nothing new', async () => {
    const context = {
      actor: 'system:test',
      now,
      correlationId: 'corr-1',
      causationId: 'cause-1',
      eventId: (i: number) => sagaEventId('test', 'cause-1', i),
    };
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
