import type pg from 'pg';
import type { AnyEvent } from '../events/all.ts';
import type { StoredEvent } from '../events/event.ts';
import { query, type Statement } from '../db/pool.ts';

/**
 * A read model: the tables it owns, how to create them, and how one event changes them. `apply` runs inside the
 * transaction that also stores the projection's checkpoint, so every event is applied exactly once.
 * It must use only the event (payload and metadata), never the clock, so that a rebuild gives the same rows.
 */
export type Projection = {
  name: string;
  /** Tables owned by this projection, dropped and recreated by a rebuild. */
  tables: string[];
  /** The event types `apply` acts on: the others are neither parsed nor applied live (verify-read-models catches a gap). */
  handles: readonly AnyEvent['type'][];
  /** Idempotent DDL creating the tables. */
  schema: string;
  apply(tx: pg.PoolClient, event: StoredEvent<AnyEvent>): Promise<void>;
  /**
   * Optional, per event type: a run of consecutive events of that type as one INSERT, UPDATE or DELETE (parameters
   * from $1), leaving the same rows as `apply` one by one would. A busy read model then costs a statement per batch
   * instead of one per event; a batch that is one such run is written together with its checkpoint in one statement.
   */
  applyRun?: Partial<Record<AnyEvent['type'], (events: StoredEvent<AnyEvent>[]) => Statement>>;
};

/** Applies events in order: runs of one type together where the projection can, the others one by one. */
export async function applyEvents(tx: pg.PoolClient, projection: Projection, events: StoredEvent<AnyEvent>[]): Promise<void> {
  for (let start = 0; start < events.length; ) {
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
