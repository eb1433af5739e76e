import { nextAttemptDelay } from './retry-schedule.ts';
import { isSuccess, type AttemptResult } from './send.ts';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

/** A delivery as the schedule sees it: its status and how many steps of the retry schedule it has used. */
export type DeliveryProgress = { status: DeliveryStatus; scheduleStep: number };

/** The attempt a job makes: step `step` of the schedule (1 is the first attempt); manual when asked by a redelivery. */
export type AttemptJob = { deliveryId: string; step: number; manual: boolean };

export type AfterAttempt = DeliveryProgress & {
  statusReason: string | null;
  /** Wait before the next attempt, or null: no further attempt is scheduled by this one. */
  nextAttemptInMs: number | null;
};

/** A job is stale when its step was already made (a duplicate) or the delivery is over. */
export const isCurrent = (delivery: DeliveryProgress, job: AttemptJob) =>
  delivery.status === 'pending' && delivery.scheduleStep === job.step - 1;

/**
 * What a delivery becomes after an attempt. Only a 2xx succeeds; 410 Gone fails it for good (the endpoint is
 * disabled); any other answer or error waits for the next step of the schedule, at least as long as the receiver's
 * Retry-After, and fails once the schedule is spent. A stale attempt (raced by another) changes nothing.
 */
export function afterAttempt(
  delivery: DeliveryProgress,
  job: AttemptJob,
  result: AttemptResult,
  schedule: { delays: readonly number[]; random: number },
): AfterAttempt {
  if (!isCurrent(delivery, job)) return { ...delivery, statusReason: null, nextAttemptInMs: null };
  if (isSuccess(result))
    return { status: 'succeeded', scheduleStep: job.step, statusReason: null, nextAttemptInMs: null };
  if (result.statusCode === 410) {
    return {
      status: 'failed',
      scheduleStep: job.step,
      statusReason: 'the receiver answered 410 Gone: endpoint disabled',
      nextAttemptInMs: null,
    };
  }
  const wait = nextAttemptDelay({
    made: job.step,
    random: schedule.random,
    retryAfterMs: result.retryAfterMs,
    delays: schedule.delays,
  });
  if (wait === null) {
    return {
      status: 'failed',
      scheduleStep: job.step,
      statusReason: 'no 2xx answer within the retry schedule',
      nextAttemptInMs: null,
    };
  }
  return { status: 'pending', scheduleStep: job.step, statusReason: null, nextAttemptInMs: wait };
}
