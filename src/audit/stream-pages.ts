import { START, type EventStore, type RecordedEvent } from '../store/event-store.ts';

const pageSize = 1000;

/** A stream's events in order, a page at a time: a long stream (a busy merchant's ledger) is never held whole. */
export async function* streamEvents(store: EventStore, streamId: string): AsyncGenerator<RecordedEvent> {
  for (let from = 0; ; ) {
    const page = await store.readStream(streamId, { fromRevision: from, maxCount: pageSize });
    yield* page;
    if (page.length < pageSize) return;
    from = page[page.length - 1]!.revision + 1;
  }
}

/** Every event of the log in its order, a page at a time: a million events are never held at once. */
export async function* logEvents(store: EventStore): AsyncGenerator<RecordedEvent> {
  for (let position = START; ; ) {
    const page = await store.readAll(position, pageSize);
    yield* page;
    if (page.length < pageSize) return;
    position = page[page.length - 1]!.position;
  }
}
