import type pg from 'pg';
import type { AnyEvent } from '../events/all.ts';
import type { StoredEvent } from '../events/event.ts';
import { query, type Statement } from '../db/pool.ts';

export type EventType = AnyEvent['type'];

/** A declared event of one type, as the store hands it over. */
export type Stored<T extends EventType> = StoredEvent<Extract<AnyEvent, { type: T }>>;

/** How one event of type `T` changes the read model's tables. */
export type Handler<T extends EventType> = (tx: pg.PoolClient, event: Stored<T>) => Promise<void>;

/** A run of consecutive events of type `T` as one INSERT, UPDATE or DELETE (parameters from $1). */
export type RunHandler<T extends EventType> = (events: Stored<T>[]) => Statement;

/**
 * A read model: the tables it owns, how to create them, and how one event changes them. `apply` runs inside the
 * transaction that also stores the projection's checkpoint, so every event is applied exactly once.
 * It must use only the event (payload and metadata), never the clock, so that a rebuild gives the same rows.
 * Declare one with `projection()`, from a handler per event type: `handles` and `apply` then come from that map.
 */
export type Projection<Name extends string = string> = {
  name: Name;
  /** Tables owned by this projection, dropped and recreated by a rebuild. */
  tables: string[];
  /** The event types `apply` acts on; the others are neither parsed nor applied, live or in a replay. */
  handles: readonly EventType[];
  /**
   * The DDL of its tables as numbered steps (src/db/migrations.ts): run in order, each once, on the live schema at
   * start and on a fresh one by a replay or rebuild. A change is a new step at the end; a released step stays as it is.
   */
  schema: readonly string[];
  apply(tx: pg.PoolClient, event: StoredEvent<AnyEvent>): Promise<void>;
  /**
   * Optional, per event type: a run of consecutive events of that type as one INSERT, UPDATE or DELETE (parameters
   * from $1), leaving the same rows as `apply` one by one would. A busy read model then costs a statement per batch
   * instead of one per event; a batch that is one such run is written together with its checkpoint in one statement.
   */
  applyRun?: Partial<Record<EventType, (events: StoredEvent<AnyEvent>[]) => Statement>>;
  /**
   * Optional, per event type: the key of the row such an event changes in a way someone may be watching for (a payment
   * that ended, which its open payment page shows at once), said to the watchers once the change is committed
   * (src/db/checkpoint-notifications.ts). Live only: a replay says nothing.
   */
  announces?: Partial<Record<EventType, (event: StoredEvent<AnyEvent>) => string>>;
  /** The handlers `handles` and `apply` come from (absent: a projection written by hand, src/projections/payments.ts). */
  on?: { readonly [T in EventType]?: Handler<T> };
  /**
   * Optional, per table: the rows the retention may delete (src/background/retention.ts), as an SQL condition on a row
   * that holds once it is over by `$1`, a time. A rebuild brings such rows back from the log and the next pass deletes
   * them again; a verification does not count one that only the replay has.
   */
  prunable?: Readonly<Record<string, string>>;
};

/**
 * A projection from one handler per event type (`on`): `handles` is its keys, `apply` dispatches through it, and the
 * compiler checks that each handler takes the event of its key. `applyRun` may batch only types `on` handles.
 */
export function projection<const Name extends string, T extends EventType>(spec: {
  name: Name;
  tables: string[];
  schema: readonly string[];
  on: { [K in T]: Handler<K> };
  applyRun?: { [K in NoInfer<T>]?: RunHandler<K> };
  announces?: { [K in NoInfer<T>]?: (event: Stored<K>) => string };
  prunable?: Readonly<Record<string, string>>;
}): Projection<Name> {
  const on: { readonly [K in EventType]?: Handler<K> } = spec.on;
  const handles = Object.keys(on) as T[];
  return {
    name: spec.name,
    tables: spec.tables,
    schema: spec.schema,
    handles,
    on,
    // each handler is called with events of its own key's type only
    apply: (tx, event) => (on[event.type] as Handler<EventType> | undefined)?.(tx, event) ?? Promise.resolve(),
    ...(spec.applyRun ? { applyRun: spec.applyRun as Projection['applyRun'] } : {}),
    ...(spec.announces ? { announces: spec.announces as Projection['announces'] } : {}),
    ...(spec.prunable ? { prunable: spec.prunable } : {}),
  };
}

/** One handler (or run handler) for each of these event types, as `on` or `applyRun` takes them. */
export function perType<const T extends EventType, H>(types: readonly T[], handler: H): { [K in T]: H } {
  return Object.fromEntries(types.map(type => [type, handler])) as { [K in T]: H };
}

/** Whether the projection applies events of this type (live and in a replay alike). */
export const handlesType = (projection: Projection, type: string): boolean =>
  (projection.handles as readonly string[]).includes(type);

/** Applies events in order: runs of one type together where the projection can, the others one by one. */
export async function applyEvents(
  tx: pg.PoolClient,
  projection: Projection,
  events: StoredEvent<AnyEvent>[],
): Promise<void> {
  for (let start = 0; start < events.length;) {
    const type = events[start]!.type;
    let end = start + 1;
    while (end < events.length && events[end]!.type === type) end++;
    const run = projection.applyRun?.[type];
    if (run && end - start > 1) {
      const statement = run(events.slice(start, end));
      await query(tx, statement.name, statement.sql, statement.params);
    } else for (let i = start; i < end; i++) await projection.apply(tx, events[i]!);
    start = end;
  }
}

/** The one statement that applies all these events, when they are a single run of a type the projection applies as a run. */
export function asOneStatement(projection: Projection, events: StoredEvent<AnyEvent>[]): Statement | null {
  const type = events[0]?.type;
  const run = type && projection.applyRun?.[type];
  return run && events.every(e => e.type === type) ? run(events) : null;
}
