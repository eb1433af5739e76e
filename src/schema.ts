import type pg from 'pg';
import { dailyDigestsMigration } from './audit/digests.ts';
import { ledgerCheckpointsMigration } from './audit/ledger-checkpoint-rows.ts';
import { ledgerCosignaturesMigration } from './audit/cosignatures.ts';
import { ledgerIntegrityMigration } from './audit/ledger-integrity.ts';
import type { Config } from './config.ts';
import { checkpointMigration, migrate, readModelMigration, type Migration } from './db/migrations.ts';
import { createPool } from './db/pool.ts';
import { attemptCountsMigration } from './db/attempt-counts.ts';
import { ledgerGuardMigration } from './db/ledger-guard.ts';
import { queueRunnersMigration } from './db/queue-liveness.ts';
import { paymentCheckHandoversMigration } from './background/payment-checks.ts';
import { paymentCheckSignalsMigration } from './background/payment-check-signals.ts';
import { providerNotificationsMigration } from './db/provider-notification-ids.ts';
import type { Logger } from './logger.ts';
import { projections } from './projections/all.ts';
import { eventStoreMigrations } from './store/postgres-event-store.ts';
import { eventLogMigration, eventStreamsMigration } from './store/postgres-schema.ts';
import { snapshotMigration } from './store/snapshots.ts';
import { webhookMigrations } from './webhooks/schema.ts';

/** The units after the event store's, in the order a start applies them. */
const serviceUnits: readonly Migration[] = [
  checkpointMigration,
  snapshotMigration,
  ...projections.map(readModelMigration),
  ...webhookMigrations,
  queueRunnersMigration,
  dailyDigestsMigration,
  ledgerGuardMigration,
  ledgerCheckpointsMigration,
  ledgerCosignaturesMigration,
  ledgerIntegrityMigration,
  attemptCountsMigration,
  paymentCheckHandoversMigration,
  paymentCheckSignalsMigration,
  providerNotificationsMigration,
];

/** Every unit the service may run, its own and the event store's: their released steps are pinned (src/db/migration-steps.json). */
export const allMigrations: readonly Migration[] = [eventLogMigration, eventStreamsMigration, ...serviceUnits];

/**
 * Every unit of DDL the service runs as it starts, in order; each part of the service still brings its own units up
 * to date where it is used (a CLI command, a test), which after this costs one read of schema_migrations.
 */
export async function startUpMigrations(pool: pg.Pool, config: Pick<Config, 'eventStore'>): Promise<Migration[]> {
  return [...(config.eventStore === 'postgres' ? await eventStoreMigrations(pool) : []), ...serviceUnits];
}

/**
 * Brings the schema up to date before anything else starts, on a pool of its own (the lock's connection, and one for
 * graphile-worker's migrations): any number of instances may start together (src/db/migrations.ts).
 */
export async function migrateForStartUp(
  url: string,
  config: Pick<Config, 'eventStore'>,
  log: Logger,
): Promise<string[]> {
  const pool = createPool(url, 2);
  const started = performance.now();
  try {
    const applied = await migrate(pool, await startUpMigrations(pool, config), log);
    // one line for a start: each unit's own is at debug
    if (applied.length > 0)
      log.info(
        { migrations: applied, ms: Math.round(performance.now() - started) },
        `schema: ${applied.length} unit(s) brought up to date`,
      );
    return applied;
  } finally {
    await pool.end();
  }
}
