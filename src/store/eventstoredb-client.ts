/**
 * The one module that imports the KurrentDB (EventStoreDB) client library, `@kurrent/kurrentdb-client`. The adapter
 * (eventstoredb-event-store.ts) uses only what is re-exported here.
 */
export {
  KurrentDBClient as DbClient,
  jsonEvent,
  excludeSystemEvents,
  eventTypeFilter,
  WrongExpectedVersionError,
  StreamDeletedError,
  StreamNotFoundError,
  StreamTombstonedError,
  MaxAppendSizeExceededError,
  TransactionMaxSizeExceededError,
  AppendRecordSizeExceededError,
  UnsupportedError,
  ANY,
  NO_STREAM,
  STREAM_EXISTS,
  // Renamed so that they are not mistaken for the port's START position.
  START as FROM_START,
  END as FROM_END,
  FORWARDS,
  BACKWARDS,
} from '@kurrent/kurrentdb-client';

export type {
  AllStreamResolvedEvent,
  AllStreamSubscription,
  AppendStreamRequest,
  AppendStreamState,
  CurrentStreamState,
  EventData,
  Position as DbPosition,
  ReadRevision,
  RecordedEvent as DbRecordedEvent,
  ResolvedEvent,
} from '@kurrent/kurrentdb-client';
