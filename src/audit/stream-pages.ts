import { START, type EventStore, type Position, type RecordedEvent } from '../store/event-store.ts';
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
