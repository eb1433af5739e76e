import type pg from 'pg';
import type { Clock } from '../clock.ts';
import { handleCommand, type CommandContext, type EventSourcing } from '../store/commands/handle.ts';
import type { Decider } from '../domain/decider.ts';
import type { AnyEvent } from '../events/all.ts';
import { parseRecorded, type DomainEvent, type StoredEvent } from '../events/event.ts';
import { sagaEventId } from '../ids.ts';
import type { Logger } from '../logger.ts';
import { checkpointMigration, migrate } from '../db/migrations.ts';
import { saveCheckpoint } from '../store/checkpoints.ts';
import type { EventStore, Position } from '../store/event-store.ts';
import { EventNotApplied, Subscriber, type SubscriberHealth } from '../store/subscriber.ts';
import { isDatabaseUnavailable } from '../db/pool.ts';
import { enqueueWebhookEvent } from '../webhooks/outbox.ts';
import type { Action, AnyStep, ReactionContext, Reaction } from './reaction.ts';

/**
 * What the runner hands events to: a reaction (src/sagas/reaction.ts) with its I/O bound, through `sagaOf`. Delivery is
 * at least once (the checkpoint is stored after the effects), so `handle` must be idempotent: commands carry event ids
 * derived from the causing event (see sagaEventId), and deciders ignore what already happened.
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

/** What performing a reaction's actions needs: the event store, the database (outbox, read models), a clock and a log. */
export type ReactionDeps = EventSourcing & { pool: pg.Pool; clock: Clock; log: Logger };

/** A reaction as the runner runs it: each event handed to its step, the step's actions performed in order. */
export function sagaOf(reaction: Reaction, deps: ReactionDeps): Saga {
  return {
    name: reaction.name,
    handles: reaction.handles,
    async handle(event) {
      const step = reaction.on[event.type];
      if (step) await runStep(deps, step as AnyStep, event);
    },
  };
}

/** Reads what the step needs, asks it what to do (now on the clock) and does it. */
async function runStep(deps: ReactionDeps, step: AnyStep, input: unknown): Promise<void> {
  const state = step.reads ? await step.reads(input as never).run(deps) : undefined;
  for (const action of step.decide(input as never, state as never, deps.clock.now())) await perform(deps, action);
}

/** A stream's decider, as an action carries it (the builder in reaction.ts typed it). */
const anyDecider = (decider: object) => decider as Decider<unknown, unknown, DomainEvent>;

/** A reaction's context as a command takes it: event ids derived from the causing event when the context names one. */
export function commandContext({ eventIds, ...context }: ReactionContext): CommandContext {
  return eventIds ? { ...context, eventId: i => sagaEventId(eventIds.saga, eventIds.cause, i) } : context;
}

async function perform(deps: ReactionDeps, action: Action): Promise<void> {
  switch (action.type) {
    case 'Command': {
      const outcome = await handleCommand(
        deps,
        action.streamId,
        anyDecider(action.decider),
        action.command,
        commandContext(action.context),
      );
      if (action.then) await runStep(deps, action.then.step, { ...action.then.with, outcome });
      return;
    }
    case 'Call': {
      const outcome = await action.call.run(deps);
      if (action.then) await runStep(deps, action.then.step, { ...action.then.with, outcome });
      return;
    }
    case 'PublishWebhook':
      await enqueueWebhookEvent(deps, action.event);
      return;
    case 'Log':
      deps.log.info(action.fields, action.message);
      return;
    case 'Next':
      await runStep(deps, action.step, action.input);
      return;
    default: {
      const never: never = action;
      return never;
    }
  }
}
