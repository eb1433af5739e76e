import {
  ANY,
  BACKWARDS,
  DbClient,
  FORWARDS,
  FROM_END,
  FROM_START,
  NO_STREAM,
  STREAM_EXISTS,
  StreamDeletedError,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type DbPosition,
  type DbRecordedEvent,
  type ReadRevision,
} from './eventstoredb-client.ts';
import {
  START,
  StreamDeleted,
  WrongExpectedRevision,
  comparePositions,
  expectationMet,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type Position,
  type ReadStreamOptions,
  type RecordedEvent,
  type Subscription,
  type StreamWrite,
  type SubscriptionHandler,
} from './event-store.ts';

/** The most events handed to a subscription handler at once (and buffered by the client meanwhile). */
const SUBSCRIPTION_BATCH = 500;
/** The most streams whose deletion is checked at the same time. */
const CHECK_CONCURRENCY = 16;

/** The custom key of a stream's metadata that marks it deleted by this service (scavenging knows nothing of it). */
const DELETED_KEY = 'deletedByService';

/** The event a deletion appends to the stream (a system event: no reader of "all" shows it), so that its revision moves on. */
const DELETION_MARKER = '$deletedByService';

const isStart = (p: Position) => p.commit < 0n;

/** Events the database writes for itself ($metadata, $streamDeleted, $statsCollected, links, ...). */
const isSystemEvent = (e: { type: string; streamId: string }) => e.type.startsWith('$') || e.streamId.startsWith('$');

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function toDbExpected(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  // The port's revisions start at 0; "before the first event" is no_stream.
  return expected < 0 ? NO_STREAM : BigInt(expected);
}

/** Our event as the database stores it: the event id is the metadata's, the schema version rides in the metadata. */
function toEventData(event: NewEvent) {
  return jsonEvent({
    id: event.metadata.eventId,
    type: event.type,
    data: event.data,
    metadata: { ...event.metadata, schemaVersion: event.version },
  });
}

/** Our recorded event, or null for an event this service did not write (not a JSON object with our metadata). */
function toRecorded(event: DbRecordedEvent, position: Position): RecordedEvent | null {
  if (!event.isJson || !isPlainObject(event.data) || !isPlainObject(event.metadata)) return null;
  const { schemaVersion, ...metadata } = event.metadata;
  if (typeof metadata.eventId !== 'string') return null;
  return {
    streamId: event.streamId,
    revision: Number(event.revision),
    position,
    type: event.type,
    version: typeof schemaVersion === 'number' ? schemaVersion : 1,
    data: event.data,
    metadata: metadata as EventMetadata,
  };
}

const positionOf = (p: DbPosition): Position => ({ commit: p.commit, prepare: p.prepare });

/**
 * Every item of a read. Reads are always drained to their end: leaving a `for await` early destroys the
 * client's stream but leaves its gRPC call open and unread, and client.dispose() then waits for it forever.
 */
async function drain<T>(read: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of read) items.push(item);
  return items;
}

/**
 * The event-store port on EventStoreDB (and KurrentDB) through `@eventstore/db-client`.
 *
 * Where EventStoreDB differs from the port, and what this adapter does about it:
 * - Idempotent append is the server's: a retry with the same event ids at the same expected revision succeeds
 *   without writing (guaranteed for an exact revision or no_stream; best effort, from a cache of recent event
 *   ids, for any and stream_exists). The server never refuses an event id used in another stream, so this
 *   adapter never throws DuplicateEventId. A retry of an append written before its stream was deleted succeeds too
 *   (PostgreSQL refuses it).
 * - Deleting a stream deletes nothing in the database (docs/decisions.md, "The chain on EventStoreDB"): both of its
 *   deletes let a scavenge remove the events, which the ledger chain covers. The adapter marks the stream deleted in
 *   its metadata (a custom key) and appends a system event to it, so that an append at a revision read before the
 *   deletion is refused; readStream checks the mark (one more read, at the same time), appends at any or
 *   stream_exists check it first (one more read; an append racing the deletion may still land after it), and readAll
 *   and a catching-up subscription skip the events of marked (or, by an earlier version, tombstoned) streams: one
 *   check per stream not yet known to be deleted, per page or batch (deletions are permanent, so they are
 *   remembered); a live subscription needs no check. readLog skips nothing but system events.
 * - The position an append answers is that of its last event as $all shows it (read back from the stream:
 *   one more read per append), so that waiting for a projection to reach it works.
 * - $all has one writer, so no event can commit late with a lower position: positions are (commit, prepare)
 *   log positions and a reader never needs to hold back.
 */
export class EventStoreDbEventStore implements EventStore {
  readonly kind = 'eventstoredb' as const;
  private readonly deleted = new Set<string>();
  private readonly subscriptions = new Set<Subscription>();

  private constructor(private readonly client: DbClient) {}

  /** Connects and checks that the database answers (reading $all needs an admin user on a secure server). */
  static async create(connectionString: string): Promise<EventStoreDbEventStore> {
    const client = DbClient.connectionString(connectionString);
    const store = new EventStoreDbEventStore(client);
    try {
      await store.headPosition();
    } catch (err) {
      await client.dispose().catch(() => undefined);
      throw err;
    }
    return store;
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) return this.checkOnly(streamId, expected);
    // an exact revision or no_stream is refused by the server after a deletion (its marker moved the revision on)
    if ((expected === 'any' || expected === 'stream_exists') && (await this.markedDeleted(streamId))) throw new StreamDeleted(streamId);
    let result;
    try {
      result = await this.client.appendToStream(streamId, events.map(toEventData), { expectedRevision: toDbExpected(expected) });
    } catch (err) {
      throw await this.translateAppendError(err, streamId, expected);
    }
    if (!result.success) {
      // Only with throwOnAppendFailure=false in the connection string; its revision is not to be trusted.
      const actual = await this.lastRevision(streamId);
      if (actual === 'deleted' || (await this.markedDeleted(streamId))) throw new StreamDeleted(streamId);
      throw new WrongExpectedRevision(streamId, expected, actual);
    }
    const nextRevision = Number(result.nextExpectedRevision);
    const position =
      (await this.positionAt(streamId, nextRevision)) ?? (result.position ? positionOf(result.position) : await this.headPosition());
    return { nextRevision, position };
  }

  /** EventStoreDB (before KurrentDB 25.1) appends to one stream at a time: in order, stopping at the first refusal. */
  async appendToStreams(writes: StreamWrite[]): Promise<AppendResult[]> {
    const results: AppendResult[] = [];
    for (const w of writes) results.push(await this.append(w.streamId, w.events, w.expected));
    return results;
  }

  /** An append of no events: checks the expectation, writes nothing. */
  private async checkOnly(streamId: string, expected: ExpectedRevision): Promise<AppendResult> {
    const [actual, marked] = await Promise.all([this.lastRevision(streamId), this.markedDeleted(streamId)]);
    if (actual === 'deleted' || marked) throw new StreamDeleted(streamId);
    if (!expectationMet(expected, actual)) throw new WrongExpectedRevision(streamId, expected, actual);
    return { nextRevision: actual === 'no_stream' ? -1 : actual, position: await this.headPosition() };
  }

  /** The revision of the stream's last event, 'no_stream', or 'deleted' for a stream tombstoned or ending in a deletion marker. */
  private async lastRevision(streamId: string): Promise<number | 'no_stream' | 'deleted'> {
    try {
      const [last] = await drain(this.client.readStream(streamId, { direction: BACKWARDS, fromRevision: FROM_END, maxCount: 1 }));
      if (last?.event?.type === DELETION_MARKER) return 'deleted';
      return last?.event ? Number(last.event.revision) : 'no_stream';
    } catch (err) {
      if (err instanceof StreamNotFoundError) return 'no_stream';
      if (err instanceof StreamDeletedError) return 'deleted';
      throw err;
    }
  }

  /** Whether the stream's metadata marks it deleted (a tombstoned stream's metadata cannot be read: deleted too). */
  private async markedDeleted(streamId: string): Promise<boolean> {
    if (this.deleted.has(streamId)) return true;
    let marked: boolean;
    try {
      const { metadata } = await this.client.getStreamMetadata(streamId);
      marked = metadata?.[DELETED_KEY] === true;
    } catch (err) {
      if (!(err instanceof StreamDeletedError)) throw err;
      marked = true;
    }
    if (marked) this.deleted.add(streamId);
    return marked;
  }

  /** Whether the stream was deleted: marked (this version) or tombstoned (an earlier one). */
  private async isDeleted(streamId: string): Promise<boolean> {
    const [marked, last] = await Promise.all([this.markedDeleted(streamId), this.lastRevision(streamId)]);
    if (last === 'deleted') this.deleted.add(streamId);
    return marked || last === 'deleted';
  }

  /** The $all position of the stream's event at `revision`, when the server tells it (22.6 and later). */
  private async positionAt(streamId: string, revision: number): Promise<Position | undefined> {
    try {
      const [found] = await drain(this.client.readStream(streamId, { fromRevision: BigInt(revision), maxCount: 1 }));
      const event = found?.event;
      return event?.revision === BigInt(revision) && event.position ? positionOf(event.position) : undefined;
    } catch {
      return undefined; // deleted meanwhile, or a failed read: the caller falls back on what the append answered
    }
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    if (options.maxCount !== undefined && options.maxCount <= 0) return [];
    let fromRevision: ReadRevision = backwards ? FROM_END : FROM_START;
    if (options.fromRevision !== undefined) {
      if (backwards && options.fromRevision < 0) return [];
      fromRevision = BigInt(Math.max(0, options.fromRevision));
    }
    const reading = drain(
      this.client.readStream(streamId, {
        direction: backwards ? BACKWARDS : FORWARDS,
        fromRevision,
        ...(options.maxCount !== undefined ? { maxCount: options.maxCount } : {}),
      }),
    );
    const [read, marked] = await Promise.allSettled([reading, this.markedDeleted(streamId)]);
    if (read.status === 'rejected') {
      if (read.reason instanceof StreamNotFoundError || read.reason instanceof StreamDeletedError) return [];
      throw read.reason;
    }
    if (marked.status === 'rejected') throw marked.reason;
    if (marked.value) return [];
    const events: RecordedEvent[] = [];
    for (const { event } of read.value) {
      if (!event || event.type === DELETION_MARKER) continue; // the marker of a deletion that came after the check
      const recorded = toRecorded(event, event.position ? positionOf(event.position) : START);
      if (!recorded) throw new Error(`stream ${streamId}: event ${event.id} (${event.type}) was not written by this service`);
      events.push(recorded);
    }
    return events;
  }

  readAll(after: Position, maxCount: number): Promise<RecordedEvent[]> {
    return this.readAllAfter(after, maxCount, events => this.withoutDeleted(events));
  }

  /** $all's events of this service, deleted streams' included (a deletion here keeps them: they are never scavenged). */
  readLog(after: Position, maxCount: number): Promise<RecordedEvent[]> {
    return this.readAllAfter(after, maxCount, async events => events);
  }

  /** Events of $all after `after`, at most `maxCount`, but system events, and of each page those `keep` keeps. */
  private async readAllAfter(after: Position, maxCount: number, keep: (events: RecordedEvent[]) => Promise<RecordedEvent[]>): Promise<RecordedEvent[]> {
    if (maxCount <= 0) return [];
    const out: RecordedEvent[] = [];
    let from: Position | null = isStart(after) ? null : after;
    for (;;) {
      // Reading $all from a position includes the event at that position: ask for one more and skip it.
      const pageSize = Math.min(Math.max(maxCount - out.length + 1, 32), 4096);
      const page = await drain(this.client.readAll({ fromPosition: from ?? FROM_START, maxCount: pageSize, direction: FORWARDS }));
      let lastSeen: Position | null = null;
      const candidates: RecordedEvent[] = [];
      for (const resolved of page) {
        const event = resolved.event;
        if (!event) continue;
        const position = positionOf(event.position);
        lastSeen = position;
        if (from && comparePositions(position, from) <= 0) continue;
        if (isSystemEvent(event)) continue;
        const recorded = toRecorded(event, position);
        if (recorded) candidates.push(recorded);
      }
      out.push(...(await keep(candidates)));
      if (out.length >= maxCount || page.length < pageSize || lastSeen === null) break;
      from = lastSeen;
    }
    return out.slice(0, maxCount);
  }

  /** Drops events of deleted streams, which $all still shows (for good when marked, until a scavenge when tombstoned). */
  private async withoutDeleted(events: RecordedEvent[]): Promise<RecordedEvent[]> {
    if (events.length === 0) return events;
    const unknown = [...new Set(events.map(e => e.streamId))].filter(s => !this.deleted.has(s));
    for (let i = 0; i < unknown.length; i += CHECK_CONCURRENCY) await Promise.all(unknown.slice(i, i + CHECK_CONCURRENCY).map(s => this.isDeleted(s)));
    return events.filter(e => !this.deleted.has(e.streamId));
  }

  subscribe(after: Position, handler: SubscriptionHandler, onError: (err: unknown) => void): Subscription {
    // A subscription starts after (not at) the position it is given.
    const stream: AllStreamSubscription = this.client.subscribeToAll(
      { fromPosition: isStart(after) ? FROM_START : after, filter: excludeSystemEvents() },
      { highWaterMark: SUBSCRIPTION_BATCH },
    );
    let closed = false;
    let ended = false;
    let failure: { err: unknown } | null = null;
    let wake: (() => void) | null = null;
    const signal = () => {
      const w = wake;
      wake = null;
      w?.();
    };
    // Events read from the log while catching up may belong to streams deleted since; live events cannot
    // (a deleted stream takes no appends), so only the former are checked. The server says when it is
    // caught up (23.10 and later; older servers never do, and every event is checked). Events still buffered
    // when it says so were read while catching up.
    let live = false;
    let catchUpStillBuffered = 0;
    stream.on('caughtUp', () => {
      live = true;
      catchUpStillBuffered = stream.readableLength;
    });
    stream.on('fellBehind', () => {
      live = false;
    });
    // Paused mode: the loop takes what the client has buffered as one batch; while the handler runs, the
    // buffer fills up to SUBSCRIPTION_BATCH and then gRPC flow control holds the server back.
    stream.on('readable', signal);
    stream.on('error', err => {
      failure ??= { err };
      signal();
    });
    stream.on('end', () => {
      ended = true;
      signal();
    });
    stream.on('close', () => {
      ended = true;
      signal();
    });

    /** The next events the client has buffered, each with whether its stream may have been deleted since. */
    const nextBatch = async (): Promise<{ resolved: AllStreamResolvedEvent; check: boolean }[] | null> => {
      for (;;) {
        if (closed) return null;
        if (failure) throw failure.err;
        const batch: { resolved: AllStreamResolvedEvent; check: boolean }[] = [];
        while (batch.length < SUBSCRIPTION_BATCH) {
          const resolved = stream.read() as AllStreamResolvedEvent | null;
          if (resolved === null) break;
          batch.push({ resolved, check: !live || catchUpStillBuffered > 0 });
          if (catchUpStillBuffered > 0) catchUpStillBuffered--;
        }
        if (batch.length > 0) return batch;
        if (ended) throw new Error('the EventStoreDB subscription to $all ended');
        await new Promise<void>(resolve => (wake = resolve));
      }
    };

    const loop = async () => {
      for (;;) {
        const batch = await nextBatch();
        if (batch === null) return;
        const events: RecordedEvent[] = [];
        const mustCheck = new Set<RecordedEvent>();
        for (const { resolved, check } of batch) {
          const event = resolved.event;
          if (!event || isSystemEvent(event)) continue;
          const recorded = toRecorded(event, positionOf(event.position));
          if (!recorded) continue;
          events.push(recorded);
          if (check) mustCheck.add(recorded);
        }
        const cleared = new Set(await this.withoutDeleted([...mustCheck]));
        const visible = events.filter(e => !mustCheck.has(e) || cleared.has(e));
        if (closed) return;
        if (visible.length > 0) await handler(visible);
      }
    };

    const running = loop()
      .catch(err => {
        if (!closed) onError(err);
      })
      .finally(() => stream.unsubscribe().catch(() => undefined));
    const subscription: Subscription = {
      close: async () => {
        closed = true;
        signal();
        await running;
        this.subscriptions.delete(subscription);
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  /**
   * Marks the stream deleted in its metadata (readers see it deleted from then on), then appends the marker event (an
   * append at a revision read before now is refused). Neither lets a scavenge remove its events, which the ledger chain
   * covers. A crash in between leaves a stream deleted for readers that a repeated deletion finishes.
   */
  async deleteStream(streamId: string): Promise<void> {
    try {
      const { metadata } = await this.client.getStreamMetadata(streamId);
      if (metadata?.[DELETED_KEY] !== true) await this.client.setStreamMetadata(streamId, { ...metadata, [DELETED_KEY]: true });
      if ((await this.lastRevision(streamId)) !== 'deleted')
        await this.client.appendToStream(streamId, jsonEvent({ type: DELETION_MARKER, data: {} }), { expectedRevision: ANY });
    } catch (err) {
      if (!(err instanceof StreamDeletedError)) throw err; // tombstoned by an earlier version: deleted already
    }
    this.deleted.add(streamId);
  }

  async headPosition(): Promise<Position> {
    let from: DbPosition | typeof FROM_END = FROM_END;
    const pageSize = 64;
    for (;;) {
      const page: AllStreamResolvedEvent[] = await drain(this.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: pageSize }));
      let lastSeen: DbPosition | null = null;
      for (const { event } of page) {
        if (!event) continue;
        // Should a backwards read include the event at its starting position, that one was looked at already.
        if (from !== FROM_END && comparePositions(event.position, from) >= 0) continue;
        lastSeen = event.position;
        if (!isSystemEvent(event)) return positionOf(event.position);
      }
      if (page.length < pageSize || lastSeen === null) return START;
      from = lastSeen;
    }
  }

  /** The port's error for a refused append: a wrong revision of a deleted stream is StreamDeleted (its marker moved it on). */
  private async translateAppendError(err: unknown, streamId: string, expected: ExpectedRevision): Promise<unknown> {
    if (err instanceof StreamDeletedError) return new StreamDeleted(streamId);
    if (!(err instanceof WrongExpectedVersionError)) return err;
    if (await this.markedDeleted(streamId)) return new StreamDeleted(streamId);
    const actual = err.actualVersion;
    return new WrongExpectedRevision(streamId, expected, actual === 'no_stream' ? 'no_stream' : Number(actual));
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map(s => s.close()));
    await this.client.dispose();
  }
}
