import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { eventLeafV2 } from '../../src/audit/ledger-format.ts';
import { pageLeaves, readLogPage } from '../../src/audit/log-leaves.ts';
import { foldInDatabase } from '../../src/audit/ledger-sql-fold.ts';
import { leafHash } from '../../src/audit/merkle.ts';
import { migrate, readModelMigration } from '../../src/db/migrations.ts';
import { query } from '../../src/db/pool.ts';
import { gatewayPeriodsProjection } from '../../src/projections/gateway-periods.ts';
import { START, type EventMetadata, type NewEvent, type Position } from '../../src/store/event-store.ts';
import { storedMetadata } from '../../src/store/postgres-event-metadata.ts';
import type { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { freshEventLog } from '../support/database.ts';
import { nextUuid } from '../support/ids.ts';
import { anyMetadata, metadataFromJson } from './event-metadata.arbitrary.ts';
import { newEvent } from './event-store.contract.ts';
import { shortIds } from '../../src/store/postgres-stream-ids.ts';

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

type Path = 'batch' | 'alone' | 'atomic';

/**
 * Appends `events` to new streams by one write path: in a batch with another append (appendBatchSql), alone
 * (appendSql), or to two streams at once (es_append_streams).
 */
async function appendBy(store: PostgresEventStore, path: Path, events: NewEvent[]): Promise<void> {
  const half = Math.ceil(events.length / 2);
  const [first, second] = [events.slice(0, half), events.slice(half)];
  const [one, two] = [`one-${nextUuid()}`, `two-${nextUuid()}`];
  if (path === 'alone') await store.append(one, events, 'any');
  else if (path === 'batch')
    await Promise.all([store.append(one, first, 'no_stream'), store.append(two, second, 'no_stream')]);
  else
    await store.appendToStreams(
      [
        { streamId: one, events: first, expected: 'no_stream' as const },
        { streamId: two, events: second, expected: 'no_stream' as const },
      ].filter(w => w.events.length > 0),
    );
}

type RawRow = {
  event_id: string;
  metadata: string | null;
  correlation_id: string | null;
  causation_id: string | null;
  actor: string | null;
  occurred_at: string | null;
};

const rawRows = async (store: { pool: import('pg').Pool }, ids: string[]) =>
  (
    await query<RawRow>(
      store.pool,
      'RawMetadata',
      `select event_id::text, metadata::text, correlation_id::text, causation_id, actor, occurred_at::text
       from es_events where event_id = any($1::uuid[])`,
      [ids],
    )
  ).rows;

/** Every reader's metadata of these events after `after`: readAll, readLog, readStream, and the chain's page leaves. */
async function readersAgree(
  { pool, store }: { pool: import('pg').Pool; store: PostgresEventStore },
  after: Position,
  expected: Map<string, EventMetadata>,
): Promise<void> {
  const log = await store.readLog(after, 1000);
  const all = await store.readAll(after, 1000);
  const streams = await Promise.all([...new Set(log.map(e => e.streamId))].map(s => store.readStream(s)));
  const read = [...log, ...all, ...streams.flat()];
  expect(read).toHaveLength(3 * expected.size);
  for (const e of read) {
    // the same keys in the same order, the same values
    expect(JSON.stringify(e.metadata)).toBe(JSON.stringify(expected.get(e.metadata.eventId)));
    expect(e.metadata).toStrictEqual(expected.get(e.metadata.eventId));
  }
  // the chain hashes each event's page entry to the leaf of the event as it reads it: the leaf it always had (the page
  // reader dates each event, and needs an occurredAt that is a date)
  if ([...expected.values()].some(m => Number.isNaN(new Date(m.occurredAt).getTime()))) return;
  const { hashes } = pageLeaves((await readLogPage({ store, pool }, after, 1000)).text);
  log.forEach((e, i) => {
    const leaf = leafHash(eventLeafV2({ ...e, metadata: expected.get(e.metadata.eventId)! }));
    expect(Buffer.from(hashes.subarray(32 * i, 32 * i + 32)).toString('hex')).toBe(leaf);
  });
}

const paths: Path[] = ['batch', 'alone', 'atomic'];

/**
 * es_events keeps an event's metadata in typed columns when they give it back exactly, else as JSON without the
 * eventId its event_id column holds and without a null causationId; events written before keep theirs. Every form
 * reads back as the same metadata, on every read path, and hashes to the leaves it always had.
 */
describe('event metadata in es_events', () => {
  it.each(paths)('is kept in typed columns, the JSON null, when appended %s, and reads back whole', async path => {
    const { pool, store } = await freshEventLog(closing);
    const events = [newEvent('A'), newEvent('B'), newEvent('C'), newEvent('D')];
    for (const [i, e] of events.entries()) {
      e.metadata.correlationId = '9b2f1c3e-8a7d-4e6f-b5c4-d3e2f1a0b9c8';
      e.metadata.actor = 'user:5f0c6a0e-1d2b-4c3a-9e8f-7a6b5c4d3e2f';
      e.metadata.occurredAt = `2026-11-29T14:00:1${i}.78${i}Z`;
    }
    events[2]!.metadata.causationId = 'payment-1@3';
    await appendBy(store, path, events);

    const rows = await rawRows(
      { pool },
      events.map(e => e.metadata.eventId),
    );
    expect(rows).toHaveLength(4);
    for (const row of rows) {
      const m = events.find(e => e.metadata.eventId === row.event_id)!.metadata;
      expect(row).toEqual({
        event_id: m.eventId,
        metadata: null,
        correlation_id: m.correlationId,
        // their uuids kept short (postgres-stream-ids.ts)
        causation_id: m.causationId === null ? null : shortIds(m.causationId),
        actor: shortIds(m.actor),
        occurred_at: expect.any(String) as string,
      });
      expect(new Date(row.occurred_at!).toISOString()).toBe(m.occurredAt);
    }
    await readersAgree({ pool, store }, START, new Map(events.map(e => [e.metadata.eventId, e.metadata])));
  });

  it.each(paths)('keeps the JSON of metadata the columns cannot give back exactly, appended %s', async path => {
    const { pool, store } = await freshEventLog(closing);
    const odd: Partial<Record<keyof EventMetadata | 'tenant', unknown>>[] = [
      { correlationId: '9B2F1C3E-8A7D-4E6F-B5C4-D3E2F1A0B9C8' },
      { occurredAt: '2026-11-29T14:00:13Z' },
      { occurredAt: '2026-11-29T21:00:13.781+07:00' },
      { actor: 'user:\u0000' },
      { causationId: 'payment\ud800@1' },
      { tenant: 't-1' },
    ];
    const events = odd.map(o => {
      const e = newEvent('Odd');
      e.metadata = { ...e.metadata, ...o } as EventMetadata;
      return e;
    });
    await appendBy(store, path, events);

    const rows = await rawRows(
      { pool },
      events.map(e => e.metadata.eventId),
    );
    expect(rows).toHaveLength(events.length);
    for (const row of rows) {
      const m = events.find(e => e.metadata.eventId === row.event_id)!.metadata;
      expect(row).toEqual({
        event_id: m.eventId,
        metadata: JSON.stringify(storedMetadata(m)),
        correlation_id: null,
        causation_id: null,
        actor: null,
        occurred_at: null,
      });
    }
    await readersAgree(
      { pool, store },
      START,
      new Map(events.map(e => [e.metadata.eventId, metadataFromJson(e.metadata)])),
    );
  });

  it('reads back any metadata as its JSON form reads back, whichever form it is kept in', async () => {
    const { pool, store } = await freshEventLog(closing);
    await fc.assert(
      fc.asyncProperty(
        fc.array(anyMetadata, { minLength: 1, maxLength: 6 }),
        fc.constantFrom(...paths),
        async (ms, path) => {
          // ids of their own: a shrunk run appends the same metadata again
          const events = ms.map(m => ({ ...newEvent('Any'), metadata: { ...m, eventId: nextUuid() } }));
          const after = await store.headPosition();
          await appendBy(store, path, events);
          await readersAgree(
            { pool, store },
            after,
            new Map(events.map(e => [e.metadata.eventId, metadataFromJson(e.metadata)])),
          );
        },
      ),
      { numRuns: 60 },
    );
  });

  it("dates a ledger entry without a time of its own by its metadata's occurredAt in the database's fold, of either form", async () => {
    const { pool, store } = await freshEventLog(closing);
    await migrate(pool, [readModelMigration(gatewayPeriodsProjection)]);
    const postings = (amount: number) => ({
      postings: [
        { account: 'cash', amount },
        { account: 'revenue', amount: -amount },
      ],
    });
    const [typed, json, later] = [
      newEvent('Entry', postings(100)),
      newEvent('Entry', postings(20)),
      newEvent('Entry', postings(3)),
    ];
    typed.metadata.occurredAt = '2026-11-10T00:00:00.000Z';
    json.metadata = { ...json.metadata, occurredAt: '2026-11-20T00:00:00Z' }; // kept as JSON (no milliseconds)
    later.metadata.occurredAt = '2026-12-10T00:00:00.000Z';
    await store.append('gateway-m1', [typed, json, later], 'no_stream');

    const bounds = { startsAt: new Date('2026-11-01T00:00:00.000Z'), endsAt: new Date('2026-12-01T00:00:00.000Z') };
    const { folded } = await foldInDatabase(pool, ['gateway-m1'], bounds, null);
    expect(folded.get('gateway-m1')).toMatchObject({
      open: { cash: 0 },
      close: { cash: 120, revenue: -120 },
      events: 2,
    });
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
