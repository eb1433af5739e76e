import type pg from 'pg';
import { subscriberLocks, type SubscriberLocks } from '../db/lock-holder.ts';

/**
 * Who does one piece of work across instances: the one holding its PostgreSQL advisory locks (all of them, on the one
 * connection that holds every lock of its process, src/db/lock-holder.ts); the others stand by and look again now and
 * then. A failure stops the work, frees the locks and tries again after a pause the work chooses (its back-off). The
 * subscribers of "all" (src/store/subscriber.ts) and the ledger's chain (src/audit/ledger-checkpoints.ts) lead by it.
 */
export type LeadershipOptions = {
  pool: pg.Pool;
  /** the locks held while leading, taken in this order: all of them or none */
  names: readonly string[];
  /** how often a standby looks whether it can lead */
  standbyRetryMs: number;
  /** every lock is held: starts the work; what it throws, start() throws (and a later try fails with it) */
  lead(): Promise<void>;
  /** stops the work, before the locks are freed */
  stopLeading(): Promise<void>;
  /** the work failed: the owner says so (its health, its log); the locks are freed next */
  failed(err: unknown): void;
  /** how long to wait before trying to lead again after a failure (its back-off) */
  retryDelayMs(): number;
  /** the locks' connection dropped (and the locks with it); the default fails the work */
  lockLost?(err: unknown): void;
  /** the locks it could take, each time it looks (fewer than all: another instance holds the rest, it stands by) */
  looked?(held: readonly string[]): void;
};

export class Leadership {
  private locks: SubscriberLocks | null = null;
  private locked = false;
  private stopped = false;
  private retrying = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: LeadershipOptions) {}

  /** Every lock is held (the work may be starting, or failing). */
  get holdsLocks(): boolean {
    return this.locked;
  }

  /** Takes the process's lock session and tries to lead now (then again while standing by). */
  async start(): Promise<void> {
    this.stopped = false;
    this.retrying = false;
    this.locks ??= subscriberLocks.acquire(this.options.pool);
    await this.tryToLead();
  }

  private async tryToLead(): Promise<void> {
    if (this.stopped || !this.locks) return;
    const locks = this.locks;
    const held: string[] = [];
    try {
      for (const name of this.options.names) {
        if (!(await locks.tryLock(name, this.lockLost))) break;
        held.push(name);
      }
    } catch (err) {
      for (const name of held) await locks.unlock(name);
      throw err;
    }
    this.options.looked?.(held);
    if (held.length < this.options.names.length || this.stopped) {
      // a lock taken alone (or as this stops) goes back at once
      for (const name of held) await locks.unlock(name);
      this.later(this.options.standbyRetryMs, false);
      return;
    }
    this.locked = true;
    await this.options.lead();
  }

  private readonly lockLost = (err: unknown) => {
    this.locked = false;
    if (this.options.lockLost) this.options.lockLost(err);
    else this.fail(err);
  };

  private later(ms: number, retrying: boolean): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      if (retrying) this.retrying = false;
      void this.tryToLead().catch(err => this.fail(err));
    }, ms);
  }

  /** Stops the work, frees the locks and tries again after the work's back-off; once for failures that come together. */
  fail(err: unknown): void {
    this.options.failed(err);
    if (this.retrying) return; // the work and the lock's connection can both fail at once: one retry
    this.retrying = true;
    const delay = this.options.retryDelayMs();
    void this.release().then(() => this.later(delay, true));
  }

  /** Stops the work, frees the locks and stands by for `ms` (the work refuses to lead for now). */
  standBy(ms: number): void {
    void this.release().then(() => this.later(ms, false));
  }

  /** Stops the work (the owner's stopLeading), then frees the locks. */
  async release(): Promise<void> {
    await this.options.stopLeading();
    if (this.locked) {
      this.locked = false;
      // the connection is gone already when it dropped (and the locks with it): then there is nothing to unlock
      for (const name of this.options.names) await this.locks?.unlock(name);
    }
  }

  /** No more tries: a standby's or a retry's pause ends here. The owner finishes its work, then calls close(). */
  halt(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  get halted(): boolean {
    return this.stopped;
  }

  /** Frees the locks (stopping the work) and gives the process's lock session back. */
  async close(): Promise<void> {
    this.halt();
    await this.release();
    if (this.locks) await subscriberLocks.release(this.options.pool);
    this.locks = null;
  }
}
