import type { EventMetadata } from './event-store.ts';

/**
 * An event's metadata as es_events keeps it: without `eventId`, which its own column (event_id, uuid) holds already.
 * Events appended before this form keep theirs as written; either reads back as the same metadata (eventMetadataOf),
 * so every reader, the export and the audit's leaves see what they saw before.
 */
export const storedMetadata = ({ eventId: _, ...rest }: EventMetadata): Omit<EventMetadata, 'eventId'> => rest;

/** The metadata of a row: `eventId` first, from its column, then what the row keeps (an older row's own eventId too). */
export const eventMetadataOf = (stored: Record<string, unknown>, eventId: string): EventMetadata =>
  'eventId' in stored ? (stored as EventMetadata) : ({ eventId, ...stored } as EventMetadata);
