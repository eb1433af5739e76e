/**
 * The one module that imports the EventStoreDB client library. The adapter (eventstoredb-event-store.ts) uses
 * only what is re-exported here, so moving to `@kurrent/kurrentdb-client` (same API; its client class is
 * `KurrentDBClient`) means changing the import below and nothing else.
 */
export {
  EventStoreDBClient as DbClient,
  jsonEvent,
  excludeSystemEvents,
  WrongExpectedVersionError,
  StreamDeletedError,
  StreamNotFoundError,
  ANY,
  NO_STREAM,
  STREAM_EXISTS,
  // Renamed so that they are not mistaken for the port's START position.
  START as FROM_START,
  END as FROM_END,
  FORWARDS,
  BACKWARDS,
} from '@eventstore/db-client';

export type {
  AllStreamResolvedEvent,
  AllStreamSubscription,
  AppendExpectedRevision,
  Position as DbPosition,
  ReadRevision,
  RecordedEvent as DbRecordedEvent,
  ResolvedEvent,
} from '@eventstore/db-client';
