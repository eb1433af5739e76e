import { describe, expect, it } from 'vitest';
import { DuplicateEventId, START, StreamDeleted, type RecordedEvent } from '../../src/store/event-store.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { query } from '../../src/db/pool.ts';
import { freshPool } from '../support/database.ts';
import { nextUuid } from '../support/ids.ts';
import { newEvent } from './event-store.contract.ts';
import { storedStreamId } from '../../src/store/postgres-stream-ids.ts';

describe('a deleted stream on PostgreSQL (a tombstone: the log is append-only)', () => {
  it('keeps its events in es_events, and every reader of the store passes them by as if they were gone', async () => {
    const pool = await freshPool();
    const store = await PostgresEventStore.create(pool);
    const kept = `kept-${nextUuid()}`;
    const gone = `gone-${nextUuid()}`;
    const keptAt = (await store.append(kept, [newEvent('Kept')], 'no_stream')).position;
    const secret = [newEvent('Secret', { name: 'Budi' }), newEvent('Secret', { name: 'Budi' })];
    await store.append(gone, secret, 'no_stream');
    await store.deleteStream(gone);

    const stored = await query<{ n: number }>(
      pool,
      'CountGone',
      'select count(*)::int as n from es_events where stream_id = $1',
      [storedStreamId(gone)],
    );
    expect(stored.rows[0]!.n).toBe(2);
    expect(await store.readStream(gone)).toEqual([]);
    expect(await store.readStream(gone, { direction: 'backwards' })).toEqual([]);
    expect((await store.readAll(START, 100)).map(e => e.streamId)).toEqual([kept]);
    expect(await store.headPosition()).toEqual(keptAt);
    expect((await store.readLog(START, 100)).map(e => e.streamId)).toEqual([kept, gone, gone]);

    // a subscriber that had not seen them yet never gets them
    const seen: RecordedEvent[] = [];
    const sub = store.subscribe(
      START,
      async batch => void seen.push(...batch),
      () => undefined,
    );
    const later = `later-${nextUuid()}`;
    await store.append(later, [newEvent('Later')], 'no_stream');
    for (let i = 0; i < 200 && !seen.some(e => e.streamId === later); i++) await new Promise(r => setTimeout(r, 25));
    await sub.close();
    expect(seen.map(e => e.streamId)).toEqual([kept, later]);

    // a retry of its append is refused as before; its event ids stay taken
    await expect(store.append(gone, secret, 'no_stream')).rejects.toBeInstanceOf(StreamDeleted);
    await expect(
      store.appendToStreams([{ streamId: gone, events: secret, expected: 'no_stream' }]),
    ).rejects.toBeInstanceOf(StreamDeleted);
    await expect(store.append(`other-${nextUuid()}`, [secret[0]!], 'no_stream')).rejects.toBeInstanceOf(
      DuplicateEventId,
    );
    await store.deleteStream(gone); // again: nothing to do
    await store.close();
    await pool.end();
  });
});
