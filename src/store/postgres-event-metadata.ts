import type { EventMetadata } from './event-store.ts';

/**
 * An event's metadata as es_events keeps it: without `eventId`, which its own column (event_id, uuid) holds already,
 * and without a `causationId` that is null (an event no other event caused). Events appended before this form keep
 * their metadata as written; either reads back as the same metadata (eventMetadataOf), so every reader, the export and
 * the audit's leaves see what they saw before.
 */
export function storedMetadata({ eventId: _, causationId, ...rest }: EventMetadata): Partial<EventMetadata> {
  return causationId === null ? rest : { ...rest, causationId };
}

/**
 * The metadata of a row: an older row's as stored (it holds its eventId); a newer row's with `eventId` from its column
 * and a null `causationId` where it holds none, in the order an older row has them.
 */
export function eventMetadataOf(stored: Record<string, unknown>, eventId: string): EventMetadata {
  if ('eventId' in stored) return stored as EventMetadata;
  const { correlationId, causationId = null, ...rest } = stored;
  return { eventId, correlationId, causationId, ...rest } as EventMetadata;
}
