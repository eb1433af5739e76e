import { z } from 'zod';
import type { EventMetadata, Position, RecordedEvent } from '../store/event-store.ts';
import { cleanText, unstorableTextMessage } from '../text.ts';

/** An event as deciders see it: a type and its typed payload. */
export type DomainEvent<T extends string = string, D = unknown> = { type: T; data: D };

/** Turns the payload of an older version into the next version's payload. */
export type Upcaster = (data: Record<string, unknown>) => Record<string, unknown>;

export type EventDefinition<T extends string, S extends z.ZodType> = ((
  data: z.infer<S>,
) => DomainEvent<T, z.infer<S>>) & {
  readonly type: T;
  readonly version: number;
  readonly schema: S;
  /** upcasters[v] turns version v into version v + 1 */
  readonly upcasters: Readonly<Record<number, Upcaster>>;
};

// Declarations register themselves here once, at import; the registry is read-only afterwards.
const registry = new Map<string, EventDefinition<string, z.ZodType>>();

/** Declares an event type once: its name (past tense), its current version, its schema and its upcasters. */
export function event<T extends string, S extends z.ZodType>(
  type: T,
  version: number,
  schema: S,
  upcasters: Record<number, Upcaster> = {},
): EventDefinition<T, S> {
  for (let v = 1; v < version; v++) {
    if (!upcasters[v]) throw new Error(`event ${type} v${version} lacks an upcaster from v${v}`);
  }
  const create = (data: z.infer<S>) => ({ type, data });
  const definition = Object.assign(create, { type, version, schema, upcasters }) as EventDefinition<T, S>;
  if (registry.has(type)) throw new Error(`event ${type} is declared twice`);
  registry.set(type, definition as unknown as EventDefinition<string, z.ZodType>);
  return definition;
}

export type EventOf<D> = D extends EventDefinition<infer T, infer S> ? DomainEvent<T, z.infer<S>> : never;

export function definitionOf(type: string): EventDefinition<string, z.ZodType> | undefined {
  return registry.get(type);
}

/** A stored event, upcast to the current version and parsed: what projections and sagas receive. */
export type StoredEvent<E extends DomainEvent = DomainEvent> = E & {
  metadata: EventMetadata;
  streamId: string;
  revision: number;
  position: Position;
};

export class UnknownEventVersion extends Error {}

/** Upcasts and parses a recorded event; an event type nobody declares answers null (it belongs to no one here). */
export function parseRecorded(recorded: RecordedEvent): StoredEvent | null {
  const definition = registry.get(recorded.type);
  if (!definition) return null;
  if (recorded.version > definition.version)
    throw new UnknownEventVersion(
      `${recorded.type} v${recorded.version} is newer than this code (v${definition.version})`,
    );
  let data = recorded.data;
  for (let v = recorded.version; v < definition.version; v++) data = definition.upcasters[v]!(data);
  return {
    type: recorded.type,
    data: parseStoredData(definition.schema, data),
    metadata: recorded.metadata,
    streamId: recorded.streamId,
    revision: recorded.revision,
    position: recorded.position,
  };
}

/**
 * Text that PostgreSQL cannot store (NUL, half a surrogate pair) is refused on the way in, but an event appended before
 * that rule may hold some: it is read with that text cleaned (cleanText), the same way on every read, so that its
 * read models can store it and a rebuild gives the same rows. Only a payload that fails its schema is looked at again.
 */
function parseStoredData(schema: z.ZodType, data: Record<string, unknown>): unknown {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  if (!parsed.error.issues.some(i => i.message === unstorableTextMessage)) throw parsed.error;
  return schema.parse(cleanStrings(data));
}

function cleanStrings(value: unknown): unknown {
  if (typeof value === 'string') return cleanText(value);
  if (Array.isArray(value)) return value.map(cleanStrings);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [cleanText(k), cleanStrings(v)]));
  return value;
}

/** Validates a payload against its declaration before it is appended: no event is stored that could not be read. */
export function serialise(e: DomainEvent): { type: string; version: number; data: Record<string, unknown> } {
  const definition = registry.get(e.type);
  if (!definition) throw new Error(`event ${e.type} is not declared`);
  return {
    type: e.type,
    version: definition.version,
    data: definition.schema.parse(e.data) as Record<string, unknown>,
  };
}

export const isoDate = z.iso.datetime({ offset: true });
export const rupiah = z.int().min(0).max(Number.MAX_SAFE_INTEGER);

/** Every declared event type (for checks over all of them: text fields, documentation). */
export const declaredEvents = (): EventDefinition<string, z.ZodType>[] => [...registry.values()];
