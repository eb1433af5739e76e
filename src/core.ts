import type pg from 'pg';
import type { Clock } from './clock.ts';
import { stateCache, type StateCache } from './store/commands/state-cache.ts';
import type { Config } from './config.ts';
import { createPool } from './db/pool.ts';
import { watchDatabase, type DatabaseWatch } from './db/watch.ts';
import type { Logger } from './logger.ts';
import { createMetrics, observeSources, type ServiceMetrics } from './metrics.ts';
import { unreachableProviders, type ProviderConnector } from './providers/connector.ts';
import { httpConnector, type HttpConnectorOptions } from './providers/http-connector.ts';
import { credentialVault, type CredentialVault } from './security/credentials.ts';
import type { EventStore } from './store/event-store.ts';
import { openEventStore } from './store/open.ts';
import { postgresSnapshots, type SnapshotStore } from './store/snapshots.ts';

/** What one thread of the service holds: its database pool, event store, caches and provider connector. */
export type Core = {
  pool: pg.Pool;
  /** Says in the log when the database stops and starts answering; counts the calls refused meanwhile. */
  database: DatabaseWatch;
  store: EventStore;
  snapshots: SnapshotStore;
  cache: StateCache;
  connector: ProviderConnector;
  vault: CredentialVault;
  clock: Clock;
  log: Logger;
  /** Prometheus metrics of this thread (GET /metrics). */
  metrics: ServiceMetrics;
};

/** The database pool, event store, caches and provider connector of one thread, on the given database and provider. */
export async function openCore(
  config: Config,
  dbUrl: string,
  providerUrl: string | null,
  options: { clock: Clock; log: Logger; connector?: Omit<HttpConnectorOptions, 'baseUrl'> },
): Promise<Core> {
  const pool = createPool(dbUrl, config.databasePoolMax);
  const store = await openEventStore(config, pool);
  const snapshots = await postgresSnapshots(pool);
  const connector: ProviderConnector = providerUrl
    ? httpConnector({ baseUrl: providerUrl, ...options.connector })
    : unreachableProviders;
  const metrics = createMetrics();
  observeSources(metrics, { pool, store, clock: options.clock, log: options.log });
  return {
    pool,
    database: watchDatabase(pool, options.log),
    store,
    snapshots,
    cache: stateCache(),
    connector,
    vault: credentialVault(config.encryptionKey),
    clock: options.clock,
    log: options.log,
    metrics,
  };
}
