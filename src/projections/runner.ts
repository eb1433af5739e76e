import type pg from 'pg';
import { inTransaction, isDatabaseUnavailable, query } from '../db/pool.ts';
import type { AnyEvent } from '../events/all.ts';
import { parseRecorded, type StoredEvent } from '../events/event.ts';
import type { Logger } from '../logger.ts';
import { checkpointSchema, deleteCheckpoint, readCheckpoint, saveCheckpoint, saveCheckpointWith } from '../store/checkpoints.ts';
import { comparePositions, type EventStore, type Position, type RecordedEvent } from '../store/event-store.ts';
import { EventNotApplied, Subscriber, type SubscriberHealth } from '../store/subscriber.ts';
import { applyEvents, asOneStatement, type Projection } from './projection.ts';

const checkpointName = (p: Projection) => `projection:${p.name}`;

/**
 * Applies a batch and moves the checkpoint atomically: in one statement when the batch is a single run the projection
 * applies as one statement (payments created under load), else in one transaction. A batch of nothing this
 * projection handles is not parsed, and moves the checkpoint at most once a second (a restart re-reads at most that
 * second). A batch that fails (not for want of a database) is logged and applied again one event at a time, each with its
 * checkpoint, so the projection stops exactly at the event it cannot apply and names it (EventNotApplied).
 */
function batchApplier(pool: pg.Pool, projection: Projection, log: Logger) {
  return async (events: RecordedEvent[], last: Position): Promise<boolean> => {
    const relevant = events.filter(e => (projection.handles as readonly string[]).includes(e.type));
    if (relevant.length === 0) return false; // the subscriber moves the checkpoint past them now and then
    try {
      const handled = parsed(relevant);
      const together = asOneStatement(projection, handled);
      if (together) await saveCheckpointWith(pool, together, checkpointName(projection), last);
      else
        await inTransaction(pool, async tx => {
          await applyEvents(tx, projection, handled);
          await saveCheckpoint(tx, checkpointName(projection), last);
        });
    } catch (err) {
      if (isDatabaseUnavailable(err)) throw err;
      // each event alone still gets through (or names the one that cannot), but a batch should not fail: say so
      log.warn({ projection: projection.name, events: relevant.length, err }, 'projection batch failed: applying its events one at a time');
      for (const recorded of relevant) await applyAlone(pool, projection, recorded);
      await saveCheckpoint(pool, checkpointName(projection), last);
    }
    return true;
  };
}

/** One event and its checkpoint in a transaction of their own; a failure names the event. */
async function applyAlone(pool: pg.Pool, projection: Projection, recorded: RecordedEvent): Promise<void> {
  try {
    await inTransaction(pool, async tx => {
      await applyEvents(tx, projection, parsed([recorded]));
      await saveCheckpoint(tx, checkpointName(projection), recorded.position);
    });
  } catch (err) {
    throw isDatabaseUnavailable(err) ? err : new EventNotApplied(recorded, err);
  }
}

const parsed = (events: RecordedEvent[]) =>
  events.map(parseRecorded).filter((e): e is StoredEvent => e !== null) as StoredEvent<AnyEvent>[];

export async function createReadModels(pool: pg.Pool, projections: Projection[]): Promise<void> {
  await query(pool, 'CreateCheckpointTable', checkpointSchema);
  for (const p of projections) await query(pool, `CreateReadModel:${p.name}`, p.schema);
}

/** Runs every projection from its checkpoint, live; `waitFor` gives read-your-writes to the API. */
export class ProjectionRunner {
  private readonly subscribers: Subscriber[];

  constructor(
    private readonly deps: { pool: pg.Pool; store: EventStore; log: Logger },
    readonly projections: Projection[],
  ) {
    this.subscribers = projections.map(
      projection =>
        new Subscriber({
          name: checkpointName(projection),
          pool: deps.pool,
          store: deps.store,
          log: deps.log,
          handleBatch: batchApplier(deps.pool, projection, deps.log),
        }),
    );
  }

  async start(): Promise<void> {
    await createReadModels(this.deps.pool, this.projections);
    await Promise.all(this.subscribers.map(s => s.start()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.subscribers.map(s => s.stop()));
  }

  /** Every projection (or only those named) has handled every event up to `position`. */
  async waitFor(position: Position | null, timeoutMs = 5000, only?: readonly string[]): Promise<boolean> {
    if (!position) return true;
    const waiting = only ? this.subscribers.filter((_, i) => only.includes(this.projections[i]!.name)) : this.subscribers;
    const reached = await Promise.all(waiting.map(s => s.waitFor(position, timeoutMs)));
    return reached.every(Boolean);
  }

  /** Each projection's subscriber: leading, standing by, stuck at an event or waiting for its database. */
  health(): { subscriber: string; health: SubscriberHealth }[] {
    return this.subscribers.map(s => ({ subscriber: s.name, health: s.health }));
  }
}

/** Waits for a live instance of this projection, in any process, to let go of it, and holds it until the transaction ends. */
async function lockProjection(tx: pg.PoolClient, projection: Projection): Promise<void> {
  await query(tx, 'LockSubscriberForRebuild', `select pg_advisory_xact_lock(hashtextextended('subscriber:' || $1, 0))`, [
    checkpointName(projection),
  ]);
}

/** Drops a projection's tables, recreates them and replays all history into them, inside the given transaction. */
export async function replayInto(
  tx: pg.PoolClient,
  store: EventStore,
  projection: Projection,
  until: Position | null = null,
): Promise<number> {
  await lockProjection(tx, projection);
  for (const table of projection.tables) await query(tx, 'DropReadModelTable', `drop table if exists ${table} cascade`);
  await query(tx, `CreateReadModel:${projection.name}`, projection.schema);
  await deleteCheckpoint(tx, checkpointName(projection));
  let position = await readCheckpoint(tx, checkpointName(projection));
  let count = 0;
  for (;;) {
    const read = await store.readAll(position, 1000);
    const batch = until ? read.filter(e => comparePositions(e.position, until) <= 0) : read;
    if (batch.length === 0) break;
    await applyEvents(tx, projection, parsed(batch));
    count += batch.length;
    position = batch[batch.length - 1]!.position;
  }
  await saveCheckpoint(tx, checkpointName(projection), position);
  return count;
}

/** Rebuilds a read model from all history in one transaction: readers see the old rows until the new ones are complete. */
export function rebuildProjection(deps: { pool: pg.Pool; store: EventStore }, projection: Projection): Promise<number> {
  return inTransaction(deps.pool, tx => replayInto(tx, deps.store, projection));
}

async function tableRows(db: pg.PoolClient, table: string): Promise<string[]> {
  const result = await query<{ row: string }>(db, 'ReadModelRows', `select t::text as row from ${table} t order by 1`);
  return result.rows.map(r => r.row);
}

/**
 * Replays history, up to the live checkpoint, into fresh copies of a read model and compares them with the live rows, then throws the
 * copies away. Answers the tables that differ (empty when the read model is exactly what history says).
 */
export async function verifyProjection(deps: { pool: pg.Pool; store: EventStore }, projection: Projection) {
  const client = await deps.pool.connect();
  try {
    await client.query('begin');
    await lockProjection(client, projection);
    const live = new Map<string, string[]>();
    for (const table of projection.tables) live.set(table, await tableRows(client, table));
    // only as far as the live rows have got: a read model that lags is not a wrong one
    await replayInto(client, deps.store, projection, await readCheckpoint(client, checkpointName(projection)));
    const differences: { table: string; onlyLive: number; onlyReplayed: number }[] = [];
    for (const table of projection.tables) {
      const replayed = await tableRows(client, table);
      const counts = new Map<string, number>();
      for (const row of live.get(table)!) counts.set(row, (counts.get(row) ?? 0) + 1);
      for (const row of replayed) counts.set(row, (counts.get(row) ?? 0) - 1);
      const onlyLive = [...counts.values()].filter(n => n > 0).reduce((a, n) => a + n, 0);
      const onlyReplayed = [...counts.values()].filter(n => n < 0).reduce((a, n) => a - n, 0);
      if (onlyLive || onlyReplayed) differences.push({ table, onlyLive, onlyReplayed });
    }
    return differences;
  } finally {
    await client.query('rollback').catch(() => undefined);
    client.release();
  }
}
