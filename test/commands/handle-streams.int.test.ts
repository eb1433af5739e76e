import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { handleStreams, streamRead } from '../../src/store/commands/handle-streams.ts';
import type { Decider } from '../../src/domain/decider.ts';
import { handleCommand, inStreamOrder, load } from '../../src/store/commands/handle.ts';
import { stateCache } from '../../src/store/commands/state-cache.ts';
import { refuse } from '../../src/errors.ts';
import { event, type EventOf } from '../../src/events/event.ts';
import { WrongExpectedRevision, type EventStore } from '../../src/store/event-store.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { postgresSnapshots } from '../../src/store/snapshots.ts';
import { freshPool } from '../support/database.ts';

// a transfer between two balances, which must never go below zero, decided over both streams at once
const Moved = event('TestBalanceMoved', 1, z.object({ by: z.int() }));
type MovedEvent = EventOf<typeof Moved>;
const balance: Decider<{ total: number }, { type: 'Move'; by: number }, MovedEvent> = {
  cached: true,
  initialState: () => ({ total: 0 }),
  evolve: (s, e) => ({ total: s.total + e.data.by }),
  decide: (_s, c) => [Moved({ by: c.by })],
};

let pool: Awaited<ReturnType<typeof freshPool>>;
let store: PostgresEventStore;
let other: PostgresEventStore; // another process's store on the same database: its writes race ours
beforeAll(async () => {
  pool = await freshPool(20);
  store = await PostgresEventStore.create(pool);
  other = await PostgresEventStore.create(pool);
});
afterAll(async () => {
  await store.close();
  await other.close();
  await pool.end();
});
const now = new Date('2026-01-05T03:00:00.000Z');
let seq = 0;
const names = () => {
  seq++;
  return { from: `balance-from-${seq}`, to: `balance-to-${seq}`, rule: `balance-rule-${seq}` };
};

/** A store that counts the reads of each stream. */
function counting(inner: EventStore) {
  const reads = new Map<string, number>();
  const wrapped: EventStore = Object.create(inner);
  wrapped.readStream = (streamId, options) => {
    reads.set(streamId, (reads.get(streamId) ?? 0) + 1);
    return inner.readStream(streamId, options);
  };
  wrapped.appendToStreams = writes => inner.appendToStreams(writes);
  return { store: wrapped, reads };
}

const move =
  (from: string, to: string, amount: number) =>
  (loaded: { from: { state: { total: number } }; to: { state: { total: number } } }) => {
    if (loaded.from.state.total < amount) throw refuse('CONFLICT', { message: 'not enough' });
    return { append: { from: [Moved({ by: -amount })], to: [Moved({ by: amount })] }, result: { from, to } };
  };

describe('a command over several streams', () => {
  it('appends every stream it decided on in one transaction, or none', async () => {
    const s = names();
    await handleCommand({ store }, s.from, balance, { type: 'Move', by: 100 }, { actor: 'test', now });
    const es = { store };
    const done = await handleStreams(
      es,
      { from: streamRead(s.from, balance), to: streamRead(s.to, balance) },
      move(s.from, s.to, 60),
      { actor: 'test', now },
    );
    expect(done.states).toEqual({ from: { total: 40 }, to: { total: 60 } });
    const [from, to] = [await store.readStream(s.from), await store.readStream(s.to)];
    expect(from.at(-1)!.position.commit).toBe(to.at(-1)!.position.commit); // one transaction

    await expect(
      handleStreams(es, { from: streamRead(s.from, balance), to: streamRead(s.to, balance) }, move(s.from, s.to, 60), {
        actor: 'test',
        now,
      }),
    ).rejects.toMatchObject({ code: 'CONFLICT', message: 'not enough' });
    expect((await store.readStream(s.from)).length).toBe(2);
    expect((await store.readStream(s.to)).length).toBe(1);
  });

  it('on a write elsewhere reads again only the stream refused, and decides again on what it holds now', async () => {
    const s = names();
    const cache = stateCache();
    await handleCommand({ store, cache }, s.from, balance, { type: 'Move', by: 100 }, { actor: 'test', now });
    await handleCommand({ store, cache }, s.to, balance, { type: 'Move', by: 5 }, { actor: 'test', now });
    const { store: watched, reads } = counting(store);
    let decisions = 0;
    const done = await handleStreams(
      { store: watched, cache },
      { from: streamRead(s.from, balance), to: streamRead(s.to, balance) },
      loaded => {
        decisions++;
        return move(s.from, s.to, 70)(loaded);
      },
      { actor: 'test', now },
    );
    expect(done.states).toEqual({ from: { total: 30 }, to: { total: 75 } });
    expect(decisions).toBe(1);
    expect(reads.size).toBe(0); // both decided from this process's state cache, never read

    // now a race: the other store moves 25 out of `from` after our load, before our append
    let raced = false;
    decisions = 0;
    const second = await handleStreams(
      { store: watched, cache },
      { from: streamRead(s.from, balance), to: streamRead(s.to, balance) },
      async loaded => {
        decisions++;
        if (!raced) {
          raced = true;
          await handleCommand({ store: other }, s.from, balance, { type: 'Move', by: -25 }, { actor: 'other', now });
        }
        return move(s.from, s.to, 5)(loaded);
      },
      { actor: 'test', now },
    );
    expect(decisions).toBe(2);
    expect(second.states).toEqual({ from: { total: 0 }, to: { total: 80 } });
    expect(reads.get(s.from)).toBe(1); // the refused stream, read again once
    expect(reads.get(s.to)).toBeUndefined(); // the other one kept as loaded
  });

  it('refuses when a stream it only read (a guard) was written since, and decides again on it', async () => {
    const s = names();
    const cache = stateCache();
    await handleCommand({ store, cache }, s.from, balance, { type: 'Move', by: 100 }, { actor: 'test', now });
    await handleCommand({ store, cache }, s.rule, balance, { type: 'Move', by: 50 }, { actor: 'test', now }); // the limit per move
    let raced = false;
    const limits: number[] = [];
    const attempt = handleStreams(
      { store, cache },
      { from: streamRead(s.from, balance), to: streamRead(s.to, balance), rule: streamRead(s.rule, balance) },
      async loaded => {
        limits.push(loaded.rule.state.total);
        if (!raced) {
          raced = true; // the limit is lowered elsewhere after we read it
          await handleCommand({ store: other }, s.rule, balance, { type: 'Move', by: -40 }, { actor: 'other', now });
        }
        if (loaded.rule.state.total < 30) throw refuse('CONFLICT', { message: 'over the limit' });
        return { ...move(s.from, s.to, 30)(loaded), guard: ['rule' as const] };
      },
      { actor: 'test', now },
    );
    await expect(attempt).rejects.toMatchObject({ code: 'CONFLICT', message: 'over the limit' });
    expect(limits).toEqual([50, 10]);
    expect((await store.readStream(s.from)).length).toBe(1);
    expect(await store.readStream(s.to)).toEqual([]);
  });
});

describe('a stream read as likely new', () => {
  const fresh = { ...balance, likelyNew: true };

  it('is not read while it is not cached; when it exists after all, the append refuses, and the decision runs on it as stored', async () => {
    const s = names();
    await handleCommand({ store: other }, s.from, balance, { type: 'Move', by: 100 }, { actor: 'other', now }); // written elsewhere, not cached here
    const { store: watched, reads } = counting(store);
    const seen: number[] = [];
    const done = await handleStreams(
      { store: watched, cache: stateCache() },
      { from: streamRead(s.from, fresh), to: streamRead(s.to, fresh) },
      loaded => {
        seen.push(loaded.from.state.total);
        return move(s.from, s.to, loaded.from.state.total > 0 ? 10 : 0)(loaded);
      },
      { actor: 'test', now },
    );
    expect(seen).toEqual([0, 100]);
    expect(done.states).toEqual({ from: { total: 90 }, to: { total: 10 } });
    expect(reads.get(s.from)).toBe(1);
    expect(reads.get(s.to)).toBeUndefined(); // new indeed: never read
  });
});

describe("a stream type's own options", () => {
  /** A store whose appends to `refusedId` are refused as if written elsewhere, counting them. */
  function refusing(inner: EventStore, refusedId: string) {
    const appends = { count: 0 };
    const wrapped: EventStore = Object.create(inner);
    const refuseIt = () => {
      appends.count++;
      throw new WrongExpectedRevision(refusedId, 0, 1);
    };
    wrapped.appendToStreams = writes =>
      writes.some(w => w.streamId === refusedId) ? refuseIt() : inner.appendToStreams(writes);
    wrapped.append = (streamId, events, expected) =>
      streamId === refusedId ? refuseIt() : inner.append(streamId, events, expected);
    return { store: wrapped, appends };
  }

  it('a busy stream is written as many times as its decider allows (attempts), by either path', async () => {
    const s = names();
    const stubborn = { ...balance, attempts: 3 };
    const { store: refused, appends } = refusing(store, s.from);
    await expect(
      handleStreams(
        { store: refused },
        { from: streamRead(s.from, stubborn), to: streamRead(s.to, balance) },
        move(s.from, s.to, 0),
        { actor: 'test', now },
      ),
    ).rejects.toBeInstanceOf(WrongExpectedRevision);
    expect(appends.count).toBe(3);
    appends.count = 0;
    await expect(
      handleCommand({ store: refused }, s.from, stubborn, { type: 'Move', by: 1 }, { actor: 'test', now }),
    ).rejects.toBeInstanceOf(WrongExpectedRevision);
    expect(appends.count).toBe(3);
  });

  it("the writers of a serialised stream from this process run one after another: none is refused by another's write", async () => {
    const s = names();
    const cache = stateCache();
    // a single attempt: a writer that raced another would be refused
    const busy = { ...balance, serialised: true, attempts: 1 };
    await handleCommand({ store, cache }, s.from, busy, { type: 'Move', by: 100 }, { actor: 'test', now });
    const payees = Array.from({ length: 8 }, (_, i) => `${s.to}-${i}`);
    await Promise.all(
      payees.map(to =>
        handleStreams(
          { store, cache },
          { from: streamRead(s.from, busy), to: streamRead(to, balance) },
          move(s.from, to, 10),
          { actor: 'test', now },
        ),
      ),
    );
    expect((await load({ store }, s.from, busy)).state.total).toBe(20);
  });

  it('a command that only guards a serialised stream does not wait for its writers', async () => {
    const s = names();
    const busy = { ...balance, serialised: true };
    await handleCommand({ store }, s.from, busy, { type: 'Move', by: 100 }, { actor: 'test', now });
    let release = () => {};
    const writing = inStreamOrder({ store }, s.from, () => new Promise<void>(resolve => (release = resolve)));
    const guarded = await handleStreams(
      { store },
      { from: streamRead(s.from, busy), to: streamRead(s.to, balance) },
      loaded => ({ append: { to: [Moved({ by: loaded.from.state.total })] }, guard: ['from'], result: null }),
      { actor: 'test', now },
    );
    expect(guarded.states.to).toEqual({ total: 100 });
    release();
    await writing;
  });
});

describe('a snapshot of a state that is more than plain data', () => {
  class Tally {
    constructor(readonly total: number) {}
    plus(by: number) {
      return new Tally(this.total + by);
    }
    toJSON() {
      return { total: this.total };
    }
  }
  const tally: Decider<Tally, { type: 'Move'; by: number }, MovedEvent> = {
    snapshot: {
      name: 'test-tally',
      version: 1,
      every: 2,
      revive: json => new Tally((json as { total: number }).total),
    },
    initialState: () => new Tally(0),
    evolve: (s, e) => s.plus(e.data.by),
    decide: (_s, c) => [Moved({ by: c.by })],
  };

  it('is revived when a load starts from it', async () => {
    const snapshots = await postgresSnapshots(pool);
    for (let i = 1; i <= 5; i++)
      await handleCommand({ store, snapshots }, 'tally-1', tally, { type: 'Move', by: i }, { actor: 'test', now });
    expect(await snapshots.read('tally-1', 'test-tally', 1)).not.toBeNull();
    const loaded = await load({ store, snapshots }, 'tally-1', tally);
    expect(loaded.state).toBeInstanceOf(Tally);
    expect(loaded.state.total).toBe(15);
  });
});
