import type pg from 'pg';
import type { AnyEvent } from '../events/all.ts';
import type { StoredEvent } from '../events/event.ts';

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
};
