import { EventEmitter } from 'node:events';
import type pg from 'pg';
import type { Logger } from '../logger.ts';
import { query } from '../db/pool.ts';
import { readCheckpoint } from './checkpoints.ts';
import { comparePositions, type EventStore, type Position, type RecordedEvent, type Subscription } from './event-store.ts';

/**
 * One named reader of "all" (a projection or a saga) that resumes from its checkpoint. Across processes only
 * one instance is active: it holds a PostgreSQL advisory lock named after the subscriber; the others stand by
 * and take over when the lock frees.
 */
export type SubscriberOptions = {
  name: string;
  pool: pg.Pool;
  store: EventStore;
  log: Logger;
  /** Handles a batch and stores the checkpoint (atomically or not, as the subscriber needs). */
  handleBatch(events: RecordedEvent[], last: Position): Promise<void>;
  standbyRetryMs?: number;
};

export class Subscriber {
  private subscription: Subscription | null = null;
  private lockClient: pg.PoolClient | null = null;
  private standbyTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private position: Position | null = null;
  private failure: unknown = null;
  private readonly progress = new EventEmitter();

  constructor(private readonly options: SubscriberOptions) {
    this.progress.setMaxListeners(0);
  }

  get name(): string {
    return this.options.name;
  }

  get isActive(): boolean {
    return this.subscription !== null;
  }

  get lastError(): unknown {
    return this.failure;
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.tryToLead();
  }

  private async tryToLead(): Promise<void> {
    if (this.stopped) return;
    const { pool, name, store, log } = this.options;
    const client = await pool.connect();
    const locked = await query<{ locked: boolean }>(
      client,
      'TrySubscriberLock',
      `select pg_try_advisory_lock(hashtextextended('subscriber:' || $1, 0)) as locked`,
      [name],
    );
    if (!locked.rows[0]!.locked || this.stopped) {
      client.release();
      this.standbyTimer = setTimeout(() => void this.tryToLead().catch(err => this.fail(err)), this.options.standbyRetryMs ?? 2000);
      return;
    }
    // A lost connection loses the lock; stop reading so another instance can lead.
    client.on('error', err => this.fail(err));
    this.lockClient = client;
    this.position = await readCheckpoint(pool, name);
    this.progress.emit('progress');
    this.subscription = store.subscribe(
      this.position,
      async events => {
        const last = events[events.length - 1]!.position;
        await this.options.handleBatch(events, last);
        this.position = last;
        this.progress.emit('progress');
      },
      err => this.fail(err),
    );
    log.debug({ subscriber: name }, 'subscriber leading');
  }

  private fail(err: unknown): void {
    this.failure = err;
    this.options.log.error({ err, subscriber: this.options.name }, 'subscriber stopped on error; restarting in 1 s');
    void this.release().then(() => {
      if (!this.stopped) this.standbyTimer = setTimeout(() => void this.tryToLead().catch(e => this.fail(e)), 1000);
    });
  }

  private async release(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = null;
    await subscription?.close();
    const client = this.lockClient;
    this.lockClient = null;
    if (client) {
      await query(client, 'ReleaseSubscriberLock', 'select pg_advisory_unlock_all()').catch(() => undefined);
      client.release();
    }
  }

  /** Finishes the batch in hand (its checkpoint is stored), then stops reading. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.standbyTimer) clearTimeout(this.standbyTimer);
    await this.release();
  }

  /** Resolves once this subscriber has handled every event up to `position`; false on timeout. */
  async waitFor(position: Position, timeoutMs = 5000): Promise<boolean> {
    const reached = () => this.position !== null && comparePositions(this.position, position) >= 0;
    if (reached()) return true;
    if (!this.isActive) return this.pollCheckpoint(position, timeoutMs);
    return new Promise(resolve => {
      const timer = setTimeout(() => done(false), timeoutMs);
      const check = () => reached() && done(true);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.progress.off('progress', check);
        resolve(ok);
      };
      this.progress.on('progress', check);
    });
  }

  /** Another process leads this subscriber: watch its checkpoint instead. */
  private async pollCheckpoint(position: Position, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const checkpoint = await readCheckpoint(this.options.pool, this.options.name);
      if (comparePositions(checkpoint, position) >= 0) return true;
      await new Promise(r => setTimeout(r, 20));
    }
    return false;
  }
}
