import { preparedQuery, query, type Queryable, type Statement } from '../db/pool.ts';
import { START, type Position } from './event-store.ts';
import { subscriberFailureSchema } from './subscriber-failures.ts';

/**
 * Where each projection and saga is in "all", and the event each one is stuck at, if any. Lives in PostgreSQL beside
 * the read models, whatever the event store.
 */
export const checkpointSchema = `
create table if not exists subscriber_checkpoints (
  name text primary key,
  commit_position numeric(20, 0) not null,
  prepare_position numeric(20, 0) not null
);
${subscriberFailureSchema}`;

export async function readCheckpoint(db: Queryable, name: string): Promise<Position> {
  const result = await query<{ commit_position: string; prepare_position: string }>(
    db,
    'ReadCheckpoint',
    'select commit_position::text, prepare_position::text from subscriber_checkpoints where name = $1',
    [name],
  );
  const row = result.rows[0];
  return row ? { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) } : START;
}

/**
 * How a checkpoint's transaction commits. 'flushed': it returns once its WAL is on disk (PostgreSQL's default).
 * 'lazy': it returns without waiting (synchronous_commit off for that transaction alone, flushed by the WAL writer
 * within a few hundred ms), for what the log can give again: a read model's rows with their checkpoint, the position
 * of events passed by. A crash may lose the last such commits, each whole and after every flushed one; the subscriber
 * then reads those events again from the checkpoint that survived. Events themselves are always flushed.
 */
export type CheckpointCommit = 'flushed' | 'lazy';

/** Opens a transaction that commits lazily (CheckpointCommit), for inTransaction. */
export const lazyTransaction = 'BEGIN; SET LOCAL synchronous_commit TO off';

/** The upsert of a checkpoint, its name and position the parameters from $`first`. */
const upsertCheckpoint = (first: number, commit: CheckpointCommit) =>
  `insert into subscriber_checkpoints (name, commit_position, prepare_position)
   ${commit === 'lazy' ? `select $${first}, $${first + 1}, $${first + 2} from (select set_config('synchronous_commit', 'off', true)) as lazy_commit` : `values ($${first}, $${first + 1}, $${first + 2})`}
   on conflict (name) do update set commit_position = excluded.commit_position, prepare_position = excluded.prepare_position`;

const positionParams = (name: string, position: Position) => [
  name,
  position.commit.toString(),
  position.prepare.toString(),
];

export async function saveCheckpoint(
  db: Queryable,
  name: string,
  position: Position,
  commit: CheckpointCommit = 'flushed',
): Promise<void> {
  await query(db, 'SaveCheckpoint', upsertCheckpoint(1, commit), positionParams(name, position));
}

/**
 * Moves the checkpoint to `position` unless it is there or further already: for a save made outside the subscriber's
 * flow of batches (the flush of a position passed by), which a batch's own save may overtake.
 */
export async function saveCheckpointForward(
  db: Queryable,
  name: string,
  position: Position,
  commit: CheckpointCommit = 'flushed',
): Promise<void> {
  await query(
    db,
    'SaveCheckpointForward',
    `${upsertCheckpoint(1, commit)}
     where (subscriber_checkpoints.commit_position, subscriber_checkpoints.prepare_position) < (excluded.commit_position, excluded.prepare_position)`,
    positionParams(name, position),
  );
}

/**
 * Runs a data-modifying statement (INSERT, UPDATE or DELETE) and saves the checkpoint in the same statement: both or
 * neither, in one round trip and without an explicit transaction (whose open transaction id would hold readers of
 * "all" back meanwhile). The checkpoint is the statement's first common table expression, so a statement with WITH
 * clauses of its own (PostgreSQL allows data-modifying ones only at the top level) joins it.
 */
export async function saveCheckpointWith(
  db: Queryable,
  statement: Statement,
  name: string,
  position: Position,
  commit: CheckpointCommit = 'flushed',
): Promise<void> {
  const checkpoint = `checkpoint as (${upsertCheckpoint(statement.params.length + 1, commit)})`;
  const sql = statement.sql.trimStart();
  const ownWith = /^with\s/i.exec(sql);
  await preparedQuery(
    db,
    `${statement.name}+SaveCheckpoint`,
    ownWith ? `with ${checkpoint}, ${sql.slice(ownWith[0].length)}` : `with ${checkpoint}\n${sql}`,
    [...statement.params, ...positionParams(name, position)],
  );
}

export async function deleteCheckpoint(db: Queryable, name: string): Promise<void> {
  await query(db, 'DeleteCheckpoint', 'delete from subscriber_checkpoints where name = $1', [name]);
}

export async function listCheckpoints(db: Queryable): Promise<{ name: string; position: Position }[]> {
  const result = await query<{ name: string; commit_position: string; prepare_position: string }>(
    db,
    'ListCheckpoints',
    'select name, commit_position::text, prepare_position::text from subscriber_checkpoints order by name',
  );
  return result.rows.map(r => ({
    name: r.name,
    position: { commit: BigInt(r.commit_position), prepare: BigInt(r.prepare_position) },
  }));
}
