import { query, type Queryable } from '../db/pool.ts';
import { comparePositions, START, type EventStore, type Position, type RecordedEvent } from '../store/event-store.ts';
import { auditView, type AuditView } from './event-view.ts';

const pageSize = 1000;

/** A stream's events in order, a page at a time: a long stream (a busy merchant's ledger) is never held whole. */
export async function* streamEvents(store: EventStore, streamId: string): AsyncGenerator<RecordedEvent> {
  for (let from = 0; ;) {
    const page = await store.readStream(streamId, { fromRevision: from, maxCount: pageSize });
    yield* page;
    if (page.length < pageSize) return;
    from = page[page.length - 1]!.revision + 1;
  }
}

/**
 * The whole log in (after, last], for a subscriber handed `events` (which pass deleted streams by) up to `last`: when
 * streams deleted since their events were appended may have events in the range, the range is read again with them, so
 * the live chain covers what `verify-log` reads. On PostgreSQL most ranges have none, and cost one probe of the
 * tombstones; EventStoreDB has no such probe, and every range is read again.
 */
export async function wholeLogUpTo(
  deps: { store: EventStore; pool: Queryable },
  after: Position,
  last: Position,
  events: RecordedEvent[],
): Promise<RecordedEvent[]> {
  const { store } = deps;
  if (store.kind === 'postgres' && !(await deletedInRange(deps.pool, after, last))) return events;
  const all: RecordedEvent[] = [];
  for (let position = after; ;) {
    const page = await store.readLog(position, Math.max(pageSize, events.length + 100));
    for (const e of page) {
      if (comparePositions(e.position, last) > 0) return all;
      all.push(e);
    }
    if (page.length === 0) return all;
    position = page[page.length - 1]!.position;
  }
}

/** Whether a deleted stream (a tombstone in es_streams) has events in (after, last] of the PostgreSQL log. */
async function deletedInRange(db: Queryable, after: Position, last: Position): Promise<boolean> {
  const r = await query<{ found: boolean }>(
    db,
    'DeletedStreamEventsInRange',
    `select exists (
       select 1 from es_streams s join es_events e on e.stream_id = s.stream_id
        where s.deleted and (e.transaction_id, e.position) > ($1::text::xid8, $2::bigint) and (e.transaction_id, e.position) <= ($3::text::xid8, $4::bigint)
     ) as found`,
    [String(after.commit < 0n ? 0n : after.commit), String(after.prepare), String(last.commit), String(last.prepare)],
  );
  return r.rows[0]!.found;
}

/**
 * Every event of the log in its order (deleted streams' included) after `after` (from its start unless given), a page
 * at a time: a million events are never held at once.
 */
export async function* logEvents(store: EventStore, after: Position = START): AsyncGenerator<RecordedEvent> {
  for (let position = after; ;) {
    const page = await store.readLog(position, pageSize);
    yield* page;
    if (page.length < pageSize) return;
    position = page[page.length - 1]!.position;
  }
}

/**
 * One page of a stream as auditors read it: up to `limit` events from `fromRevision`, and where the next page starts
 * (null at the end). A stream without events is null (a page past its end is an empty page).
 */
export async function auditPage(
  store: EventStore,
  streamId: string,
  fromRevision: number,
  limit: number,
): Promise<{ events: AuditView[]; nextRevision: number | null } | null> {
  const page = await store.readStream(streamId, { fromRevision, maxCount: limit + 1 });
  if (page.length === 0 && (fromRevision === 0 || (await store.readStream(streamId, { maxCount: 1 })).length === 0))
    return null;
  return {
    events: page.slice(0, limit).map(auditView),
    nextRevision: page.length > limit ? page[limit]!.revision : null,
  };
}
