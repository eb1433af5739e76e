import type pg from 'pg';
import { query, type Queryable } from '../db/pool.ts';
import { readCheckpoint, saveCheckpoint } from '../store/checkpoints.ts';
import { comparePositions, type EventStore, type Position } from '../store/event-store.ts';
import { positionText } from '../store/subscriber.ts';
import type { Projection } from './projection.ts';
import {
  checkpointName,
  defaultPatience,
  followLive,
  GaveUpWaiting,
  liveLockHeld,
  PrivateSchema,
  SchemaReplay,
  sleep,
  type Patience,
} from './replay.ts';

/** How long the swap waits for its locks before it lets the readers queued behind it go and tries again. */
const swapLockTimeoutMs = 250;

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The schema where the service's search_path finds this table, or where it would create it. */
async function liveSchemaOf(db: Queryable, table: string): Promise<string> {
  const result = await query<{ schema: string }>(
    db,
    'FindReadModelSchema',
    `select coalesce((select n.nspname from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.oid = to_regclass($1)), current_schema()) as schema`,
    [table],
  );
  return result.rows[0]!.schema;
}

/** A lock not granted within the swap's lock_timeout, or a deadlock with a live batch: the swap tries again. */
const lockRefused = (err: unknown) => ['55P03', '40P01'].includes((err as { code?: string }).code ?? '');

/**
 * Swaps the shadow tables in, in one short transaction: the live tables locked (a live batch in flight finishes
 * first, the next waits), the shadow caught up to the live checkpoint, the tables renamed across schemas. When a live
 * instance leads the projection its checkpoint stays as it is (its subscriber goes on from where it is, over the new
 * tables); when none does, the swap holds the projection's lock so none starts meanwhile, and sets the checkpoint.
 */
async function swapOnce(
  shadow: PrivateSchema,
  replay: SchemaReplay,
  liveSchema: string,
  patience: Patience,
): Promise<void> {
  const db = shadow.client;
  const { projection } = replay;
  const retired = `${shadow.name}_retired`;
  await query(db, 'BeginSwap', 'begin');
  try {
    await query(db, 'SwapSearchPath', `set local search_path to ${shadow.name}, ${quoted(liveSchema)}`);
    await query(db, 'SwapLockTimeout', `set local lock_timeout = ${swapLockTimeoutMs}`);
    const live = projection.tables.map(t => `${quoted(liveSchema)}.${quoted(t)}`);
    const existing = (
      await query<{ t: string }>(
        db,
        'ExistingLiveTables',
        'select t from unnest($1::text[]) t where to_regclass(t) is not null',
        [live],
      )
    ).rows.map(r => r.t);
    if (existing.length > 0)
      await query(db, 'LockLiveReadModelForSwap', `lock table ${existing.join(', ')} in access exclusive mode`);
    const free = await query<{ locked: boolean }>(
      db,
      'TrySubscriberLockForSwap',
      `select pg_try_advisory_xact_lock(hashtextextended('subscriber:' || $1, 0)) as locked`,
      [checkpointName(projection)],
    );
    const led = !free.rows[0]!.locked;
    const checkpoint = await readCheckpoint(db, checkpointName(projection));
    if (led && comparePositions(replay.position, checkpoint) > 0)
      throw new Error(
        `${projection.name} began to run live during the rebuild, behind it (${positionText(checkpoint)}): run rebuild-read-models again`,
      );
    const target = led || comparePositions(checkpoint, replay.position) > 0 ? checkpoint : replay.position;
    await replay.replayTo(target, patience, true);
    await query(db, 'CreateRetiredSchema', `create schema ${retired}`);
    for (const table of existing) await query(db, 'RetireLiveTable', `alter table ${table} set schema ${retired}`);
    for (const table of projection.tables)
      await query(
        db,
        'SwapInShadowTable',
        `alter table ${shadow.name}.${quoted(table)} set schema ${quoted(liveSchema)}`,
      );
    if (!led) await saveCheckpoint(db, checkpointName(projection), target);
    await query(db, 'CommitSwap', 'commit');
  } catch (err) {
    await query(db, 'RollbackSwap', 'rollback').catch(() => undefined);
    throw err;
  }
  await query(db, 'DropRetiredTables', `drop schema ${retired} cascade`).catch(() => undefined); // swapped already: close() tries again
}

/**
 * Rebuilds a read model from history while the service serves the live one: replays into shadow tables (following the
 * live checkpoint when a live instance leads the projection, else up to the log's head), then swaps them in. The swap
 * takes its locks for at most a moment at a time; waiting longer than the patience gives up (GaveUpWaiting).
 * Answers how many events were replayed.
 */
export async function rebuildProjection(
  deps: { pool: pg.Pool; store: EventStore },
  projection: Projection,
  options: { head?: Position; patience?: Patience } = {},
): Promise<number> {
  const patience = options.patience ?? defaultPatience;
  const head = options.head ?? (await deps.store.headPosition());
  const liveSchema = await liveSchemaOf(deps.pool, projection.tables[0]!);
  const shadow = await PrivateSchema.open(deps.pool, 'rebuild');
  try {
    const replay = new SchemaReplay(shadow, deps.store, projection);
    await replay.createTables();
    const started = Date.now();
    let said = false;
    for (;;) {
      // most of the replay happens here, outside the swap, so that the swap itself has little left to apply
      if (await liveLockHeld(deps.pool, projection)) await followLive(deps.pool, replay, null, patience);
      else await replay.replayTo(head, patience);
      try {
        await swapOnce(shadow, replay, liveSchema, patience);
        return replay.applied;
      } catch (err) {
        if (!lockRefused(err)) throw err;
      }
      const what = `the transactions using ${projection.tables.join(', ')} to end, to swap in the rebuilt tables`;
      if (Date.now() - started >= patience.timeoutMs)
        throw new GaveUpWaiting(`gave up after ${patience.timeoutMs / 1000} s waiting for ${what}`);
      if (!said) {
        said = true;
        patience.waiting(what);
      }
      await sleep(100);
    }
  } finally {
    await shadow.close();
  }
}
