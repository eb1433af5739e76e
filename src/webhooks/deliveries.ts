import type pg from 'pg';
import { inTransaction, query, type Queryable } from '../db/pool.ts';
import type { Sealed } from '../security/credentials.ts';
import { afterAttempt, type AfterAttempt, type AttemptJob, type DeliveryStatus } from './delivery-state.ts';
import { scheduleAttempt } from './jobs.ts';
import type { AttemptResult } from './send.ts';

/** Everything an attempt needs: the delivery's progress, the event's body and the endpoint it goes to. */
export type DeliveryTarget = {
  id: string;
  status: DeliveryStatus;
  schedule_step: number;
  event_id: string;
  body: string;
  owner_id: string;
  endpoint_id: string;
  url: string;
  secret: Sealed;
  disabled_at: Date | null;
  removed_at: Date | null;
};

export async function findDeliveryTarget(db: Queryable, deliveryId: string): Promise<DeliveryTarget | null> {
  const r = await query<DeliveryTarget>(
    db,
    'FindWebhookDeliveryTarget',
    `select d.id, d.status, d.schedule_step, d.event_id, ev.body, d.owner_id, d.endpoint_id, en.url, en.secret, en.disabled_at, en.removed_at
       from webhook_deliveries d
       join webhook_events ev on ev.event_id = d.event_id
       join webhook_endpoints en on en.id = d.endpoint_id
      where d.id = $1`,
    [deliveryId],
  );
  return r.rows[0] ?? null;
}

/** An endpoint removed or disabled since: the delivery ends without an attempt. */
export async function cancelDelivery(db: Queryable, deliveryId: string, reason: string, now: Date): Promise<void> {
  await query(
    db,
    'CancelWebhookDelivery',
    `update webhook_deliveries set status = 'cancelled', status_reason = $2, next_attempt_at = null, updated_at = $3
      where id = $1 and status = 'pending'`,
    [deliveryId, reason, now],
  );
}

/**
 * Logs an attempt and moves the delivery on (afterAttempt), scheduling the next attempt in the same transaction.
 * The delivery row is locked, so two attempts racing on one delivery are logged one after the other.
 * The attempt is logged at `attemptedAt` (when it started); the wait before the next one counts from `endedAt` (when
 * the answer, the error or the timeout came), which is also when the queue's wait starts: the job is queued `wait`
 * after the database's now(), in this transaction, right after the attempt ended. So `nextAttemptAt` is when the next
 * attempt really runs, also after an attempt that waited for its whole timeout.
 */
export async function recordAttempt(
  pool: pg.Pool,
  attempt: { job: AttemptJob; attemptedAt: Date; endedAt: Date; result: AttemptResult; delays: readonly number[]; random: number },
): Promise<AfterAttempt | null> {
  const { job, attemptedAt, endedAt, result } = attempt;
  return inTransaction(pool, async tx => {
    const locked = await query<{ status: DeliveryStatus; schedule_step: number }>(
      tx,
      'LockWebhookDelivery',
      'select status, schedule_step from webhook_deliveries where id = $1 for update',
      [job.deliveryId],
    );
    const row = locked.rows[0];
    if (!row) return null;
    await query(
      tx,
      'RecordWebhookAttempt',
      `insert into webhook_attempts (delivery_id, number, manual, attempted_at, duration_ms, status_code, error)
       select $1, coalesce(max(number), 0) + 1, $2, $3, $4, $5, $6 from webhook_attempts where delivery_id = $1`,
      [job.deliveryId, job.manual, attemptedAt, result.durationMs, result.statusCode, result.error],
    );
    const next = afterAttempt({ status: row.status, scheduleStep: row.schedule_step }, job, result, attempt);
    if (next.status === row.status && next.scheduleStep === row.schedule_step) return next; // stale: logged only
    const nextAttemptAt = next.nextAttemptInMs === null ? null : new Date(endedAt.getTime() + next.nextAttemptInMs);
    await query(
      tx,
      'MoveWebhookDelivery',
      `update webhook_deliveries set status = $2, schedule_step = $3, status_reason = $4, next_attempt_at = $5, updated_at = $6 where id = $1`,
      [job.deliveryId, next.status, next.scheduleStep, next.statusReason, nextAttemptAt, endedAt],
    );
    if (next.nextAttemptInMs !== null) {
      await scheduleAttempt(tx, { deliveryId: job.deliveryId, step: next.scheduleStep + 1, manual: false }, next.nextAttemptInMs);
    }
    return next;
  });
}
