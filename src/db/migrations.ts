import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from '../logger.ts';
import { checkpointSchema } from '../store/checkpoints.ts';
import { query, type Queryable } from './pool.ts';

/**
 * One unit of start-up DDL as numbered steps: step n runs once, after step n-1, each in a transaction with its row in
 * schema_migrations (unit, step, checksum of its text). A change to a schema is a new step at the end of its unit; a
 * step once released is never edited (src/db/migration-steps.json pins their checksums, and a test fails when one
 * changes). A step found recorded with another checksum (edited anyway) is run again: the steps written before the
 * numbering are idempotent (`create … if not exists`, `add column if not exists`, `create or replace`), and run on a
 * database that had them. A unit another tool migrates (graphile-worker's schema) is run by `apply` instead, on
 * another connection of the pool, and says its `version`: a new version runs it again.
 */
export type Migration =
  { name: string; steps: readonly string[] } | { name: string; version: string; apply(pool: pg.Pool): Promise<void> };

/** Where each subscriber is in "all" (src/store/checkpoints.ts): projections, sagas and the audit's subscribers share it. */
export const checkpointMigration: Migration = { name: 'subscriber-checkpoints', steps: [checkpointSchema] };

/** The read model of a projection is a unit of its own: its schema's steps. */
export const readModelMigration = (projection: { name: string; schema: readonly string[] }): Migration => ({
  name: `read-model:${projection.name}`,
  steps: projection.schema,
});

/**
 * One session-level lock for all DDL of every instance and the CLI: two processes creating the same table at once
 * collide on the catalog (23505 on pg_type_typname_nsp_index), and `create or replace function` is not safe against
 * itself. A session lock, not a transaction's: it holds across the units, each applied and recorded in its own
 * transaction.
 */
const lockKey = `hashtextextended('schema-migrations', 0)`;

const versionTable = `
create table if not exists schema_migrations (
  name text not null,
  step int not null,
  -- sha256 of the step's DDL text (or of its unit's version)
  checksum text not null,
  applied_at timestamptz not null default now(),
  primary key (name, step)
);
-- a table of the units before their steps were numbered (one row per unit): its rows become step 1 of their unit
-- (altered only then: a role that does not own the table may run the rest)
do $$ begin
  if not exists (select 1 from information_schema.columns
                  where table_schema = current_schema() and table_name = 'schema_migrations' and column_name = 'step') then
    alter table schema_migrations add column step int not null default 1;
    alter table schema_migrations drop constraint schema_migrations_pkey, add primary key (name, step);
  end if;
end $$;`;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A unit's steps as recorded: number (from 1), text and checksum; a versioned unit is one step, its version. */
const stepsOf = (m: Migration) =>
  ('steps' in m ? m.steps : [m.version]).map((text, i) => ({ step: i + 1, text, checksum: sha256(text) }));
const key = (m: Migration) =>
  `${m.name}\u0000${stepsOf(m)
    .map(s => s.checksum)
    .join(',')}`;

/** A unit listed twice (the endpoints' read model is the projections' and the webhooks') is applied once. */
const distinct = (units: readonly Migration[]) => [...new Map(units.map(u => [u.name, u])).values()];

/** Units found applied as they are, per pool: a call site asks the database once per unit and process. */
const known = new WeakMap<pg.Pool, Set<string>>();

/** The units with a step not recorded as it is (all of them before the first start). */
async function pending(db: Queryable, units: readonly Migration[]): Promise<Migration[]> {
  try {
    const recorded = await query<{ name: string; step: number; checksum: string }>(
      db,
      'ReadSchemaMigrations',
      'select name, step, checksum from schema_migrations where name = any($1::text[])',
      [units.map(u => u.name)],
    );
    const applied = new Set(recorded.rows.map(r => `${r.name}\u0000${r.step}\u0000${r.checksum}`));
    return units.filter(u => stepsOf(u).some(s => !applied.has(`${u.name}\u0000${s.step}\u0000${s.checksum}`)));
  } catch (err) {
    // no version table (nothing ran yet), or one from before the steps (no column step): every unit is looked at
    if (['42P01', '42703'].includes((err as { code?: string }).code ?? '')) return [...units];
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
      unlocked = await query(client, 'UnlockSchemaMigrations', `select pg_advisory_unlock(${lockKey})`).then(
        () => true,
        () => false,
      );
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

/** The steps of a unit recorded as they are now. */
async function recordedSteps(client: pg.PoolClient, unit: Migration): Promise<Set<string>> {
  const rows = await query<{ step: number; checksum: string }>(
    client,
    'ReadUnitSteps',
    'select step, checksum from schema_migrations where name = $1',
    [unit.name],
  );
  return new Set(rows.rows.map(r => `${r.step}\u0000${r.checksum}`));
}

/** Under the lock: each unit's steps not recorded as they are, in order, each in a transaction with its row. */
export async function applyPending(
  pool: pg.Pool,
  client: pg.PoolClient,
  units: readonly Migration[],
  log?: Logger,
): Promise<string[]> {
  await query(client, 'CreateSchemaMigrations', versionTable);
  const todo = await pending(client, distinct(units));
  for (const unit of todo) {
    const started = performance.now();
    const recorded = await recordedSteps(client, unit);
    const steps = stepsOf(unit).filter(s => !recorded.has(`${s.step}\u0000${s.checksum}`));
    for (const step of steps) {
      if ('apply' in unit) await unit.apply(pool);
      await inSessionTransaction(client, async () => {
        if ('steps' in unit) await query(client, `Migrate:${unit.name}:${step.step}`, step.text);
        await query(
          client,
          'RecordSchemaMigration',
          `insert into schema_migrations (name, step, checksum) values ($1, $2, $3)
           on conflict (name, step) do update set checksum = excluded.checksum, applied_at = now()`,
          [unit.name, step.step, step.checksum],
        );
      });
    }
    log?.debug(
      { migration: unit.name, steps: steps.map(s => s.step), ms: Math.round(performance.now() - started) },
      `schema: applied ${unit.name}`,
    );
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
  const applied =
    (await pending(pool, unseen)).length === 0
      ? []
      : await withMigrationLock(pool, client => applyPending(pool, client, unseen, log));
  for (const unit of unseen) seen.add(key(unit));
  return applied;
}
