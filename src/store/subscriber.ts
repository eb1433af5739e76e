import { EventEmitter } from 'node:events';
import type pg from 'pg';
import type { Logger } from '../logger.ts';
import { checkpointNotifications, type CheckpointNotifications, type Leading } from '../db/checkpoint-notifications.ts';
import { isDatabaseUnavailable, query } from '../db/pool.ts';
import { readCheckpoint, saveCheckpoint, saveCheckpointForward } from './checkpoints.ts';
import { Leadership } from './leadership.ts';
import {
  comparePositions,
  type EventStore,
  type Position,
  type RecordedEvent,
  type Subscription,
} from './event-store.ts';
import {
  clearSubscriberFailure,
  findSubscriberFailure,
  recordSubscriberFailure,
  type FailedEvent,
} from './subscriber-failures.ts';

/**
 * One named reader of "all" (a projection or a saga) that resumes from its checkpoint. Across processes only
 * one instance is active: it leads by the advisory lock named after the subscriber (src/store/leadership.ts); the
 * others stand by and take over when the lock frees.
 * A process waiting for a subscriber another one leads is told when it gets there (src/db/checkpoint-notifications.ts).
 */
export type SubscriberOptions = {
  name: string;
  pool: pg.Pool;
  store: EventStore;
  log: Logger;
  /**
   * Handles a batch and stores the checkpoint (atomically or not, as the subscriber needs), answering true; a batch
   * with nothing for it answers false and leaves the checkpoint to the subscriber. An event it cannot handle is thrown
   * as EventNotApplied, after the events before it are handled and checkpointed.
   */
  handleBatch(events: RecordedEvent[], last: Position): Promise<boolean>;
  standbyRetryMs?: number;
  /** Longest wait between attempts at an event that failed (the first waits 1 s, then twice as long each time). */
  maxStuckRetryMs?: number;
};

/** The handler failed on this event: the subscriber stops there, and says where, until the event goes through. */
export class EventNotApplied extends Error {
  readonly event: FailedEvent;
  constructor(
    recorded: Pick<RecordedEvent, 'streamId' | 'revision' | 'type' | 'position'>,
    override readonly cause: unknown,
  ) {
    super(
      `${recorded.type} at ${recorded.streamId}@${recorded.revision}: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
    this.event = {
      streamId: recorded.streamId,
      revision: recorded.revision,
      type: recorded.type,
      position: recorded.position,
    };
  }
}

/** What a subscriber is doing, for /ready and the logs. */
export type SubscriberHealth =
  | { state: 'leading' }
  | { state: 'standby' }
  /** stopped at an event it cannot handle, trying it again now and then */
  | { state: 'stuck'; event: FailedEvent; error: string; since: Date; attempts: number }
  /** the database or the event store cannot be reached (or failed otherwise): reading again shortly */
  | { state: 'waiting'; error: string; since: Date; attempts: number };

/** A subscriber that is not fine, as /ready and the CLI show it. */
export type SubscriberProblem = {
  subscriber: string;
  state: 'stuck' | 'waiting';
  error: string;
  since: string;
  attempts: number;
  /** the event it is stuck at: its stream, revision, type and position in "all" (commit/prepare) */
  event?: { streamId: string; revision: number; type: string; position: string };
};

export const positionText = (p: Position) => `${p.commit}/${p.prepare}`;

/** How often a subscriber stores its checkpoint while the events pass it by. */
const checkpointIdleMs = 1000;

/** The problem a health or a recorded failure shows, or null when the subscriber is fine. */
export function subscriberProblem(subscriber: string, health: SubscriberHealth): SubscriberProblem | null {
  if (health.state === 'leading' || health.state === 'standby') return null;
  const { state, error, since, attempts } = health;
  const problem: SubscriberProblem = { subscriber, state, error, since: since.toISOString(), attempts };
  if (health.state === 'stuck') problem.event = { ...health.event, position: positionText(health.event.position) };
  return problem;
}
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

export class Subscriber {
  private subscription: Subscription | null = null;
  /** The process's notifications, shared with its other subscribers from start to stop. */
  private notifications: CheckpointNotifications | null = null;
  private readonly leadership: Leadership;
  /** While it leads: processes waiting elsewhere are told the positions it reaches. */
  private leading: Leading | null = null;
  /** The lock's connection dropped: stand by a while, so that another process takes over rather than this one again. */
  private yieldLead = false;
  private flushTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private position: Position | null = null;
  private failure: Extract<SubscriberHealth, { state: 'stuck' | 'waiting' }> | null = null;
  private savedAt = 0;
  /** How far events this subscriber does not handle have moved it past its stored checkpoint. */
  private unsaved: Position | null = null;
  /** The position of the stuck event this process has logged, so that it says so once. */
  private announced: string | null = null;
  private readonly progress = new EventEmitter();

  constructor(private readonly options: SubscriberOptions) {
    this.progress.setMaxListeners(0);
    this.leadership = new Leadership({
      pool: options.pool,
      names: [options.name],
      standbyRetryMs: options.standbyRetryMs ?? 2000,
      lead: () => this.lead(),
      stopLeading: () => this.stopReading(),
      failed: err => this.failed(err),
      retryDelayMs: () => this.retryDelayMs(),
      lockLost: err => this.lockLost(err),
    });
  }

  get name(): string {
    return this.options.name;
  }

  get isActive(): boolean {
    return this.subscription !== null;
  }

  /** Fine unless stuck at an event or waiting for its database or event store. */
  get health(): SubscriberHealth {
    return this.failure ?? (this.isActive ? { state: 'leading' } : { state: 'standby' });
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.notifications ??= checkpointNotifications.acquire(this.options.pool);
    this.notifications.open();
    await this.leadership.start();
  }

  /** Holding the lock: reads on from the checkpoint. */
  private async lead(): Promise<void> {
    const { pool, name, store, log } = this.options;
    const notifications = this.notifications!;
    this.position = await readCheckpoint(pool, name);
    this.leading = notifications.lead(name, () => (this.isActive ? this.position : null));
    this.unsaved = null;
    // stuck there in an earlier process or another one: it stays named until the event goes through
    if (!this.failure) {
      const earlier = await findSubscriberFailure(pool, name);
      if (earlier)
        this.failure = {
          state: 'stuck',
          event: earlier.event,
          error: earlier.error,
          since: earlier.since,
          attempts: earlier.attempts,
        };
    }
    this.progress.emit('progress');
    this.subscription = store.subscribe(
      this.position,
      async events => {
        const last = events[events.length - 1]!.position;
        if (await this.options.handleBatch(events, last)) this.checkpointed(null);
        else await this.passedBy(last);
        this.position = last;
        if (this.failure?.state === 'stuck' && comparePositions(last, this.failure.event.position) >= 0)
          this.recovered();
        this.progress.emit('progress');
        this.leading?.moved(); // in memory: events passed by are not stored yet
      },
      err => this.fail(err),
    );
    this.leading?.moved(); // those who asked before it led: its checkpoint may be as far
    if (this.failure?.state === 'waiting') this.recovered();
    log.debug({ subscriber: name }, 'subscriber leading');
  }

  private readonly lockLost = (err: unknown) => {
    // its connection killed while the database serves: another instance may take over; the database gone: every
    // instance lost its locks, and this one tries again as soon as it is back (asked of the database itself: a
    // connection killed by an administrator and a database shutting down both say 57P01)
    void query(this.options.pool, 'ProbeDatabase', 'select 1')
      .then(
        () => true,
        () => false,
      )
      .then(serving => {
        this.yieldLead = serving;
        this.fail(err);
      });
  };

  /** Stops reading, frees the lock and tries again after its back-off (retryDelayMs). */
  private fail(err: unknown): void {
    this.leadership.fail(err);
  }

  /**
   * Says what failed. Logged once per change of state, not once per attempt: an event that cannot be handled is an
   * error naming it (and recorded for the CLI and every process's /ready), an unreachable database a warning (the
   * database's own watcher says more).
   */
  private failed(err: unknown): void {
    const { log, name, pool } = this.options;
    const now = new Date();
    const previous = this.failure;
    if (err instanceof EventNotApplied) {
      const same = previous?.state === 'stuck' && comparePositions(previous.event.position, err.event.position) === 0;
      const attempts = same ? previous.attempts + 1 : 1;
      this.failure = {
        state: 'stuck',
        event: err.event,
        error: messageOf(err.cause),
        since: same ? previous.since : now,
        attempts,
      };
      const where = positionText(err.event.position);
      if (this.announced !== where) {
        this.announced = where;
        log.error(
          {
            err: err.cause,
            subscriber: name,
            streamId: err.event.streamId,
            revision: err.event.revision,
            eventType: err.event.type,
            position: positionText(err.event.position),
          },
          `subscriber ${name} is stuck at ${err.event.type} ${err.event.streamId}@${err.event.revision}; it tries again with a growing pause, and logs again when it moves on`,
        );
      }
      void recordSubscriberFailure(pool, { subscriber: name, ...this.failure }).catch(() => undefined);
      this.progress.emit('progress'); // those waiting for it stop waiting
    } else {
      const attempts = previous?.state === 'waiting' ? previous.attempts + 1 : 1;
      this.failure = {
        state: 'waiting',
        error: messageOf(err),
        since: previous?.state === 'waiting' ? previous.since : now,
        attempts,
      };
      if (attempts > 1) {
        // said already
      } else if (isDatabaseUnavailable(err))
        log.debug({ subscriber: name }, `subscriber ${name} waits for the database`);
      else log.warn({ err, subscriber: name }, `subscriber ${name} failed; reading again shortly`);
    }
  }

  /**
   * 1 s, then twice as long each time: at most a minute between attempts at a stuck event, 5 s while waiting. After its
   * lock's connection dropped, longer than the others stand by between tries, so that one of them takes over.
   */
  private retryDelayMs(): number {
    const failure = this.failure!;
    const ceiling = failure.state === 'stuck' ? (this.options.maxStuckRetryMs ?? 60_000) : 5_000;
    const delay = Math.min(1000 * 2 ** Math.min(failure.attempts - 1, 16), ceiling);
    if (!this.yieldLead) return delay;
    this.yieldLead = false;
    return Math.max(delay, 2 * (this.options.standbyRetryMs ?? 2000));
  }

  private recovered(): void {
    const failure = this.failure!;
    this.failure = null;
    const { log, name, pool } = this.options;
    if (failure.state === 'stuck') {
      this.announced = null;
      log.info(
        { subscriber: name, streamId: failure.event.streamId, revision: failure.event.revision },
        `subscriber ${name} moved past the event it was stuck at`,
      );
      void clearSubscriberFailure(pool, name).catch(() => undefined);
    } else {
      log.debug({ subscriber: name, waitedMs: Date.now() - failure.since.getTime() }, `subscriber ${name} reads again`);
    }
  }

  /** Stops reading (the lock is freed after, by the leadership). */
  private async stopReading(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = null;
    this.leading?.stop();
    this.leading = null;
    await subscription?.close();
  }

  /**
   * Events this subscriber does not handle move its checkpoint at most once a second (after a restart it re-reads at
   * most that second of events it ignores anyway); the position they reached is stored a second later if no batch
   * stores one meanwhile (so that an idle subscriber's checkpoint, which the lag metric reads, is where it is), and
   * when it stops. Those saves commit lazily (CheckpointCommit): losing one to a crash costs a re-read of events passed by.
   */
  private async passedBy(last: Position): Promise<void> {
    if (Date.now() - this.savedAt < checkpointIdleMs) {
      this.unsaved = last;
      if (!this.flushTimer) {
        this.flushTimer = setTimeout(() => void this.flush(), checkpointIdleMs);
        this.flushTimer.unref();
      }
      return;
    }
    await saveCheckpoint(this.options.pool, this.options.name, last, 'lazy');
    this.checkpointed(null);
  }

  /** Stores the position passed by, outside the flow of batches: forward only, since a batch's own save may overtake it. */
  private async flush(): Promise<void> {
    this.flushTimer = null;
    const unsaved = this.unsaved;
    if (!unsaved || this.stopped) return;
    await saveCheckpointForward(this.options.pool, this.options.name, unsaved, 'lazy').then(
      () => {
        if (this.unsaved === unsaved) this.checkpointed(null);
      },
      () => undefined, // the next batch or the stop stores it
    );
  }

  private checkpointed(unsaved: Position | null): void {
    this.savedAt = Date.now();
    this.unsaved = unsaved;
  }

  /** Finishes the batch in hand (its checkpoint is stored), stores how far it passed by, then stops reading. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.leadership.halt();
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const leading = this.subscription !== null;
    await this.subscription?.close(); // the batch in hand finishes first
    // still holding the lock: no other instance leads meanwhile
    if (leading && this.unsaved)
      await saveCheckpoint(this.options.pool, this.options.name, this.unsaved).catch(() => undefined);
    this.unsaved = null;
    const notifications = this.notifications;
    this.notifications = null;
    await Promise.all([
      this.leadership.close(),
      notifications ? checkpointNotifications.release(this.options.pool) : undefined,
    ]);
  }

  /** Resolves once this subscriber has handled every event up to `position`; false on timeout. */
  async waitFor(position: Position, timeoutMs = 5000): Promise<boolean> {
    const reached = () => this.position !== null && comparePositions(this.position, position) >= 0;
    // a subscriber stuck at an event will not get there soon: nobody waits for it (/ready names it)
    const stuck = () => this.failure?.state === 'stuck';
    if (reached()) return true;
    if (stuck()) return false;
    if (!this.isActive) return this.waitElsewhere(position, timeoutMs);
    return new Promise(resolve => {
      const timer = setTimeout(() => done(false), timeoutMs);
      const check = () => (reached() ? done(true) : stuck() && done(false));
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.progress.off('progress', check);
        resolve(ok);
      };
      this.progress.on('progress', check);
    });
  }

  /** Another process leads this subscriber (or none does, for now): it says when it gets there, or its checkpoint does. */
  private async waitElsewhere(position: Position, timeoutMs: number): Promise<boolean> {
    const { pool, name } = this.options;
    const notifications = checkpointNotifications.acquire(pool); // the started subscriber's, or one for this wait
    try {
      return await notifications.wait(name, position, timeoutMs);
    } finally {
      await checkpointNotifications.release(pool);
    }
  }
}
