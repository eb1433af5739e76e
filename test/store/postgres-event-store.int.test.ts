import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DuplicateEventId } from '../../src/store/event-store.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { freshPool } from '../support/database.ts';
import { eventStoreContract, newEvent } from './event-store.contract.ts';

eventStoreContract('postgres', async () => {
  const pool = await freshPool(40);
  const store = await PostgresEventStore.create(pool);
  return { store, close: async () => { await store.close(); await pool.end(); } };
});

describe('postgres event store specifics', () => {
  it('refuses an event id that was appended to another stream', async () => {
    const pool = await freshPool();
    const store = await PostgresEventStore.create(pool);
    const event = newEvent('A');
    await store.append(`one-${randomUUID()}`, [event], 'no_stream');
    await expect(store.append(`two-${randomUUID()}`, [event], 'no_stream')).rejects.toBeInstanceOf(DuplicateEventId);
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
       values ('late', 0, '${randomUUID()}', 'Late', 1, '{}', '{}')`,
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
