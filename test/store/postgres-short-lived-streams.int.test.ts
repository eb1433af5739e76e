import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  StreamDeleted,
  WrongExpectedRevision,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
} from '../../src/store/event-store.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { freshDatabaseUrl, freshPool } from '../support/database.ts';
import { createPool } from '../../src/db/pool.ts';
import { eventStoreContract, newEvent } from './event-store.contract.ts';
import { nextUuid } from '../support/ids.ts';
import { storedStreamId } from '../../src/store/postgres-stream-ids.ts';

/**
 * The store with every stream it creates short-lived (no es_streams row): a stream created by `append` goes through
 * appendToStreams with the flag, the way a command over several streams creates one; everything after that is the
 * store's own path for a stream without a row.
 */
function shortLived(store: EventStore): EventStore {
  return Object.assign(Object.create(store) as EventStore, {
    append: async (streamId: string, events: NewEvent[], expected: ExpectedRevision) =>
      expected === 'no_stream'
        ? (await store.appendToStreams([{ streamId, events, expected, shortLived: true }]))[0]!
        : store.append(streamId, events, expected),
    appendToStreams: (writes: Parameters<EventStore['appendToStreams']>[0]) =>
      store.appendToStreams(writes.map(w => ({ ...w, shortLived: true }))),
  });
}

async function openShortLived() {
  const pool = await freshPool(40);
  const store = await PostgresEventStore.create(pool);
  return {
    store: shortLived(store),
    close: async () => {
      await store.close();
      await pool.end();
    },
  };
}

// every behaviour of the store holds for streams without a row; they are not listed by streamIds
eventStoreContract('postgres, short-lived streams', openShortLived, { listsStreams: false });

const rowOf = async (pool: pg.Pool, streamId: string) =>
  (await pool.query('select revision, deleted from es_streams where stream_id = $1', [storedStreamId(streamId)]))
    .rows[0] as { revision: number; deleted: boolean } | undefined;

describe('short-lived streams on PostgreSQL', () => {
  it('keeps no es_streams row for a short-lived stream, on the batch, alone and in es_append_streams, and one for the others', async () => {
    const pool = await freshPool();
    const store = await PostgresEventStore.create(pool);
    const [batched, alone, grouped, kept] = ['batched', 'alone', 'grouped', 'kept'].map(k => `${k}-${nextUuid()}`) as [
      string,
      string,
      string,
      string,
    ];
    // two appends in one turn make a batch statement; one alone is written alone
    await Promise.all([
      store.appendToStreams([{ streamId: batched, events: [newEvent('A')], expected: 'no_stream', shortLived: true }]),
      store.appendToStreams([{ streamId: kept, events: [newEvent('A')], expected: 'no_stream' }]),
    ]);
    await store.appendToStreams([
      { streamId: alone, events: [newEvent('A')], expected: 'no_stream', shortLived: true },
    ]);
    await store.appendToStreams([
      { streamId: grouped, events: [newEvent('A')], expected: 'no_stream', shortLived: true },
      { streamId: kept, events: [], expected: 0 },
    ]);
    for (const id of [batched, alone, grouped]) {
      await store.append(id, [newEvent('B'), newEvent('C')], 0);
      expect({ id, row: await rowOf(pool, id) }).toEqual({ id, row: undefined });
      expect((await store.readStream(id)).map(e => [e.type, e.revision])).toEqual([
        ['A', 0],
        ['B', 1],
        ['C', 2],
      ]);
    }
    expect(await rowOf(pool, kept)).toEqual({ revision: 0, deleted: false });
    await store.close();
    await pool.end();
  });

  it('lets exactly one of two instances writing a short-lived stream at the same revision win, round after round', async () => {
    const url = await freshDatabaseUrl();
    const pools = [createPool(url, 8), createPool(url, 8)];
    const [one, two] = await Promise.all(pools.map(p => PostgresEventStore.create(p, { listen: false })));
    const streamId = `raced-${nextUuid()}`;
    await one!.appendToStreams([{ streamId, events: [newEvent('Start')], expected: 'no_stream', shortLived: true }]);
    for (let revision = 0; revision < 20; revision++) {
      const outcomes = await Promise.allSettled(
        [one!, two!].map(store => store.append(streamId, [newEvent(`At${revision}`)], revision)),
      );
      const won = outcomes.filter(o => o.status === 'fulfilled');
      const lost = outcomes.flatMap(o => (o.status === 'rejected' ? [o.reason as unknown] : []));
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]).toBeInstanceOf(WrongExpectedRevision);
      expect((lost[0] as WrongExpectedRevision).actual).toBe(revision + 1);
    }
    // the same in batches: each instance writes a new stream in the same turn, so both go in one statement, which
    // does not see the other's commit while it waits for the lock; the loser is refused all the same
    for (let revision = 20; revision < 30; revision++) {
      const outcomes = await Promise.allSettled(
        [one!, two!].map(store =>
          Promise.all([
            store.append(streamId, [newEvent(`At${revision}`)], revision),
            store.appendToStreams([
              { streamId: `companion-${nextUuid()}`, events: [newEvent('C')], expected: 'no_stream', shortLived: true },
            ]),
          ]),
        ),
      );
      const lost = outcomes.flatMap(o => (o.status === 'rejected' ? [o.reason as unknown] : []));
      expect(lost).toHaveLength(1);
      expect(lost[0]).toBeInstanceOf(WrongExpectedRevision);
    }
    // and 'any' from both at once: every event written, at consecutive revisions
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => [one!, two!][i % 2]!.append(streamId, [newEvent(`Any${i}`)], 'any')),
    );
    const revisions = (await one!.readStream(streamId)).map(e => e.revision);
    expect(revisions).toEqual(Array.from({ length: 51 }, (_, i) => i));
    await Promise.all([one!.close(), two!.close()]);
    await Promise.all(pools.map(p => p.end()));
  });

  it('deletes a short-lived stream with a tombstone at its last revision; later appends are refused', async () => {
    const pool = await freshPool();
    const store = await PostgresEventStore.create(pool);
    const streamId = `gone-${nextUuid()}`;
    await store.appendToStreams([
      { streamId, events: [newEvent('A'), newEvent('B')], expected: 'no_stream', shortLived: true },
    ]);
    await store.deleteStream(streamId);
    expect(await rowOf(pool, streamId)).toEqual({ revision: 1, deleted: true });
    await expect(store.append(streamId, [newEvent('C')], 1)).rejects.toBeInstanceOf(StreamDeleted);
    await expect(
      store.appendToStreams([{ streamId, events: [newEvent('C')], expected: 'no_stream', shortLived: true }]),
    ).rejects.toBeInstanceOf(StreamDeleted);
    await store.close();
    await pool.end();
  });
});
