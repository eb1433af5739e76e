import { z } from 'zod';
import { query, type Queryable } from '../db/pool.ts';
import type { AttemptJob } from './delivery-state.ts';

/** The job queue's task for webhook attempts, run by the webhook runner only. */
export const deliverWebhookTask = 'deliver-webhook';

export const attemptJob = z.object({ deliveryId: z.uuid(), step: z.int().min(1), manual: z.boolean() });

/** Our code crashing (not a receiver failing: that is the schedule's business) is retried by the queue this often. */
const maxJobAttempts = 5;

/**
 * Queues an attempt `delayMs` from now (the database's clock, which the queue runs on). One job per delivery, under
 * its job key: a redelivery replaces the waiting job instead of adding a second one. Called inside the transaction
 * that records the delivery, so the job exists exactly when the delivery says it does.
 */
export async function scheduleAttempt(db: Queryable, job: AttemptJob, delayMs: number): Promise<void> {
  await query(
    db,
    'ScheduleWebhookAttempt',
    `select graphile_worker.add_job($1, $2::json, run_at => now() + $3::float8 * interval '1 millisecond', max_attempts => $4::int, job_key => $5)`,
    [deliverWebhookTask, JSON.stringify(job), delayMs, maxJobAttempts, `webhook-delivery:${job.deliveryId}`],
  );
}
