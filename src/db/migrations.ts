import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from '../logger.ts';
import { checkpointSchema } from '../store/checkpoints.ts';
import { query, type Queryable } from './pool.ts';

/**
 * One unit of start-up DDL, idempotent (`create … if not exists`, `create or replace`): applied on an empty database,
 * skipped by later starts while its text is unchanged, applied again when it changes. A unit another tool migrates
 * (graphile-worker's schema) is run by `apply` instead, on another connection of the pool, and says its `version`.
 */
export type Migration = { name: string; sql: string } | { name: string; version: string; apply(pool: pg.Pool): Promise<void> };

/** Where each subscriber is in "all" (src/store/checkpoints.ts): projections, sagas and the audit's subscribers share it. */
export const checkpointMigration: Migration = { name: 'subscriber-checkpoints', sql: checkpointSchema };

/** The read model of a projection is a unit of its own. */
export const readModelMigration = (projection: { name: string; schema: string }): Migration => ({ name: `read-model:${projection.name}`, sql: projection.schema });

/**
 * One session-level lock for all DDL of every instance and the CLI: two processes creating the same table at once
 * collide on the catalog (23505 on pg_type_typname_nsp_index), and `create or replace function` is not safe against
 * itself. A session lock, not a transaction's: it holds across the units, each applied and recorded in its own
 * transaction.
 */
const lockKey = `hashtextextended('schema-migrations', 0)`;

const versionTable = `
create table if not exists schema_migrations (
  name text primary key,
  -- sha256 of the unit's DDL text (or of its version)
  checksum text not null,
  applied_at timestamptz not null default now()
);`;

const checksum = (m: Migration) => createHash('sha256').update('sql' in m ? m.sql : m.version).digest('hex');
const key = (m: Migration) => `${m.name}\u0000${checksum(m)}`;

/** A unit listed twice (the endpoints' read model is the projections' and the webhooks') is applied once. */
const distinct = (units: readonly Migration[]) => [...new Map(units.map(u => [u.name, u])).values()];

/** Units found applied as they are, per pool: a call site asks the database once per unit and process. */
const known = new WeakMap<pg.Pool, Set<string>>();

/** The units whose recorded checksum differs from theirs, or that have none (all of them before the first start). */
async function pending(db: Queryable, units: readonly Migration[]): Promise<Migration[]> {
  try {
    const recorded = await query<{ name: string; checksum: string }>(
      db,
      'ReadSchemaMigrations',
      'select name, checksum from schema_migrations where name = any($1::text[])',
      [units.map(u => u.name)],
    );
    const applied = new Set(recorded.rows.map(r => `${r.name}\u0000${r.checksum}`));
    return units.filter(u => !applied.has(key(u)));
  } catch (err) {
    if ((err as { code?: string }).code === '42P01') return [...units]; // no version table: nothing ran yet
    throw err;
  }
}

/**
 * Runs `work` holding the migration lock on a connection of its own, taken from `pool` (waiting while another process
 * holds it), and releases it after. A connection whose unlock failed is discarded, so the lock never stays with the pool.
 */
export async function withMigrationLock<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let unlocked = false;
  try {
    await query(client, 'LockSchemaMigrations', `select pg_advisory_lock(${lockKey})`);
    try {
      return await work(client);
    } finally {
      unlocked = await query(client, 'UnlockSchemaMigrations', `select pg_advisory_unlock(${lockKey})`).then(() => true, () => false);
    }
  } finally {
    client.release(!unlocked);
  }
}

/** A transaction on the locked connection itself (src/db/pool.ts inTransaction takes one from the pool). */
export async function inSessionTransaction(client: pg.PoolClient, work: () => Promise<void>): Promise<void> {
  await query(client, 'BeginMigration', 'begin');
  try {
    await work();
    await query(client, 'CommitMigration', 'commit');
  } catch (err) {
    await query(client, 'RollbackMigration', 'rollback').catch(() => undefined);
    throw err;
  }
}

/** Under the lock: the units not applied as they are, each in a transaction with its row in schema_migrations. */
export async function applyPending(pool: pg.Pool, client: pg.PoolClient, units: readonly Migration[], log?: Logger): Promise<string[]> {
  await query(client, 'CreateSchemaMigrations', versionTable);
  const todo = await pending(client, distinct(units));
  for (const unit of todo) {
    const started = performance.now();
    if ('apply' in unit) await unit.apply(pool);
    await inSessionTransaction(client, async () => {
      if ('sql' in unit) await query(client, `Migrate:${unit.name}`, unit.sql);
      await query(
        client,
        'RecordSchemaMigration',
        `insert into schema_migrations (name, checksum) values ($1, $2)
         on conflict (name) do update set checksum = excluded.checksum, applied_at = now()`,
        [unit.name, checksum(unit)],
      );
    });
    log?.info({ migration: unit.name, ms: Math.round(performance.now() - started) }, `schema: applied ${unit.name}`);
  }
  return todo.map(u => u.name);
}

/**
 * Brings `units` up to date: nothing to do (the usual start) costs one read of schema_migrations, without the lock;
 * else the lock is taken, what is still pending looked up again (another instance may have applied it meanwhile) and
 * applied. Answers the names of the units applied here.
 */
export async function migrate(pool: pg.Pool, units: readonly Migration[], log?: Logger): Promise<string[]> {
  const seen = known.get(pool) ?? new Set<string>();
  known.set(pool, seen);
  const unseen = distinct(units).filter(u => !seen.has(key(u)));
  if (unseen.length === 0) return [];
  const applied = (await pending(pool, unseen)).length === 0 ? [] : await withMigrationLock(pool, client => applyPending(pool, client, unseen, log));
  for (const unit of unseen) seen.add(key(unit));
  return applied;
}
