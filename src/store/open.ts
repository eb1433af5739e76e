import type pg from 'pg';
import type { Config } from '../config.ts';
import type { EventStore } from './event-store.ts';
import { PostgresEventStore } from './postgres-event-store.ts';

/** The configured event store; EventStoreDB's client is loaded only when it is asked for. */
export async function openEventStore(
  config: Pick<Config, 'eventStore' | 'eventStoreConnectionString'>,
  pool: pg.Pool,
  options: { listen?: boolean } = {},
): Promise<EventStore> {
  if (config.eventStore === 'eventstoredb') {
    const { EventStoreDbEventStore } = await import('./eventstoredb-event-store.ts');
    return EventStoreDbEventStore.create(config.eventStoreConnectionString!);
  }
  return PostgresEventStore.create(pool, options);
}
