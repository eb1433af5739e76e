/**
 * The event-store port. Two adapters implement it: PostgreSQL (default) and EventStoreDB.
 * Positions in "all" are a pair, so that both adapters fit: PostgreSQL orders by (transaction id, sequence),
 * EventStoreDB by (commit, prepare) log positions. Compare them with comparePositions only.
 */

export type Position = { commit: bigint; prepare: bigint };
export const START: Position = { commit: -1n, prepare: -1n };

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export type EventMetadata = {
  eventId: string;
  correlationId: string;
  causationId: string | null;
  actor: string;
  occurredAt: string;
};

/** An event to append: its type, schema version, payload and metadata (eventId makes the append idempotent). */
export type NewEvent = {
  type: string;
  version: number;
  data: Record<string, unknown>;
  metadata: EventMetadata;
};

export type RecordedEvent = NewEvent & {
  streamId: string;
  revision: number;
  position: Position;
};

/**
 * Expected revision of the stream before the append:
 * 'any' (no check), 'no_stream' (must not exist), 'stream_exists' (must exist), or the exact revision
 * of its last event (0 for a stream with one event).
 */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | number;

export type AppendResult = { nextRevision: number; position: Position };

/** Whether a stream at `actual` satisfies the expected revision of an append; revision -1 is "before the first event", as no_stream. */
export function expectationMet(expected: ExpectedRevision, actual: number | 'no_stream'): boolean {
  return (
    expected === 'any' ||
    ((expected === 'no_stream' || expected === -1) && actual === 'no_stream') ||
    (expected === 'stream_exists' && actual !== 'no_stream') ||
    expected === actual
  );
}

/**
 * One stream's part of an append to several streams: its events at the expected revision ('no_stream': it must not
 * exist yet). A write of no events is a guard: the stream must be at exactly `expected`, and is left as it is.
 */
export type StreamWrite = {
  streamId: string;
  events: NewEvent[];
  expected: number | 'no_stream';
  /**
   * A stream written a few times while it is young and then left (a payment, a bill's claim, an order id): a store may
   * keep nothing of it beside its events (PostgreSQL: no es_streams row), and streamIds does not list it. Read when
   * the write creates the stream.
   */
  shortLived?: boolean;
};

export class WrongExpectedRevision extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`stream ${streamId}: expected revision ${String(expected)}, actual ${String(actual)}`);
  }
}

export class StreamDeleted extends Error {
  constructor(readonly streamId: string) {
    super(`stream ${streamId} is deleted`);
  }
}

/** The same event id was appended before with different content or to another place. */
export class DuplicateEventId extends Error {
  constructor(readonly eventId: string) {
    super(`event ${eventId} was already appended elsewhere`);
  }
}

export type ReadStreamOptions = { direction?: 'forwards' | 'backwards'; fromRevision?: number; maxCount?: number };

export type Subscription = { close(): Promise<void> };

export type SubscriptionHandler = (events: RecordedEvent[]) => Promise<void>;

export interface EventStore {
  readonly kind: 'postgres' | 'eventstoredb';
  /**
   * Appends atomically. Appending again events whose ids were all appended before to the same stream, in the
   * same order, succeeds without writing (idempotent retry) and answers the original revision.
   */
  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /**
   * Appends to several streams, all or nothing: on PostgreSQL in one transaction; on KurrentDB in one multi-stream
   * append, its guards checked by a read just before. A refusal names its stream (WrongExpectedRevision,
   * StreamDeleted). Answers each write's result, in the order given; a retry with the same event ids is done already.
   */
  appendToStreams(writes: StreamWrite[]): Promise<AppendResult[]>;
  /** Events of one stream; an empty array for a stream that does not exist or was deleted. */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Events of every stream not deleted, after (not including) `after`, in global order, at most `maxCount`. */
  readAll(after: Position, maxCount: number): Promise<RecordedEvent[]>;
  /**
   * The whole log after (not including) `after`, at most `maxCount`: readAll's events in readAll's order and positions,
   * and with them, where they lie, the events of deleted streams (a deletion keeps them). What auditors chain and sign.
   */
  readLog(after: Position, maxCount: number): Promise<RecordedEvent[]>;
  /**
   * Delivers every event after `after` in global order, in batches, each batch after the previous one's
   * handler resolved; catches up first, then stays live. The handler's rejection stops the subscription
   * and is reported to `onError`.
   */
  subscribe(after: Position, handler: SubscriptionHandler, onError: (err: unknown) => void): Subscription;
  /**
   * Deletes a stream for good: readers (readStream, readAll, subscribe) no longer see it and later appends to it fail
   * with StreamDeleted; its events stay in the log, for readLog.
   */
  deleteStream(streamId: string): Promise<void>;
  /**
   * The ids of the streams not deleted whose id starts with `prefix` (a stream kind: `receiving-`), in no set order. A
   * look over every stream of the store (or its events), for a once-per-store pass such as a carry-over.
   */
  streamIds(prefix: string): Promise<string[]>;
  /** The position of the last event in "all", or START when there is none. */
  headPosition(): Promise<Position>;
  close(): Promise<void>;
}
