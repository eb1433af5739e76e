import {
  ANY,
  AppendRecordSizeExceededError,
  BACKWARDS,
  DbClient,
  FORWARDS,
  FROM_END,
  FROM_START,
  MaxAppendSizeExceededError,
  NO_STREAM,
  STREAM_EXISTS,
  StreamDeletedError,
  StreamNotFoundError,
  StreamTombstonedError,
  TransactionMaxSizeExceededError,
  UnsupportedError,
  WrongExpectedVersionError,
  eventTypeFilter,
  excludeSystemEvents,
  streamNameFilter,
  jsonEvent,
  serverVersionOf,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendStreamState,
  type DbPosition,
  type DbRecordedEvent,
  type EventData,
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

/**
 * The server's largest append by default since KurrentDB 25.1 (MaxAppendSize = TFConsts.ChunkSize, 256 MiB; it was
 * 1 MiB up to 25.0). An operator may set it lower: the server then names its limit and the adapter splits or refuses.
 */
export const DEFAULT_MAX_APPEND_BYTES = 256 * 1024 * 1024;
/**
 * The largest event the server stores (TFConsts.EffectiveMaxLogRecordSize, also MaxAppendEventSize's default): the
 * single-stream append's refusal of a larger one is a status the client does not recognise (UnknownError).
 */
export const MAX_EVENT_BYTES = 16 * 1024 * 1024 - 10_000;
/**
 * The first KurrentDB whose multi-stream append is sound: 25.1.0 could answer wrong revisions, and after a restart take
 * a stream it created for missing (25.1.1's release notes, PRs 5362 and 5376).
 */
const FIRST_SOUND_VERSION = [25, 1, 1] as const;
/** What an event adds to an append beyond its type, data and metadata (record header, ids): a generous estimate. */
const EVENT_OVERHEAD_BYTES = 256;

/** The custom key of a stream's metadata that marks it deleted by this service (scavenging knows nothing of it). */
const DELETED_KEY = 'deletedByService';

/** The event a deletion appends to the stream (a system event: no reader of "all" shows it), so that its revision moves on. */
const DELETION_MARKER = '$deletedByService';
/** The event of a stream tombstoned by an earlier version of this adapter. */
const TOMBSTONE = '$streamDeleted';

/**
 * The one metadata property of an event appended to several streams at once: the multi-stream append takes string
 * values only, so the metadata rides in it as JSON text.
 */
const METADATA_PROPERTY = 'serviceMetadata';

const isStart = (p: Position) => p.commit < 0n;

/** Events the database writes for itself ($metadata, $streamDeleted, $statsCollected, links, ...). */
const isSystemEvent = (e: { type: string; streamId: string }) => e.type.startsWith('$') || e.streamId.startsWith('$');

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** An append this event store cannot take in one piece, with why and the limit it is over. */
export class AppendTooLarge extends Error {
  constructor(
    readonly streamIds: string[],
    readonly bytes: number,
    readonly limit: number,
    why: string,
  ) {
    super(
      `append to ${streamIds.join(', ')}: about ${bytes} bytes, over the event store's limit of ${limit} bytes; ${why}`,
    );
  }
}

/** The server cannot serve this adapter (too old, or the connection string is wrong): retrying will not help. */
export class EventStoreUnusable extends Error {}

function toDbExpected(expected: ExpectedRevision): AppendStreamState {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  // The port's revisions start at 0; "before the first event" is no_stream.
  return expected < 0 ? NO_STREAM : BigInt(expected);
}

const storedMetadata = (event: NewEvent) => ({ ...event.metadata, schemaVersion: event.version });

/** Our event as the database stores it: the event id is the metadata's, the schema version rides in the metadata. */
function toEventData(event: NewEvent): EventData {
  return jsonEvent({ id: event.metadata.eventId, type: event.type, data: event.data, metadata: storedMetadata(event) });
}

/** The same for a multi-stream append, whose metadata holds string values only. */
function toMultiStreamEventData(event: NewEvent): EventData {
  return jsonEvent({
    id: event.metadata.eventId,
    type: event.type,
    data: event.data,
    metadata: { [METADATA_PROPERTY]: JSON.stringify(storedMetadata(event)) },
  });
}

/** The metadata as written: in the property of a multi-stream append (the server may add its own beside it), or as is. */
function writtenMetadata(metadata: Record<string, unknown>): unknown {
  const carried = metadata[METADATA_PROPERTY];
  if (typeof carried !== 'string') return metadata;
  try {
    return JSON.parse(carried) as unknown;
  } catch {
    return null;
  }
}

/** Our recorded event, or null for an event this service did not write (not a JSON object with our metadata). */
function toRecorded(event: DbRecordedEvent, position: Position): RecordedEvent | null {
  if (!event.isJson || !isPlainObject(event.data) || !isPlainObject(event.metadata)) return null;
  const written = writtenMetadata(event.metadata);
  if (!isPlainObject(written)) return null;
  const { schemaVersion, ...metadata } = written;
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

/** The bytes an event adds to an append, about as the server counts them (type, data, metadata, header). */
const sizeOf = (event: NewEvent) =>
  Buffer.byteLength(event.type) +
  Buffer.byteLength(JSON.stringify(event.data)) +
  Buffer.byteLength(JSON.stringify(storedMetadata(event))) +
  EVENT_OVERHEAD_BYTES;

/** How many events from `first` fit in one append of at most `limit` bytes (at least one: a larger one is refused). */
function fitting(events: NewEvent[], first: number, limit: number, streamId: string): number {
  let bytes = 0;
  let n = 0;
  for (let i = first; i < events.length; i++) {
    const size = sizeOf(events[i]!);
    if (size > MAX_EVENT_BYTES)
      throw new AppendTooLarge(
        [streamId],
        size,
        MAX_EVENT_BYTES,
        `event ${events[i]!.metadata.eventId} alone is larger than KurrentDB stores`,
      );
    if (n === 0 && size > limit)
      throw new AppendTooLarge(
        [streamId],
        size,
        limit,
        `event ${events[i]!.metadata.eventId} alone is over MaxAppendSize`,
      );
    if (bytes + size > limit) break;
    bytes += size;
    n++;
  }
  return n;
}

/**
 * Every item of a read. Reads are always drained to their end: leaving a `for await` early destroys the
 * client's stream but may leave its call open and unread, and client.dispose() then waits for it.
 */
async function drain<T>(read: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of read) items.push(item);
  return items;
}

/**
 * The batches a subscription to $all hands its loop, read in paused mode; `signal` wakes a loop waiting for the next
 * (a close).
 */
function bufferedBatches(stream: AllStreamSubscription, isClosed: () => boolean) {
  let ended = false;
  let failure: { err: unknown } | null = null;
  let wake: (() => void) | null = null;
  const signal = () => {
    const w = wake;
    wake = null;
    w?.();
  };
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

  /** The next events the client has buffered. */
  const next = async (): Promise<AllStreamResolvedEvent[] | null> => {
    for (;;) {
      if (isClosed()) return null;
      if (failure) throw failure.err;
      const batch: AllStreamResolvedEvent[] = [];
      while (batch.length < SUBSCRIPTION_BATCH) {
        const resolved = stream.read() as AllStreamResolvedEvent | null;
        if (resolved === null) break;
        batch.push(resolved);
      }
      if (batch.length > 0) return batch;
      if (ended) throw new Error('the KurrentDB subscription to $all ended');
      await new Promise<void>(resolve => (wake = resolve));
    }
  };
  return { next, signal };
}

/**
 * The event-store port on KurrentDB 25.1.1 or later (EventStoreDB's successor) through `@kurrent/kurrentdb-client`.
 *
 * Where KurrentDB differs from the port, and what this adapter does about it:
 * - Idempotent append is the server's: a retry with the same event ids at the same expected revision succeeds
 *   without writing (guaranteed for an exact revision or no_stream; best effort, from a cache of recent event
 *   ids, for any and stream_exists). The server never refuses an event id used in another stream, so this
 *   adapter never throws DuplicateEventId. A retry of an append written before its stream was deleted succeeds too
 *   (PostgreSQL refuses it).
 * - appendToStreams writes several streams with the server's multi-stream append (25.1): all or nothing. Its guards
 *   (writes of no events) are checked by a read just before (the multi-stream append takes no write without events),
 *   so a guarded stream that moves in between is not noticed; the writes themselves are atomic. A server older than
 *   25.1.1 is refused at start (EventStoreUnusable).
 * - The server refuses an append over its MaxAppendSize (256 MiB by default since 25.1; an operator may lower it) and
 *   an event over about 16 MiB; such an event is refused before sending (AppendTooLarge). An append to one stream over
 *   the limit (maxAppendBytes, or the lower one the server names when it refuses) is split into appends under it, in
 *   order, each after the revision the previous one left (consecutive in the stream; not atomic: a crash or a
 *   conflicting writer in between leaves the first parts, and a retry with the same events completes it). An append
 *   to several streams cannot be split and is refused (AppendTooLarge).
 * - Deleting a stream deletes nothing in the database (docs/decisions.md, "The chain on EventStoreDB"): both of its
 *   deletes let a scavenge remove the events, which the ledger chain covers. The adapter marks the stream deleted in
 *   its metadata (a custom key) and appends a system event to it, so that an append at a revision read before the
 *   deletion is refused; readStream checks the mark (one more read, at the same time), appends at any or
 *   stream_exists check it first (one more read; an append racing the deletion may still land after it). readAll,
 *   headPosition and the subscriptions know deleted streams from those marker events (and an earlier version's
 *   tombstones) in $all: one filtered read of $all for them from start, then of what was written since, before each
 *   page or batch. readLog skips nothing but system events.
 * - The position an append answers is that of its last event as $all shows it (read back from the stream:
 *   one more read per stream written), so that waiting for a projection to reach it works.
 * - $all has one writer, so no event can commit late with a lower position: positions are (commit, prepare)
 *   log positions and a reader never needs to hold back.
 */
export class EventStoreDbEventStore implements EventStore {
  readonly kind = 'eventstoredb' as const;
  private readonly deleted = new Set<string>();
  private readonly subscriptions = new Set<Subscription>();
  /** $all up to here was searched for deletions (null: not yet). */
  private deletionsKnownUpTo: Position | null = null;
  private searchingDeletions: Promise<void> | null = null;

  private constructor(
    private readonly client: DbClient,
    private readonly maxAppendBytes: number,
  ) {}

  /**
   * Connects, checks that the database answers (reading $all needs an admin user on a secure server) and that it
   * appends to several streams atomically (KurrentDB 25.1 or later), and learns which streams were deleted.
   */
  static async create(
    connectionString: string,
    options: { maxAppendBytes?: number } = {},
  ): Promise<EventStoreDbEventStore> {
    let client: DbClient;
    try {
      client = DbClient.connectionString(connectionString);
    } catch (err) {
      throw new EventStoreUnusable(
        `EVENTSTORE_CONNECTION_STRING is not a KurrentDB connection string: ${(err as Error).message}`,
      );
    }
    return EventStoreDbEventStore.open(client, options);
  }

  /** The store on a client made already (a test's stub, say): create's checks, and the client disposed when one fails. */
  static async open(client: DbClient, options: { maxAppendBytes?: number } = {}): Promise<EventStoreDbEventStore> {
    const store = new EventStoreDbEventStore(client, options.maxAppendBytes ?? DEFAULT_MAX_APPEND_BYTES);
    try {
      await store.headPosition();
      await store.requireMultiStreamAppend();
      await store.requireSoundVersion();
    } catch (err) {
      await client.dispose().catch(() => undefined);
      throw err;
    }
    return store;
  }

  /**
   * An append of nothing: the client refuses it without sending for a server that lacks the feature, a server that has
   * it refuses it as empty (any other failure shows again in the version check, which reads the same server features).
   */
  private async requireMultiStreamAppend(): Promise<void> {
    try {
      await this.client.multiStreamAppend([]);
    } catch (err) {
      if (err instanceof UnsupportedError)
        throw new EventStoreUnusable(
          `the event store server has no atomic multi-stream append (${err.feature}): KurrentDB ${err.minimumVersion} or later is needed (docs/operating.md, "Running with EventStoreDB")`,
        );
    }
  }

  /** KurrentDB 25.1.0's multi-stream append has two faults fixed in 25.1.1; an unknown or development (0.x) version passes. */
  private async requireSoundVersion(): Promise<void> {
    const version = await serverVersionOf(this.client);
    const parts = version.split('.').map(Number);
    if (parts.length < 3 || parts.some(p => !Number.isInteger(p)) || parts[0] === 0) return;
    const order = parts.slice(0, 3).findIndex((p, i) => p !== FIRST_SOUND_VERSION[i]);
    if (order >= 0 && parts[order]! < FIRST_SOUND_VERSION[order]!)
      throw new EventStoreUnusable(
        `KurrentDB ${version} can answer wrong revisions from its multi-stream append and, after a restart, take a stream it created for missing: ${FIRST_SOUND_VERSION.join('.')} or later is needed (docs/operating.md, "Running with EventStoreDB")`,
      );
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) return this.checkOnly(streamId, expected);
    // an exact revision or no_stream is refused by the server after a deletion (its marker moved the revision on)
    if ((expected === 'any' || expected === 'stream_exists') && (await this.markedDeleted(streamId)))
      throw new StreamDeleted(streamId);
    let limit = this.maxAppendBytes;
    let first = 0;
    let expectedNow = expected;
    let written: { nextRevision: number; position: Position | null } | null = null;
    while (first < events.length) {
      const part = events.slice(first, first + fitting(events, first, limit, streamId));
      try {
        written = await this.appendPart(streamId, part, expectedNow);
      } catch (err) {
        if (!(err instanceof MaxAppendSizeExceededError)) throw err;
        // the server counts more than this estimate, or has a lower limit: smaller parts, down to one event
        const bytes = part.reduce((sum, e) => sum + sizeOf(e), 0);
        if (part.length === 1)
          throw new AppendTooLarge(
            [streamId],
            bytes,
            err.maxAppendSize || limit,
            'one event alone is over MaxAppendSize',
          );
        limit = Math.min(err.maxAppendSize || limit, Math.floor(bytes / 2));
        continue;
      }
      first += part.length;
      expectedNow = written.nextRevision; // the next part goes right after this one, or is refused
    }
    const { nextRevision, position } = written!;
    return {
      nextRevision,
      position: (await this.positionAt(streamId, nextRevision)) ?? position ?? (await this.headPosition()),
    };
  }

  /** One append request; the port's errors for a refusal. */
  private async appendPart(
    streamId: string,
    events: NewEvent[],
    expected: ExpectedRevision,
  ): Promise<{ nextRevision: number; position: Position | null }> {
    let result;
    try {
      result = await this.client.appendToStream(streamId, events.map(toEventData), {
        streamState: toDbExpected(expected),
      });
    } catch (err) {
      throw await this.translateAppendError(err, streamId, expected);
    }
    if (!result.success) {
      // Only with throwOnAppendFailure=false in the connection string; its revision is not to be trusted.
      const actual = await this.lastRevision(streamId);
      if (actual === 'deleted' || (await this.markedDeleted(streamId))) throw new StreamDeleted(streamId);
      throw new WrongExpectedRevision(streamId, expected, actual);
    }
    return {
      nextRevision: Number(result.nextExpectedRevision),
      position: result.position ? positionOf(result.position) : null,
    };
  }

  /**
   * Guards first (a read each, the first refused one in the order given is thrown), then the writes: one stream with
   * `append` (split under the size limit if need be), several with the server's atomic multi-stream append.
   */
  async appendToStreams(writes: StreamWrite[]): Promise<AppendResult[]> {
    // the server compares the streams of one multi-stream append ignoring case, and the client reports its refusal as a timeout
    if (new Set(writes.map(w => w.streamId.toLowerCase())).size < writes.length)
      throw new Error(
        `appendToStreams: a stream appears twice (${writes.map(w => w.streamId).join(', ')}); KurrentDB takes each stream once per append, whatever its case`,
      );
    const guards = writes.filter(w => w.events.length === 0);
    const checked = await Promise.allSettled(guards.map(w => this.checkOnly(w.streamId, w.expected)));
    const refused = checked.find(c => c.status === 'rejected');
    if (refused) throw refused.reason;
    const toWrite = writes.filter(w => w.events.length > 0);
    const written =
      toWrite.length === 1
        ? [await this.append(toWrite[0]!.streamId, toWrite[0]!.events, toWrite[0]!.expected)]
        : toWrite.length > 1
          ? await this.appendAtomically(toWrite)
          : [];
    const results = new Map<StreamWrite, AppendResult>();
    guards.forEach((w, i) => results.set(w, (checked[i] as PromiseFulfilledResult<AppendResult>).value));
    toWrite.forEach((w, i) => results.set(w, written[i]!));
    return writes.map(w => results.get(w)!);
  }

  /** Several streams in one multi-stream append: all or nothing. */
  private async appendAtomically(writes: StreamWrite[]): Promise<AppendResult[]> {
    const streamIds = writes.map(w => w.streamId);
    const bytes = writes.reduce((sum, w) => sum + w.events.reduce((s, e) => s + sizeOf(e), 0), 0);
    const tooLarge = (limit: number) =>
      new AppendTooLarge(
        streamIds,
        bytes,
        limit,
        'over MaxAppendSize, and an atomic append to several streams cannot be split',
      );
    if (bytes > this.maxAppendBytes) throw tooLarge(this.maxAppendBytes);
    let result;
    try {
      result = await this.client.multiStreamAppend(
        writes.map(w => ({
          streamName: w.streamId,
          expectedState: toDbExpected(w.expected),
          events: w.events.map(toMultiStreamEventData),
        })),
      );
    } catch (err) {
      if (err instanceof MaxAppendSizeExceededError) throw tooLarge(err.maxAppendSize);
      if (err instanceof TransactionMaxSizeExceededError) throw tooLarge(err.maxSize);
      if (err instanceof AppendRecordSizeExceededError)
        throw new AppendTooLarge(
          [err.stream],
          err.size,
          err.maxSize,
          `event ${err.recordId} alone is over MaxAppendEventSize`,
        );
      if (err instanceof StreamTombstonedError) throw new StreamDeleted(err.stream);
      if (!(err instanceof WrongExpectedVersionError)) throw err;
      // a retry of an append that was done: every event where this append puts it
      const done = await this.appendedBefore(writes);
      if (done) return done;
      const write = writes.find(w => w.streamId === err.streamName) ?? writes[0]!;
      throw await this.translateAppendError(err, write.streamId, write.expected);
    }
    const revisions = new Map(result.responses.map(r => [r.streamName, Number(r.revision)]));
    const commit: Position = { commit: result.position, prepare: result.position };
    return Promise.all(
      writes.map(async w => {
        const nextRevision =
          revisions.get(w.streamId) ?? (w.expected === 'no_stream' ? -1 : w.expected) + w.events.length;
        return { nextRevision, position: (await this.positionAt(w.streamId, nextRevision)) ?? commit };
      }),
    );
  }

  /** The results of these writes when all their events are in their streams already, right after the expected revisions; else null. */
  private async appendedBefore(writes: StreamWrite[]): Promise<AppendResult[] | null> {
    const found = await Promise.all(
      writes.map(async w => {
        const from = w.expected === 'no_stream' ? 0 : w.expected + 1;
        const events = await this.readStream(w.streamId, { fromRevision: from, maxCount: w.events.length });
        const same =
          events.length === w.events.length &&
          events.every((e, i) => e.revision === from + i && e.metadata.eventId === w.events[i]!.metadata.eventId);
        return same
          ? { nextRevision: events[events.length - 1]!.revision, position: events[events.length - 1]!.position }
          : null;
      }),
    );
    return found.every(r => r !== null) ? (found as AppendResult[]) : null;
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
      const [last] = await drain(
        this.client.readStream(streamId, { direction: BACKWARDS, fromRevision: FROM_END, maxCount: 1 }),
      );
      if (last?.event?.type === DELETION_MARKER) return 'deleted';
      return last?.event ? Number(last.event.revision) : 'no_stream';
    } catch (err) {
      if (err instanceof StreamNotFoundError) return 'no_stream';
      if (err instanceof StreamDeletedError || err instanceof StreamTombstonedError) return 'deleted';
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
      if (!(err instanceof StreamDeletedError || err instanceof StreamTombstonedError)) throw err;
      marked = true;
    }
    if (marked) this.deleted.add(streamId);
    return marked;
  }

  /**
   * Learns the streams deleted since the last search: the marker events (and an earlier version's tombstones) that
   * $all holds after it, found by the server's filter. One search at a time; callers meanwhile share it.
   */
  private knowDeletions(): Promise<void> {
    this.searchingDeletions ??= this.searchDeletions().finally(() => (this.searchingDeletions = null));
    return this.searchingDeletions;
  }

  private async searchDeletions(): Promise<void> {
    const [last] = await drain(this.client.readAll({ direction: BACKWARDS, fromPosition: FROM_END, maxCount: 1 }));
    if (!last?.event) return; // an empty database
    const head = positionOf(last.event.position);
    const from = this.deletionsKnownUpTo;
    if (from && comparePositions(head, from) <= 0) return;
    const found = await drain(
      this.client.readAll({
        direction: FORWARDS,
        fromPosition: from ?? FROM_START,
        filter: eventTypeFilter({ prefixes: [DELETION_MARKER, TOMBSTONE] }),
      }),
    );
    for (const { event } of found)
      if (event && (event.type === DELETION_MARKER || event.type === TOMBSTONE)) this.deleted.add(event.streamId);
    this.deletionsKnownUpTo = head;
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
      const err = read.reason;
      if (
        err instanceof StreamNotFoundError ||
        err instanceof StreamDeletedError ||
        err instanceof StreamTombstonedError
      )
        return [];
      throw err;
    }
    if (marked.status === 'rejected') throw marked.reason;
    if (marked.value) return [];
    const events: RecordedEvent[] = [];
    for (const { event } of read.value) {
      if (!event || event.type === DELETION_MARKER) continue; // the marker of a deletion that came after the check
      const recorded = toRecorded(event, event.position ? positionOf(event.position) : START);
      if (!recorded)
        throw new Error(`stream ${streamId}: event ${event.id} (${event.type}) was not written by this service`);
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
  private async readAllAfter(
    after: Position,
    maxCount: number,
    keep: (events: RecordedEvent[]) => Promise<RecordedEvent[]>,
  ): Promise<RecordedEvent[]> {
    if (maxCount <= 0) return [];
    const out: RecordedEvent[] = [];
    let from: Position | null = isStart(after) ? null : after;
    for (;;) {
      // Reading $all from a position includes the event at that position: ask for one more and skip it.
      const pageSize = Math.min(Math.max(maxCount - out.length + 1, 32), 4096);
      const page = await drain(
        this.client.readAll({ fromPosition: from ?? FROM_START, maxCount: pageSize, direction: FORWARDS }),
      );
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
    await this.knowDeletions();
    return events.filter(e => !this.deleted.has(e.streamId));
  }

  /** One read of $all filtered by the server on the streams' names, from the start: each stream's events pass by once. */
  async streamIds(prefix: string): Promise<string[]> {
    const found = await drain(
      this.client.readAll({
        direction: FORWARDS,
        fromPosition: FROM_START,
        filter: streamNameFilter({ prefixes: [prefix] }),
      }),
    );
    await this.knowDeletions();
    const ids = new Set<string>();
    for (const { event } of found)
      if (event && !isSystemEvent(event) && !this.deleted.has(event.streamId)) ids.add(event.streamId);
    return [...ids];
  }

  subscribe(after: Position, handler: SubscriptionHandler, onError: (err: unknown) => void): Subscription {
    // A subscription starts after (not at) the position it is given.
    const stream: AllStreamSubscription = this.client.subscribeToAll(
      { fromPosition: isStart(after) ? FROM_START : after, filter: excludeSystemEvents() },
      { highWaterMark: SUBSCRIPTION_BATCH },
    );
    let closed = false;
    const batches = bufferedBatches(stream, () => closed);

    // Every batch, live or catching up, is checked against the deletions in $all up to now: whether the server
    // says the subscription fell behind or caught up does not matter.
    const loop = async () => {
      for (;;) {
        const batch = await batches.next();
        if (batch === null) return;
        const events: RecordedEvent[] = [];
        for (const { event } of batch) {
          if (!event || isSystemEvent(event)) continue;
          const recorded = toRecorded(event, positionOf(event.position));
          if (recorded) events.push(recorded);
        }
        const visible = await this.withoutDeleted(events);
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
        batches.signal();
        await running;
        this.subscriptions.delete(subscription);
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  /**
   * Marks the stream deleted in its metadata (readers see it deleted from then on), then appends the marker event (an
   * append at a revision read before now is refused; readers of $all learn of the deletion from it). Neither lets a
   * scavenge remove its events, which the ledger chain covers. A crash in between leaves a stream deleted for
   * readStream and appends, not yet for readers of $all, and a repeated deletion finishes it.
   */
  async deleteStream(streamId: string): Promise<void> {
    try {
      const { metadata } = await this.client.getStreamMetadata(streamId);
      if (metadata?.[DELETED_KEY] !== true)
        await this.client.setStreamMetadata(streamId, { ...metadata, [DELETED_KEY]: true });
      if ((await this.lastRevision(streamId)) !== 'deleted')
        await this.client.appendToStream(streamId, jsonEvent({ type: DELETION_MARKER, data: {} }), {
          streamState: ANY,
        });
    } catch (err) {
      if (!(err instanceof StreamDeletedError || err instanceof StreamTombstonedError)) throw err; // tombstoned by an earlier version: deleted already
    }
    this.deleted.add(streamId);
  }

  /** The position of the last event a subscription delivers: not a system event, not another program's, not a deleted stream's. */
  async headPosition(): Promise<Position> {
    await this.knowDeletions();
    let from: DbPosition | typeof FROM_END = FROM_END;
    const pageSize = 64;
    for (;;) {
      const page: AllStreamResolvedEvent[] = await drain(
        this.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: pageSize }),
      );
      let lastSeen: DbPosition | null = null;
      for (const { event } of page) {
        if (!event) continue;
        // Should a backwards read include the event at its starting position, that one was looked at already.
        if (from !== FROM_END && comparePositions(event.position, from) >= 0) continue;
        lastSeen = event.position;
        if (isSystemEvent(event) || this.deleted.has(event.streamId)) continue;
        const position = positionOf(event.position);
        if (toRecorded(event, position)) return position;
      }
      if (page.length < pageSize || lastSeen === null) return START;
      from = lastSeen;
    }
  }

  /** The port's error for a refused append: a wrong revision of a deleted stream is StreamDeleted (its marker moved it on). */
  private async translateAppendError(err: unknown, streamId: string, expected: ExpectedRevision): Promise<unknown> {
    if (err instanceof StreamDeletedError || err instanceof StreamTombstonedError) return new StreamDeleted(streamId);
    if (err instanceof MaxAppendSizeExceededError) return err; // the caller splits the append, or refuses it naming the limit
    if (!(err instanceof WrongExpectedVersionError)) return err;
    if (await this.markedDeleted(streamId)) return new StreamDeleted(streamId);
    const actual = err.actualState;
    return new WrongExpectedRevision(streamId, expected, actual === 'no_stream' ? 'no_stream' : Number(actual));
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map(s => s.close()));
    await this.client.dispose();
  }
}
