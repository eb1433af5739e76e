import { isDatabaseUnavailable } from '../db/pool.ts';
import type { Logger } from '../logger.ts';

export type OnTheClock = {
  /** Runs the work now, after the run in progress (tests and tools call it; the timer calls it too). */
  tick(): Promise<number>;
  /** Stops the timer and waits for the run in progress. */
  stop(): Promise<void>;
};

/**
 * Runs `work` every `everyMs`, one run after the other (overlapping runs would do the same work twice and wait on each
 * other's locks). A failed run is logged, except for an unreachable database (the database watch says that once).
 */
export function onTheClock(work: () => Promise<number>, everyMs: number, log: Logger, what: string): OnTheClock {
  let last: Promise<number> = Promise.resolve(0);
  const tick = () => (last = last.catch(() => 0).then(work));
  let busy = false;
  let stopped = false;
  const timer = setInterval(() => {
    if (stopped || busy) return;
    busy = true;
    tick()
      .catch(err => isDatabaseUnavailable(err) || log.error({ err }, `${what} failed`))
      .finally(() => {
        busy = false;
      });
  }, everyMs);
  return {
    tick,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await last.catch(() => 0);
    },
  };
}
