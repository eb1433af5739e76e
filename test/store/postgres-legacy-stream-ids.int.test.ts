import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { START, StreamDeleted, WrongExpectedRevision } from '../../src/store/event-store.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { storedStreamId } from '../../src/store/postgres-stream-ids.ts';
import { freshPool } from '../support/database.ts';
import { nextUuid } from '../support/ids.ts';
import { newEvent } from './event-store.contract.ts';

/**
 * Streams written before short stream ids keep their long ids in es_events and es_streams (the log is never
 * rewritten): the store reads them, appends to them on every path, refuses a new stream of the same id, and deletes
 * them, as if they had been written today.
 */
describe('streams written before short stream ids', () => {
  let pool: pg.Pool;
  let store: PostgresEventStore;

  beforeAll(async () => {
    pool = await freshPool();
    store = await PostgresEventStore.create(pool);
  });
  afterAll(async () => {
    await store.close();
    await pool.end();
  });

  /** Events as the previous version appended them: under the long id, metadata as JSON; a row in es_streams or not. */
  async function writtenBefore(streamId: string, types: string[], withRow: boolean): Promise<void> {
    for (const [revision, type] of types.entries()) {
      const e = newEvent(type, { n: revision });
      await pool.query(
        `insert into es_events (stream_id, revision, event_id, type, version, data, metadata) values ($1, $2, $3, $4, 1, $5, $6)`,
        [streamId, revision, e.metadata.eventId, type, JSON.stringify(e.data), JSON.stringify(e.metadata)],
      );
    }
    if (withRow)
      await pool.query('insert into es_streams (stream_id, revision) values ($1, $2)', [streamId, types.length - 1]);
  }

  const keptUnder = async (streamId: string) =>
    (
      await pool.query<{ stream_id: string; revision: string }>(
        `select stream_id, revision::text from es_events where stream_id in ($1, $2) order by revision`,
        [streamId, storedStreamId(streamId)],
      )
    ).rows.map(r => [r.revision, r.stream_id === streamId ? 'long' : 'short']);

  it('reads a stream with a row, and appends to it alone, in a batch and with other streams', async () => {
    const account = `account-${nextUuid()}`;
    await writtenBefore(account, ['Linked', 'Synced'], true);
    expect((await store.readStream(account)).map(e => [e.streamId, e.type])).toEqual([
      [account, 'Linked'],
      [account, 'Synced'],
    ]);

    await store.append(account, [newEvent('Alone')], 1);
    // two appends in one turn go in one batch statement
    await Promise.all([
      store.append(account, [newEvent('Batched')], 2),
      store.append(`companion-${nextUuid()}`, [newEvent('C')], 'no_stream'),
    ]);
    await store.appendToStreams([
      { streamId: account, events: [newEvent('Together')], expected: 3 },
      { streamId: `other-${nextUuid()}`, events: [newEvent('O')], expected: 'no_stream' },
    ]);
    await store.append(account, [newEvent('Any')], 'any');

    expect((await store.readStream(account)).map(e => e.type)).toEqual([
      'Linked',
      'Synced',
      'Alone',
      'Batched',
      'Together',
      'Any',
    ]);
    expect((await store.readStream(account, { direction: 'backwards', maxCount: 3 })).map(e => e.revision)).toEqual([
      5, 4, 3,
    ]);
    expect(await keptUnder(account)).toEqual([
      ['0', 'long'],
      ['1', 'long'],
      ['2', 'short'],
      ['3', 'short'],
      ['4', 'short'],
      ['5', 'short'],
    ]);
    // its one row moves on: no second row under the short id
    const rows = await pool.query('select stream_id, revision::int from es_streams where stream_id in ($1, $2)', [
      account,
      storedStreamId(account),
    ]);
    expect(rows.rows).toEqual([{ stream_id: account, revision: 5 }]);
    await expect(store.append(account, [newEvent('Again')], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedRevision);
    await expect(store.append(account, [newEvent('Stale')], 1)).rejects.toMatchObject({ actual: 5 });
    expect(await store.streamIds('account-')).toContain(account);
  });

  it('refuses a new stream under the id of a short-lived one written before: an order paid then is not billed again', async () => {
    const order = `order-${nextUuid()}-0123456789abcdef0123456789abcdef`;
    await writtenBefore(order, ['OrderPaymentOpened'], false);
    for (const write of [
      () =>
        store.appendToStreams([
          { streamId: order, events: [newEvent('Open')], expected: 'no_stream', shortLived: true },
        ]),
      () =>
        Promise.all([
          store.appendToStreams([
            { streamId: order, events: [newEvent('Open')], expected: 'no_stream', shortLived: true },
          ]),
          store.append(`companion-${nextUuid()}`, [newEvent('C')], 'no_stream'),
        ]),
      () =>
        store.appendToStreams([
          { streamId: order, events: [newEvent('Open')], expected: 'no_stream', shortLived: true },
          { streamId: `other-${nextUuid()}`, events: [newEvent('O')], expected: 'no_stream' },
        ]),
    ])
      await expect(write()).rejects.toMatchObject({ actual: 0 });
    await store.appendToStreams([{ streamId: order, events: [newEvent('Reopen')], expected: 0, shortLived: true }]);
    expect(await keptUnder(order)).toEqual([
      ['0', 'long'],
      ['1', 'short'],
    ]);
    const all = await store.readAll(START, 10_000);
    expect(all.filter(e => e.streamId === order).map(e => e.type)).toEqual(['OrderPaymentOpened', 'Reopen']);
  });

  it('deletes a stream of both forms: readers pass by all its events, and appends are refused', async () => {
    const user = `user-${nextUuid()}`;
    await writtenBefore(user, ['Registered'], true);
    await store.append(user, [newEvent('Renamed')], 0);
    await store.deleteStream(user);
    expect(await store.readStream(user)).toEqual([]);
    expect((await store.readAll(START, 10_000)).filter(e => e.streamId === user)).toEqual([]);
    await expect(store.append(user, [newEvent('Late')], 1)).rejects.toBeInstanceOf(StreamDeleted);
    await expect(store.append(user, [newEvent('Late')], 'any')).rejects.toBeInstanceOf(StreamDeleted);
    expect(await store.streamIds('user-')).not.toContain(user);
    // deleted before the upgrade: the tombstone under the long id alone
    const gone = `user-${nextUuid()}`;
    await writtenBefore(gone, ['Registered'], false);
    await pool.query('insert into es_streams (stream_id, revision, deleted) values ($1, 0, true)', [gone]);
    expect(await store.readStream(gone)).toEqual([]);
    await expect(store.append(gone, [newEvent('Late')], 0)).rejects.toBeInstanceOf(StreamDeleted);
  });
});
