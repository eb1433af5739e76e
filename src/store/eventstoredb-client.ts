/**
 * The one module that imports the KurrentDB (EventStoreDB) client library, `@kurrent/kurrentdb-client`. The adapter
 * (eventstoredb-event-store.ts) uses only what is re-exported here.
 */
export {
  KurrentDBClient as DbClient,
  jsonEvent,
  excludeSystemEvents,
  eventTypeFilter,
  streamNameFilter,
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
import type { KurrentDBClient } from '@kurrent/kurrentdb-client';

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

/**
 * The server's version as the client learnt it from the server's ServerFeatures call ("25.1.4"), or "unknown". The
 * client keeps it behind a protected getter (the one that also decides UnsupportedError), so it is read here.
 */
export async function serverVersionOf(client: KurrentDBClient): Promise<string> {
  const features: unknown = await (Reflect.get(client, 'capabilities') as unknown);
  const version =
    typeof features === 'object' && features !== null ? Reflect.get(features, 'serverVersion') : undefined;
  return typeof version === 'string' ? version : 'unknown';
}
