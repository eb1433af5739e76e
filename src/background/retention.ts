import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { Clock } from '../clock.ts';
import type { RetentionSettings } from '../config.ts';
import { pruneEndedAttemptWindows } from '../db/attempt-counts.ts';
import { pruneFailedJobs } from '../db/job-queue.ts';
import { notificationIdRetentionHours, pruneProviderNotifications } from '../db/provider-notification-ids.ts';
import { subscriberLocks } from '../db/lock-holder.ts';
import type { Logger } from '../logger.ts';
import { pruneOverSessions } from '../projections/sessions.ts';
import { pruneWebhookDeliveries, pruneWebhookEvents } from '../webhooks/retention.ts';
import { onTheClock, type OnTheClock } from './on-the-clock.ts';

/**
 * One kind of operational row: deletes at most `batch` of its rows past their retention, in one short statement.
 * `now` is the service's clock (business time); `wallNow` the wall clock, which the sessions' times are on.
 */
export type RetentionRule = {
  name: string;
  prune(pool: pg.Pool, batch: number, now: Date, wallNow: Date): Promise<number>;
};

const dayMs = 24 * 3_600_000;

/**
 * What is pruned, in order (deliveries before events: an event goes once its deliveries are gone). A table that comes
 * to hold operational rows adds its rule here (attempt_counts and provider_notifications also prune themselves as
 * they are written; payment_check_handovers is pruned by the payment checks' tick). Never here: the event log, the
 * ledger's checkpoints, cosignatures and keys. Of the read models only the rows a projection declares `prunable`
 * (sessions that are over), which a rebuild brings back and the next pass deletes again (docs/operating.md, "What is
 * kept how long").
 */
export function retentionRules(settings: RetentionSettings): RetentionRule[] {
  const before = (now: Date, days: number) => new Date(now.getTime() - days * dayMs);
  return [
    {
      name: 'webhook deliveries',
      prune: (pool, batch, now) => pruneWebhookDeliveries(pool, before(now, settings.webhookDays), batch),
    },
    {
      name: 'webhook events',
      prune: (pool, batch, now) => pruneWebhookEvents(pool, before(now, settings.webhookDays), batch),
    },
    // the queue's own clock (the database's), not the service's: its times are written by graphile-worker
    { name: 'failed jobs', prune: (pool, batch) => pruneFailedJobs(pool, settings.failedJobDays * dayMs, batch) },
    // these two prune themselves on the way as they are written; here the rows of a quiet service, or of a key nobody
    // counts under again
    { name: 'attempt counters', prune: (pool, batch) => pruneEndedAttemptWindows(pool, batch) },
    {
      name: 'provider notification ids',
      prune: (pool, batch, now) =>
        pruneProviderNotifications(pool, new Date(now.getTime() - notificationIdRetentionHours * 3_600_000), batch),
    },
    // the wall clock: a session's end and expiry are the wall clock's, and moving the test clock must not end one
    {
      name: 'ended sessions',
      prune: (pool, batch, _now, wallNow) => pruneOverSessions(pool, before(wallNow, settings.endedSessionDays), batch),
    },
  ];
}

/** The advisory lock only one instance holds while it prunes (src/db/lock-holder.ts: one session for all of them). */
const lockName = 'retention';

/**
 * The retention's pass, every `everyMs` in each instance, run by whichever holds the lock: the others skip it. Each
 * rule deletes `batchRows` rows a statement, each statement its own transaction with a pause after it, so no lock is
 * held long and the pass never crowds out the payments. Answers how many rows went (0 when another instance prunes).
 */
export function startRetention(
  deps: { pool: pg.Pool; clock: Clock; wallClock: Clock; log: Logger },
  settings: RetentionSettings,
  options: { everyMs?: number; rules?: RetentionRule[] } = {},
): OnTheClock {
  const rules = options.rules ?? retentionRules(settings);
  const locks = subscriberLocks.acquire(deps.pool);
  let lost = false;
  // a stop ends the pass after the statement in hand: a large backlog must not hold up a shutdown
  let stopping = false;
  const going = () => !lost && !stopping;
  const prune = async () => {
    lost = false;
    if (stopping || !(await locks.tryLock(lockName, () => (lost = true)))) return 0;
    let total = 0;
    try {
      for (const rule of rules) {
        let pruned = 0;
        for (let n = settings.batchRows; n === settings.batchRows && going();) {
          n = await rule.prune(deps.pool, settings.batchRows, deps.clock.now(), deps.wallClock.now());
          pruned += n;
          if (n === settings.batchRows) await sleep(settings.pauseMs);
        }
        if (pruned > 0) deps.log.info({ rows: pruned, rule: rule.name }, `retention: ${rule.name} pruned`);
        total += pruned;
        if (!going()) break;
      }
    } finally {
      await locks.unlock(lockName);
    }
    return total;
  };
  const timer = onTheClock(prune, options.everyMs ?? 10 * 60_000, deps.log, 'retention pass');
  return {
    tick: timer.tick,
    async stop() {
      if (stopping) return;
      stopping = true;
      await timer.stop();
      await subscriberLocks.release(deps.pool);
    },
  };
}
