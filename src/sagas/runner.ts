import type pg from 'pg';
import type { AnyEvent } from '../events/all.ts';
import { parseRecorded, type StoredEvent } from '../events/event.ts';
import type { Logger } from '../logger.ts';
import { checkpointMigration, migrate } from '../db/migrations.ts';
import { saveCheckpoint } from '../store/checkpoints.ts';
import type { EventStore, Position } from '../store/event-store.ts';
import { EventNotApplied, Subscriber, type SubscriberHealth } from '../store/subscriber.ts';
import { isDatabaseUnavailable } from '../db/pool.ts';

/**
 * A process manager: reacts to events by sending commands. Delivery is at least once (the checkpoint is stored
 * after the effects), so `handle` must be idempotent: commands carry event ids derived from the causing
 * event (see sagaEventId), and deciders ignore what already happened.
 */
export type Saga = {
  name: string;
  /** Event types this saga reacts to; the others pass by. */
  handles: readonly string[];
  handle(event: StoredEvent<AnyEvent>): Promise<void>;
};

export class SagaRunner {
  private readonly subscribers: Subscriber[];

  constructor(
    private readonly deps: { pool: pg.Pool; store: EventStore; log: Logger },
    sagas: Saga[],
  ) {
    this.subscribers = sagas.map(saga => {
      const name = `saga:${saga.name}`;
      return new Subscriber({
        name,
        pool: deps.pool,
        store: deps.store,
        log: deps.log,
        handleBatch: async (events, last) => {
          let handled = 0;
          for (const recorded of events) {
            if (!saga.handles.includes(recorded.type)) continue;
            try {
              const event = parseRecorded(recorded);
              if (event) await saga.handle(event as StoredEvent<AnyEvent>);
            } catch (err) {
              // the effects before it are done and idempotent: a retry of the batch repeats them harmlessly
              throw isDatabaseUnavailable(err) ? err : new EventNotApplied(recorded, err);
            }
            handled++;
          }
          if (handled === 0) return false; // the subscriber moves the checkpoint past them now and then
          await saveCheckpoint(deps.pool, name, last);
          return true;
        },
      });
    });
  }

  async start(): Promise<void> {
    await migrate(this.deps.pool, [checkpointMigration]); // under the migrations' lock (one read once the service's start applied it)
    await Promise.all(this.subscribers.map(s => s.start()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.subscribers.map(s => s.stop()));
  }

  /** Resolves true once every saga has handled the events up to `position` (tests and tools wait on it). */
  async waitFor(position: Position, timeoutMs = 5000): Promise<boolean> {
    const reached = await Promise.all(this.subscribers.map(s => s.waitFor(position, timeoutMs)));
    return reached.every(Boolean);
  }

  /** Each saga's subscriber: leading, standing by, stuck at an event or waiting for its database. */
  health(): { subscriber: string; health: SubscriberHealth }[] {
    return this.subscribers.map(s => ({ subscriber: s.name, health: s.health }));
  }
}
