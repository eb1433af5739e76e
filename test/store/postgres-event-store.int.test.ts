import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { DuplicateEventId, StreamDeleted, WrongExpectedRevision } from '../../src/store/event-store.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { appendBatchParams } from '../../src/store/postgres-append-batch.ts';
import { lockStream } from '../../src/store/postgres-schema.ts';
import { storedStreamId } from '../../src/store/postgres-stream-ids.ts';
import { createPool } from '../../src/db/pool.ts';
import { freshDatabaseUrl, freshPool } from '../support/database.ts';
import { eventStoreContract, newEvent } from './event-store.contract.ts';
import { eventLogContract } from './event-log.contract.ts';
import { nextUuid } from '../support/ids.ts';

async function openPostgres() {
  const pool = await freshPool(40);
  const store = await PostgresEventStore.create(pool);
  return {
    store,
    close: async () => {
      await store.close();
      await pool.end();
    },
  };
}

eventStoreContract('postgres', openPostgres);
eventLogContract('postgres', openPostgres);

describe('postgres event store specifics', () => {
  it('refuses an event id that was appended to another stream', async () => {
    const pool = await freshPool();
    const store = await PostgresEventStore.create(pool);
    const event = newEvent('A');
    await store.append(`one-${nextUuid()}`, [event], 'no_stream');
    await expect(store.append(`two-${nextUuid()}`, [event], 'no_stream')).rejects.toBeInstanceOf(DuplicateEventId);
    await store.close();
    await pool.end();
  });

  it('gives each of many concurrent appends (written in batches) its own outcome, whatever the others do', async () => {
    const pool = await freshPool(20);
    const store = await PostgresEventStore.create(pool);
    // each append: to a fresh stream, at the right or a wrong revision of an existing one, to a deleted stream,
    // or reusing an event id from elsewhere; only the first kind and the right revision may write
    const kind = fc.constantFrom('fresh', 'right', 'wrong', 'deleted', 'duplicate-id');
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(kind, fc.integer({ min: 1, max: 3 })), { minLength: 2, maxLength: 40 }),
        async appends => {
          const taken = newEvent('Taken');
          await store.append(`taken-${nextUuid()}`, [taken], 'no_stream');
          const prepared = await Promise.all(
            appends.map(async ([k, n]) => {
              const streamId = `batch-${k}-${nextUuid()}`;
              if (k === 'right' || k === 'wrong') await store.append(streamId, [newEvent('Before')], 'no_stream');
              if (k === 'deleted') {
                await store.append(streamId, [newEvent('Before')], 'no_stream');
                await store.deleteStream(streamId);
              }
              const events = Array.from({ length: n }, (_, i) =>
                k === 'duplicate-id' && i === 0
                  ? { ...newEvent('Again'), metadata: taken.metadata }
                  : newEvent(`E${i}`),
              );
              const expected = k === 'fresh' || k === 'duplicate-id' ? ('no_stream' as const) : k === 'wrong' ? 5 : 0;
              return { k, n, streamId, events, expected };
            }),
          );
          const outcomes = await Promise.allSettled(prepared.map(a => store.append(a.streamId, a.events, a.expected)));
          for (const [i, a] of prepared.entries()) {
            const outcome = outcomes[i]!;
            const read = await store.readStream(a.streamId);
            if (a.k === 'fresh' || a.k === 'right') {
              const first = a.k === 'fresh' ? 0 : 1;
              expect(outcome).toMatchObject({ status: 'fulfilled', value: { nextRevision: first + a.n - 1 } });
              expect(read.map(e => e.metadata.eventId)).toEqual([
                ...(a.k === 'right' ? [read[0]!.metadata.eventId] : []),
                ...a.events.map(e => e.metadata.eventId),
              ]);
            } else {
              expect(outcome.status).toBe('rejected');
              const reason = (outcome as PromiseRejectedResult).reason;
              expect(reason).toBeInstanceOf(
                a.k === 'wrong' ? WrongExpectedRevision : a.k === 'deleted' ? StreamDeleted : DuplicateEventId,
              );
              expect(read.length).toBe(a.k === 'wrong' ? 1 : 0);
            }
          }
        },
      ),
      { numRuns: 15 },
    );
    await store.close();
    await pool.end();
  });

  it('writes each of many concurrent appends to several streams (in batches) all or nothing, whatever the others do', async () => {
    const pool = await freshPool(20);
    const store = await PostgresEventStore.create(pool);
    const kind = fc.constantFrom('fresh', 'right', 'wrong', 'deleted', 'guard', 'moved-guard');
    const valid = (k: string) => k === 'fresh' || k === 'right' || k === 'guard';
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(kind, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 25 }),
        async groups => {
          const prepared = await Promise.all(
            groups.map(kinds =>
              Promise.all(
                kinds.map(async k => {
                  const streamId = `group-${k}-${nextUuid()}`;
                  if (k !== 'fresh') await store.append(streamId, [newEvent('Before')], 'no_stream');
                  if (k === 'moved-guard') await store.append(streamId, [newEvent('Moved')], 0);
                  if (k === 'deleted') await store.deleteStream(streamId);
                  const guard = k === 'guard' || k === 'moved-guard';
                  return {
                    k,
                    streamId,
                    events: guard ? [] : [newEvent('New')],
                    expected: k === 'fresh' ? ('no_stream' as const) : k === 'wrong' ? 3 : 0,
                  };
                }),
              ),
            ),
          );
          const outcomes = await Promise.allSettled(prepared.map(writes => store.appendToStreams(writes)));
          for (const [g, writes] of prepared.entries()) {
            const outcome = outcomes[g]!;
            const firstInvalid = writes.find(w => !valid(w.k));
            if (!firstInvalid) expect(outcome.status).toBe('fulfilled');
            else {
              expect(outcome.status).toBe('rejected');
              const reason = (outcome as PromiseRejectedResult).reason;
              expect(reason).toBeInstanceOf(firstInvalid.k === 'deleted' ? StreamDeleted : WrongExpectedRevision);
              expect(reason.streamId).toBe(firstInvalid.streamId);
            }
            for (const w of writes.filter(w => w.events.length > 0)) {
              const types = (await store.readStream(w.streamId)).map(e => e.type);
              expect(types.includes('New')).toBe(!firstInvalid);
            }
          }
        },
      ),
      { numRuns: 15 },
    );
    await store.close();
    await pool.end();
  });

  it('writes all of an append to several streams or none of it, and takes its retry as done', async () => {
    const pool = await freshPool();
    const store = await PostgresEventStore.create(pool);
    const a = `a-${nextUuid()}`;
    const b = `b-${nextUuid()}`;
    const gone = `gone-${nextUuid()}`;
    await store.append(b, [newEvent('B')], 'no_stream');
    await store.append(gone, [newEvent('G')], 'no_stream');
    await store.deleteStream(gone);
    // the last write is refused: the first one's events are not written either
    await expect(
      store.appendToStreams([
        { streamId: a, events: [newEvent('A')], expected: 'no_stream' },
        { streamId: b, events: [newEvent('B2')], expected: 5 },
      ]),
    ).rejects.toMatchObject({ streamId: b, actual: 0 });
    expect(await store.readStream(a)).toEqual([]);
    await expect(
      store.appendToStreams([
        { streamId: a, events: [newEvent('A')], expected: 'no_stream' },
        { streamId: gone, events: [], expected: 0 },
      ]),
    ).rejects.toBeInstanceOf(StreamDeleted);
    expect(await store.readStream(a)).toEqual([]);
    const writes = [
      { streamId: a, events: [newEvent('A')], expected: 'no_stream' as const },
      { streamId: b, events: [newEvent('B2')], expected: 0 },
    ];
    const first = await store.appendToStreams(writes);
    const again = await store.appendToStreams(writes);
    expect(again.map(r => r.nextRevision)).toEqual(first.map(r => r.nextRevision));
    expect(await store.readStream(b)).toHaveLength(2);
    await store.close();
    await pool.end();
  });

  it('delivers to a live subscriber the events another store (another process) appends, and its own', async () => {
    const url = await freshDatabaseUrl();
    const [poolA, poolB] = [createPool(url), createPool(url)];
    const [storeA, storeB] = [await PostgresEventStore.create(poolA), await PostgresEventStore.create(poolB)];
    const received: string[] = [];
    let arrived: () => void = () => undefined;
    const subscription = storeB.subscribe(
      await storeB.headPosition(),
      async events => {
        received.push(...events.map(e => e.type));
        arrived();
      },
      () => undefined,
    );
    const receivedAll = (n: number) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`received ${received.join(', ')}`)), 5000);
        arrived = () => {
          if (received.length < n) return;
          clearTimeout(timer);
          resolve();
        };
        arrived();
      });
    await storeA.append(`a-${nextUuid()}`, [newEvent('FromA')], 'no_stream');
    await receivedAll(1);
    await storeB.append(`b-${nextUuid()}`, [newEvent('FromB')], 'no_stream');
    await storeA.append(`a-${nextUuid()}`, [newEvent('FromAAgain')], 'no_stream');
    await receivedAll(3);
    expect(received.sort()).toEqual(['FromA', 'FromAAgain', 'FromB']);
    await subscription.close();
    await Promise.all([storeA.close(), storeB.close()]);
    await Promise.all([poolA.end(), poolB.end()]);
  });

  it('delivers to a live subscriber an event held back by an older open transaction once that ends, though its end wakes nobody', async () => {
    const pool = await freshPool();
    const store = await PostgresEventStore.create(pool);
    const seen: string[] = [];
    const subscription = store.subscribe(
      await store.headPosition(),
      async events => void seen.push(...events.map(e => e.type)),
      () => undefined,
    );
    const older = await pool.connect();
    await older.query('begin');
    await older.query('select pg_current_xact_id()'); // holds a transaction id: what commits after it is not final yet
    await store.append(`held-${nextUuid()}`, [newEvent('Held')], 'no_stream');
    await new Promise(resolve => setTimeout(resolve, 150));
    expect(seen).toEqual([]);
    await older.query('commit'); // no event, no NOTIFY
    older.release();
    await vi.waitFor(() => expect(seen).toEqual(['Held']), { timeout: 3000, interval: 10 });
    await subscription.close();
    await store.close();
    await pool.end();
  });

  it('moves a store made with jsonb event data to json text, keeping every event as it was', async () => {
    const pool = await freshPool();
    await pool.query(`
      create table es_streams (stream_id text primary key, revision bigint not null, deleted boolean not null default false);
      create table es_events (
        position bigint generated always as identity, transaction_id xid8 not null default pg_current_xact_id(),
        stream_id text not null, revision bigint not null, event_id uuid not null, type text not null, version int not null,
        data jsonb not null, metadata jsonb not null,
        constraint es_events_stream_revision unique (stream_id, revision), constraint es_events_event_id unique (event_id));
      insert into es_streams values ('old-1', 0);`);
    const before = newEvent('Old');
    await pool.query(
      `insert into es_events (stream_id, revision, event_id, type, version, data, metadata) values ('old-1', 0, $1, 'Old', 1, $2, $3)`,
      [before.metadata.eventId, JSON.stringify({ amount: 1_000, note: 'café "x"' }), JSON.stringify(before.metadata)],
    );
    const store = await PostgresEventStore.create(pool);
    const types = await pool.query(
      `select data_type from information_schema.columns where table_name = 'es_events' and column_name in ('data', 'metadata')`,
    );
    expect(types.rows.map(r => r.data_type)).toEqual(['json', 'json']);
    const [read] = await store.readStream('old-1');
    expect(read).toMatchObject({
      type: 'Old',
      revision: 0,
      data: { amount: 1_000, note: 'café "x"' },
      metadata: before.metadata,
    });
    await store.append('old-1', [newEvent('New')], 0);
    expect((await store.readStream('old-1')).map(e => e.type)).toEqual(['Old', 'New']);
    await store.close();
    await pool.end();
  });

  it('takes the locks of the streams an append writes before its transaction has an id, on every write path', async () => {
    // Readers of "all" order by transaction id: an append that got its id and then waited for a stream another append
    // was writing would put its later revisions first. Holding one stream's lock, each kind of append must be seen
    // waiting for it with no transaction id yet.
    const pool = await freshPool();
    const store = await PostgresEventStore.create(pool);
    const waitingFor = async (streamId: string, append: () => Promise<unknown>) => {
      const holder = await pool.connect();
      await holder.query('begin');
      // an append locks the stream by the id it is kept under
      await holder.query(`select ${lockStream('$1::text')}`, [storedStreamId(streamId)]);
      const appended = append();
      let waiting: { xid: string | null } | undefined;
      for (let i = 0; i < 300 && !waiting; i++) {
        const r = await pool.query<{ xid: string | null }>(
          `select backend_xid::text as xid from pg_stat_activity
           where datname = current_database() and wait_event_type = 'Lock' and wait_event = 'advisory'`,
        );
        waiting = r.rows[0];
        if (!waiting) await new Promise(resolve => setTimeout(resolve, 10));
      }
      await holder.query('commit');
      holder.release();
      await appended;
      return waiting;
    };
    const existing = async () => {
      const streamId = `locked-${nextUuid()}`;
      await store.append(streamId, [newEvent('First')], 'no_stream');
      return streamId;
    };
    // a batch of one append is written alone: a second append in the same turn makes the batch statement write both
    const withCompanion = (append: () => Promise<unknown>) => () =>
      Promise.all([append(), store.append(`companion-${nextUuid()}`, [newEvent('C')], 'no_stream')]);
    const fresh = `locked-${nextUuid()}`;
    const atExact = await existing();
    const atExactAlone = await existing();
    const asAny = await existing();
    const asExisting = await existing();
    const inGroup = await existing();
    const inFunction = await existing();
    const other = `locked-${nextUuid()}`;
    const functionParams = appendBatchParams([
      { writes: [{ streamId: inFunction, events: [newEvent('F')], expected: 0 }] },
    ]);
    functionParams.splice(3, 1); // es_append_streams takes no group numbers
    const paths: [string, string, () => Promise<unknown>][] = [
      ['batch, no stream', fresh, withCompanion(() => store.append(fresh, [newEvent('N')], 'no_stream'))],
      ['batch, exact revision', atExact, withCompanion(() => store.append(atExact, [newEvent('E')], 0))],
      ['alone, exact revision', atExactAlone, () => store.append(atExactAlone, [newEvent('E')], 0)],
      ['alone, any', asAny, () => store.append(asAny, [newEvent('A')], 'any')],
      ['alone, stream exists', asExisting, () => store.append(asExisting, [newEvent('S')], 'stream_exists')],
      [
        'batch, several streams',
        inGroup,
        withCompanion(() =>
          store.appendToStreams([
            { streamId: other, events: [newEvent('O')], expected: 'no_stream' },
            { streamId: inGroup, events: [newEvent('G')], expected: 0 },
          ]),
        ),
      ],
      [
        'es_append_streams',
        inFunction,
        () =>
          pool.query(
            'select * from es_append_streams($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)',
            functionParams,
          ),
      ],
    ];
    for (const [path, streamId, append] of paths)
      expect({ path, waiting: await waitingFor(streamId, append) }).toEqual({ path, waiting: { xid: null } });
    expect((await store.readStream(inGroup)).map(e => e.type)).toEqual(['First', 'G']);
    await store.close();
    await pool.end();
  });

  it('does not let a reader of all skip an event that commits late with a lower position', async () => {
    const pool = await freshPool();
    const store = await PostgresEventStore.create(pool);
    const head = await store.headPosition();
    const slow = await pool.connect();
    // the slow transaction takes its position first, then a fast one commits with a higher position
    await slow.query('begin');
    await slow.query(
      `insert into es_streams values ('late', 0);
       insert into es_events (stream_id, revision, event_id, type, version, data, metadata)
       values ('late', 0, '${nextUuid()}', 'Late', 1, '{}', '{}')`,
    );
    await store.append('early', [newEvent('Early')], 'no_stream');
    const beforeCommit = await store.readAll(head, 100);
    expect(beforeCommit.map(e => e.type)).toEqual([]);
    await slow.query('commit');
    slow.release();
    const afterCommit = await store.readAll(head, 100);
    expect(afterCommit.map(e => e.type)).toEqual(['Late', 'Early']);
    await store.close();
    await pool.end();
  });
});
