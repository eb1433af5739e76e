import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { query } from '../db/pool.ts';
import { refuse } from '../errors.ts';
import type { AppDeps } from './deps.ts';
import { isOperator } from './operator-access.ts';

/** A clock the test-clock route moves forward: the service's own ShiftedClock, or a test's TestClock. */
export type MovableClock = { now(): Date; advance(ms: number): unknown };

const maxAdvanceSeconds = 10 * 366 * 86_400;
const moveBody = z
  .object({
    advanceSeconds: z.int().min(0).max(maxAdvanceSeconds).optional(),
    setTo: z.iso.datetime({ offset: true }).optional(),
  })
  .refine(b => (b.advanceSeconds === undefined) !== (b.setTo === undefined), {
    message: 'give exactly one of advanceSeconds and setTo',
  });

/**
 * Jobs waiting in the queue (webhook retries, checks, syncs) are due by the database's time, which the test clock does
 * not move: moving the clock forward by `ms` brings them forward as much (never before now), so they run within a
 * poll (1 s) as they would. Through graphile-worker's public `jobs` view and `reschedule_jobs` (what
 * WorkerUtils.rescheduleJobs calls), one call per new run time; a job locked meanwhile is left alone by it.
 */
async function bringJobsForward(deps: AppDeps, ms: number) {
  if (ms <= 0) return;
  await query(
    deps.pool,
    'BringJobsForward',
    `with moved as (
       select greatest(now(), run_at - $1::float8 * interval '1 millisecond') as run_at, array_agg(id) as ids
         from graphile_worker.jobs where locked_at is null and run_at > now() group by 1)
     select count(*) from moved, lateral graphile_worker.reschedule_jobs(moved.ids, run_at => moved.run_at)`,
    [ms],
  );
}

const present = (clock: MovableClock) => {
  const now = clock.now();
  return { now: now.toISOString(), offsetSeconds: Math.round((now.getTime() - Date.now()) / 1000) };
};

/**
 * GET|POST /api/test-clock (only with TEST_CLOCK=true; to the operator: loopback unforwarded, or METRICS_TOKEN): where the service's clock is, and moving it
 * forward by `advanceSeconds` or to `setTo`, never back. Timers read the clock every second; queued jobs are brought
 * forward by as much as the clock moved.
 */
export function testClockRoutes(deps: AppDeps, clock: MovableClock) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();
    // moving business time settles, expires and times out every tenant's money: a tester on this machine only
    app.addHook('onRequest', async request => {
      if (!isOperator(request, deps.config.metricsToken)) throw refuse('FORBIDDEN');
    });
    app.get('/', async () => ({ status: 'success', data: present(clock) }));
    app.post('/', { schema: { body: moveBody } }, async request => {
      const now = clock.now().getTime();
      const target =
        request.body.setTo !== undefined ? Date.parse(request.body.setTo) : now + request.body.advanceSeconds! * 1000;
      if (target < now)
        throw refuse('TEST_CLOCK_BACKWARDS', {
          errors: [{ path: 'body.setTo', message: `before the clock's now, ${new Date(now).toISOString()}` }],
        });
      clock.advance(target - now);
      await bringJobsForward(deps, target - now);
      return { status: 'success', data: present(clock) };
    });
  };
}
