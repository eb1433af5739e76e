import type { EventMetadata } from './event-store.ts';
import { longIds, shortIds } from './postgres-stream-ids.ts';
import { canonicalUuid } from './short-uuids.ts';

/**
 * An event's metadata as es_events keeps it in JSON: without `eventId`, which its own column (event_id, uuid) holds
 * already, and without a `causationId` that is null (an event no other event caused). Events appended before this form
 * keep their metadata as written; either reads back as the same metadata (eventMetadataOf), so every reader, the export
 * and the audit's leaves see what they saw before.
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

/**
 * How an append sends one event's metadata (an element of one JSON array, read by appendedMetadataRows): in the typed
 * columns when they give it back exactly, with `metadata` null; else as the JSON text storedMetadata gives, a
 * string in the array (json_to_recordset refuses a \u0000 in a nested object, which a json column keeps).
 */
export type AppendedMetadata =
  { correlation_id: string; causation_id: string | null; actor: string; occurred_at: string } | { metadata: string };

// an instant as toISOString writes it, of a year of four digits from 1000 (earlier ones, before the common era's start
// in PostgreSQL's calendar or with six digits, stay in JSON)
const isoInstant = /^([1-9]\d{3})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;
const leapYear = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);

/**
 * Whether a timestamptz column gives `at` back as this text (metadataColumnsSql formats it so): exactly what
 * toISOString gives of the instant it names, a day that its month has. Checked by its form, not by parsing and
 * writing it again, which costs eight times as much on the append path.
 */
export function typedInstant(at: unknown): at is string {
  if (typeof at !== 'string') return false;
  const parts = isoInstant.exec(at);
  if (!parts) return false;
  const day = Number(parts[3]);
  if (day <= 28) return true;
  const month = Number(parts[2]);
  return month === 2 ? day === 29 && leapYear(Number(parts[1])) : day <= 30 || ![4, 6, 9, 11].includes(month);
}

/** A text column gives `s` back as it is: no NUL and no lone surrogate, which PostgreSQL's text cannot hold. */
const untypable = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const typedText = (s: unknown): s is string => typeof s === 'string' && !untypable.test(s);

/** Whether metadata's own keys are EventMetadata's, `actor` before `occurredAt` (the order reading back gives). */
function typedKeys(m: EventMetadata): boolean {
  const keys = Object.keys(m);
  if (keys.length !== 5) return false;
  const actor = keys.indexOf('actor');
  return (
    actor >= 0 &&
    actor < keys.indexOf('occurredAt') &&
    keys.includes('eventId') &&
    keys.includes('correlationId') &&
    keys.includes('causationId')
  );
}

/**
 * The form an event's metadata is appended in: the typed columns when they give it back exactly (typedKeys, a
 * lowercase canonical uuid for correlationId, typedText or null for causationId, typedText for actor, a typedInstant),
 * the causation and the actor with their uuids short (postgres-stream-ids.ts shortIds, which a text holding a `~`
 * has not); its JSON otherwise (odd metadata is read back exactly as before).
 */
export function appendedMetadata(m: EventMetadata): AppendedMetadata {
  const { correlationId, causationId, actor, occurredAt } = m;
  if (
    typeof correlationId === 'string' &&
    canonicalUuid.test(correlationId) &&
    (causationId === null || typedText(causationId)) &&
    typedText(actor) &&
    typedInstant(occurredAt) &&
    typedKeys(m)
  ) {
    const causation = causationId === null ? null : shortIds(causationId);
    const by = shortIds(actor);
    if (by !== null && (causationId === null || causation !== null))
      return { correlation_id: correlationId, causation_id: causation, actor: by, occurred_at: occurredAt };
  }
  return { metadata: JSON.stringify(storedMetadata(m)) };
}

/**
 * The rows of an append's metadata parameter (a JSON array of AppendedMetadata), numbered as `m(k)`: one parse gives
 * the typed columns and the JSON text of `metadata` as sent.
 */
export const appendedMetadataRows = (param: string) =>
  `rows from (json_to_recordset(${param}::json) as (metadata text, correlation_id uuid, causation_id text, actor text, occurred_at timestamptz))
    with ordinality as m(metadata, correlation_id, causation_id, actor, occurred_at, k)`;

/** The metadata columns of es_events, as an append names them and appendedMetadataRows gives them. */
export const metadataColumns = ['metadata', 'correlation_id', 'causation_id', 'actor', 'occurred_at'] as const;

/** An append's select list of the metadata columns, from appendedMetadataRows named `m` (or a selection of them). */
export const metadataValues = (m: string) =>
  metadataColumns.map(c => (c === 'metadata' ? `${m}.metadata::json as metadata` : `${m}.${c}`)).join(', ');

/** A typed occurred_at of es_events row `e` as the text toISOString gives (typedInstant). */
export const occurredAtTextSql = (e: string) =>
  `to_char(${e}.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * What a reader of es_events row `e` selects of its metadata, named as MetadataRow: the JSON as stored (null when
 * typed) and the typed columns as text.
 */
export const metadataColumnsSql = (e: string) =>
  `${e}.metadata, ${e}.correlation_id::text as correlation, ${e}.causation_id as causation, ${e}.actor, ${occurredAtTextSql(e)} as occurred`;

/** An event's metadata as metadataColumnsSql reads it: the stored JSON (parsed, or null when typed), then the columns. */
export type MetadataRow = [
  stored: Record<string, unknown> | null,
  correlation: string | null,
  causation: string | null,
  actor: string | null,
  occurred: string | null,
];

/**
 * The metadata of a row of either form: the JSON's (eventMetadataOf), or the columns' in the same order, the causation
 * and the actor with their uuids long again.
 */
export function metadataOfRow(
  eventId: string,
  ...[stored, correlation, causation, actor, occurred]: MetadataRow
): EventMetadata {
  if (stored !== null) return eventMetadataOf(stored, eventId);
  return {
    eventId,
    correlationId: correlation,
    causationId: causation === null ? null : longIds(causation),
    actor: actor === null ? null : longIds(actor),
    occurredAt: occurred,
  } as EventMetadata;
}

/** The metadata.occurredAt of es_events row `e`, of either form, as its text (SQL). */
export const occurredAtOfSql = (e: string) => `coalesce(${e}.metadata->>'occurredAt', ${occurredAtTextSql(e)})`;
