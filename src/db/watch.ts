import type pg from 'pg';
import type { Logger } from '../logger.ts';
import { isDatabaseUnavailable, query } from './pool.ts';

/**
 * Whether the database answers, said once per change in the log (and in a summary while it does not), so that an
 * outage is a few lines instead of one per failed call. Everything else stays quiet about unreachable-database
 * errors (isDatabaseUnavailable) and leaves the saying to this watch.
 */
export type DatabaseWatch = {
  readonly reachable: boolean;
  /** A call failed because the database cannot be reached: it is counted, and the watch checks at once. */
  refused(err: unknown): void;
  stop(): void;
};

export type DatabaseWatchOptions = { checkEveryMs?: number; summaryEveryMs?: number };

export function watchDatabase(pool: pg.Pool, log: Logger, options: DatabaseWatchOptions = {}): DatabaseWatch {
  const checkEveryMs = options.checkEveryMs ?? 1000;
  const summaryEveryMs = options.summaryEveryMs ?? 30_000;
  let reachable = true;
  let downSince = 0;
  let summarisedAt = 0;
  let refusedCalls = 0;
  let checking: Promise<void> | null = null;

  const wentDown = (err: unknown) => {
    reachable = false;
    downSince = summarisedAt = Date.now();
    log.error(
      { error: err instanceof Error ? err.message : String(err) },
      'database unreachable: API calls answer 503 and background work waits until it is back',
    );
  };

  const check = () =>
    (checking ??= (async () => {
      try {
        await query(pool, 'DatabasePing', 'select 1');
        if (!reachable) {
          log.info(
            { downForMs: Date.now() - downSince, refusedCalls },
            'database reachable again: API and background work resume',
          );
          reachable = true;
          refusedCalls = 0;
        }
      } catch (err) {
        if (reachable) wentDown(err);
        else if (Date.now() - summarisedAt >= summaryEveryMs) {
          summarisedAt = Date.now();
          log.warn(
            {
              downForMs: Date.now() - downSince,
              refusedCalls,
              error: err instanceof Error ? err.message : String(err),
            },
            'database still unreachable',
          );
        }
      } finally {
        checking = null;
      }
    })());

  const timer = setInterval(() => void check(), checkEveryMs);
  timer.unref();
  return {
    get reachable() {
      return reachable;
    },
    refused(err) {
      if (!isDatabaseUnavailable(err)) return;
      refusedCalls++;
      if (reachable) void check();
    },
    stop: () => clearInterval(timer),
  };
}
