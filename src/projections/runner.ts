import type pg from 'pg';
import { inTransaction, query } from '../db/pool.ts';
import type { AnyEvent } from '../events/all.ts';
import { parseRecorded, type StoredEvent } from '../events/event.ts';
import type { Logger } from '../logger.ts';
import { checkpointSchema, deleteCheckpoint, readCheckpoint, saveCheckpoint } from '../store/checkpoints.ts';
import type { EventStore, Position, RecordedEvent } from '../store/event-store.ts';
import { Subscriber } from '../store/subscriber.ts';
import type { Projection } from './projection.ts';

const checkpointName = (p: Projection) => `projection:${p.name}`;

async function applyBatch(pool: pg.Pool, projection: Projection, events: RecordedEvent[], last: Position) {
  await inTransaction(pool, async tx => {
    for (const recorded of events) {
      const event = parseRecorded(recorded);
      if (event) await projection.apply(tx, event as StoredEvent<AnyEvent>);
    }
    await saveCheckpoint(tx, checkpointName(projection), last);
  });
}

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
          handleBatch: (events, last) => applyBatch(deps.pool, projection, events, last),
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

  /** Every projection has handled every event up to `position`. */
  async waitFor(position: Position | null, timeoutMs = 5000): Promise<boolean> {
    if (!position) return true;
    const reached = await Promise.all(this.subscribers.map(s => s.waitFor(position, timeoutMs)));
    return reached.every(Boolean);
  }

  get healthy(): boolean {
    return this.subscribers.every(s => s.lastError === null);
  }
}

/**
 * Drops a projection's tables, recreates them and replays all history into them, in one transaction:
 * readers see the old rows until the new ones are complete. Run it with the projection stopped.
 */
export async function rebuildProjection(deps: { pool: pg.Pool; store: EventStore }, projection: Projection): Promise<number> {
  return inTransaction(deps.pool, async tx => {
    // waits for a live instance of this projection, in any process, to let go of it
    await query(tx, 'LockSubscriberForRebuild', `select pg_advisory_xact_lock(hashtextextended('subscriber:' || $1, 0))`, [
      checkpointName(projection),
    ]);
    for (const table of projection.tables) await query(tx, 'DropReadModelTable', `drop table if exists ${table} cascade`);
    await query(tx, `CreateReadModel:${projection.name}`, projection.schema);
    await deleteCheckpoint(tx, checkpointName(projection));
    let position = await readCheckpoint(tx, checkpointName(projection));
    let count = 0;
    for (;;) {
      const batch = await deps.store.readAll(position, 1000);
      if (batch.length === 0) break;
      for (const recorded of batch) {
        const event = parseRecorded(recorded);
        if (event) await projection.apply(tx, event as StoredEvent<AnyEvent>);
      }
      count += batch.length;
      position = batch[batch.length - 1]!.position;
    }
    await saveCheckpoint(tx, checkpointName(projection), position);
    return count;
  });
}
