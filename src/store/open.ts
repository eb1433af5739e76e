import type pg from 'pg';
import type { Config } from '../config.ts';
import { createLogger, type Logger } from '../logger.ts';
import type { EventStore } from './event-store.ts';
import { PostgresEventStore } from './postgres-event-store.ts';

/** The first connection to KurrentDB is tried this many times, waiting twice as long each time up to the cap (about a minute in all). */
const CONNECT_TRIES = 10;
const FIRST_WAIT_MS = 500;
const LONGEST_WAIT_MS = 10_000;

/**
 * The configured event store; KurrentDB's client is loaded only when it is asked for. A KurrentDB that does not
 * answer yet (started with the service, say) is tried again with a growing pause and a log line each time; one that
 * cannot serve this service (too old, a wrong connection string) fails at once.
 */
export async function openEventStore(
  config: Pick<Config, 'eventStore' | 'eventStoreConnectionString' | 'logLevel'>,
  pool: pg.Pool,
  options: { listen?: boolean; log?: Logger; wait?: (ms: number) => Promise<void> } = {},
): Promise<EventStore> {
  if (config.eventStore !== 'eventstoredb') return PostgresEventStore.create(pool, options);
  const { EventStoreDbEventStore, EventStoreUnusable } = await import('./eventstoredb-event-store.ts');
  const log = options.log ?? createLogger(config.logLevel);
  const wait = options.wait ?? ((ms: number) => new Promise<void>(resolve => setTimeout(resolve, ms)));
  for (let attempt = 1; ; attempt++) {
    try {
      return await EventStoreDbEventStore.create(config.eventStoreConnectionString!);
    } catch (err) {
      if (err instanceof EventStoreUnusable || attempt >= CONNECT_TRIES) throw err;
      const waitMs = Math.min(FIRST_WAIT_MS * 2 ** (attempt - 1), LONGEST_WAIT_MS);
      log.warn(
        { err, attempt, of: CONNECT_TRIES, retryInMs: waitMs },
        `event store (KurrentDB) not reachable, try ${attempt} of ${CONNECT_TRIES}; next in ${waitMs} ms`,
      );
      await wait(waitMs);
    }
  }
}
