import { afterEach, describe, expect, it } from 'vitest';
import { eventLeafV2 } from '../../src/audit/ledger-format.ts';
import { pageLeaves, readLogPage } from '../../src/audit/log-leaves.ts';
import { leafHash } from '../../src/audit/merkle.ts';
import { query } from '../../src/db/pool.ts';
import { START } from '../../src/store/event-store.ts';
import { freshEventLog } from '../support/database.ts';
import { nextUuid } from '../support/ids.ts';
import { newEvent } from './event-store.contract.ts';

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/**
 * es_events keeps an event's metadata without the eventId its event_id column holds, and without a null causationId;
 * events written before keep theirs. Both read back as the same metadata, on every read path, and hash to the leaves they always had.
 */
describe('event metadata in es_events', () => {
  it('is kept without the eventId of its column, on every write path, and reads back whole', async () => {
    const { pool, store } = await freshEventLog(closing);
    const [a, b, c, d] = [newEvent('A'), newEvent('B'), newEvent('C'), newEvent('D')];
    // one caused by another: its causationId is kept; the others' (null) are not
    c.metadata.causationId = b.metadata.eventId;
    const one = `one-${nextUuid()}`;
    await store.append(one, [a], 'no_stream'); // in a batch
    await store.append(one, [b], 'any'); // alone
    await store.appendToStreams([
      { streamId: one, events: [c], expected: 1 },
      { streamId: `two-${nextUuid()}`, events: [d], expected: 'no_stream' },
    ]);
    const stored = await query<{ metadata: string }>(pool, 'RawMetadata', 'select metadata::text from es_events');
    expect(stored.rows).toHaveLength(4);
    for (const row of stored.rows) expect(JSON.parse(row.metadata)).not.toHaveProperty('eventId');
    const causes = stored.rows.map(row => (JSON.parse(row.metadata) as { causationId?: string }).causationId);
    expect(causes.filter(cause => cause !== undefined)).toEqual([b.metadata.eventId]);

    const appended = new Map([a, b, c, d].map(e => [e.metadata.eventId, e.metadata]));
    const read = [
      ...(await store.readStream(one)),
      ...(await store.readAll(START, 10)),
      ...(await store.readLog(START, 10)),
    ];
    expect(read).toHaveLength(3 + 4 + 4);
    for (const e of read) expect(JSON.stringify(e.metadata)).toBe(JSON.stringify(appended.get(e.metadata.eventId)));
  });

  it('reads an event written with its eventId in its metadata as it was, and hashes both forms as the same leaves', async () => {
    const { pool, store } = await freshEventLog(closing);
    const older = newEvent('Older', { n: 1 });
    // as an earlier version appended it: the metadata whole, eventId included
    await query(
      pool,
      'AppendOlderForm',
      `insert into es_events (stream_id, revision, event_id, type, version, data, metadata)
       values ($1, 0, $2, 'Older', 1, $3, $4)`,
      [`older-${nextUuid()}`, older.metadata.eventId, JSON.stringify(older.data), JSON.stringify(older.metadata)],
    );
    const newer = newEvent('Newer', { n: 2 });
    await store.append(`newer-${nextUuid()}`, [newer], 'no_stream');

    const log = await store.readLog(START, 10);
    expect(log.map(e => e.metadata)).toEqual([older.metadata, newer.metadata]);
    // the chain's page reader hashes what the event reader gives: the leaf commits to the eventId either way
    const page = await readLogPage({ store, pool }, START, 10);
    const { hashes } = pageLeaves(page.text);
    const pageHashes = log.map((_, i) => Buffer.from(hashes.subarray(32 * i, 32 * i + 32)).toString('hex'));
    expect(pageHashes).toEqual(log.map(e => leafHash(eventLeafV2(e))));
    expect(eventLeafV2(log[1]!)).toContain(`"eventId":"${newer.metadata.eventId}"`);
    expect(eventLeafV2(log[1]!)).toContain('"causationId":null');
  });
});
