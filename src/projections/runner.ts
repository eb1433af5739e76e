import type pg from 'pg';
import { announceChanges } from '../db/checkpoint-notifications.ts';
import { checkpointMigration, migrate, readModelMigration } from '../db/migrations.ts';
import { inTransaction, isDatabaseUnavailable } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import { lazyTransaction, saveCheckpoint, saveCheckpointWith } from '../store/checkpoints.ts';
import { type EventStore, type Position, type RecordedEvent } from '../store/event-store.ts';
import { EventNotApplied, Subscriber, type SubscriberHealth } from '../store/subscriber.ts';
import { applyEvents, asOneStatement, type Projection } from './projection.ts';
import { checkpointName, parsed } from './replay.ts';

/**
 * Applies a batch and moves the checkpoint atomically: in one statement when the batch is a single run the projection
 * applies as one statement (payments created under load), else in one transaction; committed lazily (a read model and
 * its checkpoint are given again by the log: CheckpointCommit). A batch of nothing this
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
      if (together) await saveCheckpointWith(pool, together, checkpointName(projection), last, 'lazy');
      else
        await inTransaction(
          pool,
          async tx => {
            await applyEvents(tx, projection, handled);
            await saveCheckpoint(tx, checkpointName(projection), last);
          },
          lazyTransaction,
        );
    } catch (err) {
      if (isDatabaseUnavailable(err)) throw err;
      // each event alone still gets through (or names the one that cannot), but a batch should not fail: say so
      log.warn(
        { projection: projection.name, events: relevant.length, err },
        'projection batch failed: applying its events one at a time',
      );
      for (const recorded of relevant) await applyAlone(pool, projection, recorded);
      await saveCheckpoint(pool, checkpointName(projection), last, 'lazy');
    }
    await announce(pool, projection, relevant, log);
    return true;
  };
}

/** Tells the watchers of the rows this batch changed (committed by now); a failure is theirs to make up by looking. */
async function announce(pool: pg.Pool, projection: Projection, events: RecordedEvent[], log: Logger): Promise<void> {
  const said = projection.announces;
  if (!said) return;
  const keys = parsed(events.filter(e => said[e.type as keyof typeof said])).map(e => said[e.type]!(e));
  await announceChanges(pool, projection.name, keys).catch((err: unknown) =>
    log.warn({ projection: projection.name, err }, 'read model changes not announced: their watchers look by polling'),
  );
}

/** One event and its checkpoint in a transaction of their own; a failure names the event. */
async function applyAlone(pool: pg.Pool, projection: Projection, recorded: RecordedEvent): Promise<void> {
  try {
    await inTransaction(
      pool,
      async tx => {
        await applyEvents(tx, projection, parsed([recorded]));
        await saveCheckpoint(tx, checkpointName(projection), recorded.position);
      },
      lazyTransaction,
    );
  } catch (err) {
    throw isDatabaseUnavailable(err) ? err : new EventNotApplied(recorded, err);
  }
}

export async function createReadModels(pool: pg.Pool, projections: Projection[]): Promise<void> {
  await migrate(pool, [checkpointMigration, ...projections.map(readModelMigration)]);
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

  /** Every projection (or only those given) has handled every event up to `position`. */
  async waitFor(position: Position | null, timeoutMs = 5000, only?: readonly Projection[]): Promise<boolean> {
    if (!position) return true;
    const waiting = only
      ? this.subscribers.filter((_, i) => only.some(p => p.name === this.projections[i]!.name))
      : this.subscribers;
    const reached = await Promise.all(waiting.map(s => s.waitFor(position, timeoutMs)));
    return reached.every(Boolean);
  }

  /** Each projection's subscriber: leading, standing by, stuck at an event or waiting for its database. */
  health(): { subscriber: string; health: SubscriberHealth }[] {
    return this.subscribers.map(s => ({ subscriber: s.name, health: s.health }));
  }
}

// replay while the service runs: verify into a scratch schema, rebuild into shadow tables and swap
export { rebuildProjection } from './shadow-rebuild.ts';
export { verifyAgainstHistory, verifyProjection } from './scratch-verify.ts';
