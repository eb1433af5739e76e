import type pg from 'pg';
import { query, type Queryable } from '../db/pool.ts';
import { readCheckpoint } from '../store/checkpoints.ts';
import { comparePositions, type EventStore, type Position } from '../store/event-store.ts';
import type { Projection } from './projection.ts';
import {
  checkpointName,
  defaultPatience,
  followLive,
  isLedLive,
  PrivateSchema,
  SchemaReplay,
  type Patience,
} from './replay.ts';

/** A table whose live rows are not what history says: how many rows only it has, and how many only the replay has. */
export type ReadModelDifference = { table: string; onlyLive: number; onlyReplayed: number };

/** What a verification found, and as of which position of "all" it compared (the live rows' own checkpoint). */
export type Verification = { differences: ReadModelDifference[]; asOf: Position; head: Position; led: boolean };

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A table's columns in order, or null when it does not exist (`table` as the connection's search_path finds it). */
async function columnsOf(db: Queryable, table: string): Promise<string[] | null> {
  const result = await query<{ name: string }>(
    db,
    'ReadModelColumns',
    'select attname as name from pg_attribute where attrelid = to_regclass($1) and attnum > 0 and not attisdropped order by attnum',
    [table],
  );
  return result.rowCount === 0 ? null : result.rows.map(r => r.name);
}

/** Those of these tables that exist, as the connection's search_path finds them (read before the snapshot's transaction begins). */
async function existingTables(db: Queryable, tables: string[]): Promise<string[]> {
  const result = await query<{ name: string }>(
    db,
    'ExistingReadModelTables',
    'select t as name from unnest($1::text[]) t where to_regclass(t) is not null',
    [tables],
  );
  return result.rows.map(r => r.name);
}

/** The rows as text, every column in the given order, so that a live table and its replay compare column by column. */
const rowsAs = (table: string, columns: string[]) =>
  `select row(${columns.map(quoted).join(', ')})::text as r from ${table}`;

/** Row count and an order-free sum of the rows' hashes: equal multisets of rows give equal sums. */
async function digestOf(db: Queryable, table: string, columns: string[]): Promise<string> {
  const result = await query<{ digest: string }>(
    db,
    'ReadModelDigest',
    `select count(*)::text || ':' || coalesce(sum(('x' || left(md5(r), 15))::bit(60)::int8), 0)::text as digest from (${rowsAs(table, columns)}) t`,
  );
  return result.rows[0]!.digest;
}

async function rowsOf(db: Queryable, table: string, columns: string[]): Promise<string[]> {
  return (await query<{ r: string }>(db, 'ReadModelRows', rowsAs(table, columns))).rows.map(row => row.r);
}

/** Rows of a table the retention may have deleted by a time: the projection's condition, and that time. */
type Prunable = { condition: string; at: Date };

/** The replayed rows, each with whether the retention may have deleted it from the live table (never without `prunable`). */
async function replayedRowsOf(db: Queryable, table: string, columns: string[], prunable: Prunable | null) {
  const r = await query<{ r: string; prunable: boolean }>(
    db,
    'ReplayedReadModelRows',
    `select row(${columns.map(quoted).join(', ')})::text as r, coalesce(${prunable?.condition ?? 'false'}, false) as prunable from ${table}`,
    prunable ? [prunable.at] : [],
  );
  return r.rows;
}

/**
 * Compares a table row for row: by digest first, and only when they differ, every row. A row only the replay has is
 * no difference when it is prunable: the retention has deleted it from the live table, as it may.
 */
async function compareTable(
  live: Queryable,
  replayed: Queryable,
  table: string,
  prunable: Prunable | null,
): Promise<ReadModelDifference | null> {
  const columns = (await columnsOf(replayed, table))!;
  const liveColumns = await columnsOf(live, table);
  if (liveColumns === null) {
    // a missing live table holds no rows
    const n = (await replayedRowsOf(replayed, table, columns, prunable)).filter(row => !row.prunable).length;
    return n === 0 ? null : { table, onlyLive: 0, onlyReplayed: n };
  }
  if (liveColumns.length !== columns.length || !columns.every(c => liveColumns.includes(c))) {
    const [a, b] = [await rowsOf(live, table, liveColumns), await rowsOf(replayed, table, columns)];
    return { table, onlyLive: a.length, onlyReplayed: b.length }; // other columns: no row can be the same
  }
  if ((await digestOf(live, table, columns)) === (await digestOf(replayed, table, columns))) return null;
  const counts = new Map<string, number>();
  const pruned = new Set<string>();
  for (const row of await rowsOf(live, table, columns)) counts.set(row, (counts.get(row) ?? 0) + 1);
  for (const row of await replayedRowsOf(replayed, table, columns, prunable)) {
    counts.set(row.r, (counts.get(row.r) ?? 0) - 1);
    if (row.prunable) pruned.add(row.r);
  }
  const onlyLive = [...counts.values()].filter(n => n > 0).reduce((a, n) => a + n, 0);
  const onlyReplayed = [...counts].filter(([row, n]) => n < 0 && !pruned.has(row)).reduce((a, [, n]) => a - n, 0);
  return onlyLive || onlyReplayed ? { table, onlyLive, onlyReplayed } : null;
}

/**
 * Replays history into a scratch schema and compares it with the live read model, while the service runs, taking no
 * lock of the live projection. The live rows are read in one repeatable-read snapshot together with their checkpoint,
 * and the replay goes exactly that far: both are then the fold of the same events. When a live instance leads the
 * projection, that checkpoint is first awaited at or past `head` (the log's head when the verification began), so the
 * verification covers everything recorded before it started; when nothing leads it (or it is stuck), it compares as
 * far as the live rows have got (a read model that lags is not a wrong one). Rows the projection declares prunable by
 * `now` (the wall clock's, the system's unless given) and only the replay has are left out: the retention deleted them.
 */
export async function verifyAgainstHistory(
  deps: { pool: pg.Pool; store: EventStore },
  projection: Projection,
  options: { head?: Position; patience?: Patience; now?: Date } = {},
): Promise<Verification> {
  const patience = options.patience ?? defaultPatience;
  const head = options.head ?? (await deps.store.headPosition());
  const scratch = await PrivateSchema.open(deps.pool, 'verify');
  try {
    const replay = new SchemaReplay(scratch, deps.store, projection);
    await replay.createTables();
    const led = await isLedLive(deps.pool, projection);
    if (led) await followLive(deps.pool, replay, head, patience);
    const live = await deps.pool.connect();
    try {
      // read-only: no transaction id, so the snapshot holds no reader of "all" back however long the comparison takes
      const existing = await existingTables(live, projection.tables);
      await query(live, 'BeginLiveSnapshot', 'begin isolation level repeatable read read only');
      // locked before the snapshot is taken (LOCK takes none): a rebuild's swap cannot put in tables this snapshot would see empty
      if (existing.length > 0)
        await query(live, 'LockLiveReadModel', `lock table ${existing.join(', ')} in access share mode`);
      const asOf = await readCheckpoint(live, checkpointName(projection));
      if (comparePositions(asOf, replay.position) < 0)
        throw new Error(`the live checkpoint of ${projection.name} moved back during the verification`);
      await replay.replayTo(asOf, patience);
      const differences: ReadModelDifference[] = [];
      for (const table of projection.tables) {
        const condition = projection.prunable?.[table];
        const prunable = condition ? { condition, at: options.now ?? new Date() } : null;
        const difference = await compareTable(live, scratch.client, table, prunable);
        if (difference) differences.push(difference);
      }
      return { differences, asOf, head, led };
    } finally {
      await query(live, 'EndLiveSnapshot', 'rollback').catch(() => undefined);
      live.release();
    }
  } finally {
    await scratch.close();
  }
}

/** The tables that differ from history (empty when the read model is exactly what history says). */
export async function verifyProjection(
  deps: { pool: pg.Pool; store: EventStore },
  projection: Projection,
  options: { head?: Position; patience?: Patience; now?: Date } = {},
) {
  return (await verifyAgainstHistory(deps, projection, options)).differences;
}
