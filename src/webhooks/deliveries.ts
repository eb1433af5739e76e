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

/** Who makes an attempt: the queue job and the queue worker holding its lock (graphile-worker's ids). */
export type AttemptMaker = { jobId: string; workerId: string };

/**
 * Marks as interrupted the attempts logged in flight whose maker no longer holds its job: its worker died (the job
 * was unlocked and runs again, or is still waiting to) or the job ended without finishing the attempt. A worker
 * making an attempt holds its job's lock from before the attempt is logged until after it is finished, so an attempt
 * in flight elsewhere is never touched. With `deliveryId` and `jobId`: that delivery's only, and an earlier attempt of
 * the job about to run again counts as ended too (the same worker can take its job back after a failure).
 */
export async function markInterruptedAttempts(
  db: Queryable,
  scope: { deliveryId: string; jobId: string } | null = null,
): Promise<number> {
  const r = await query(
    db,
    'MarkInterruptedWebhookAttempts',
    `update webhook_attempts a set state = 'interrupted'
      where a.state = 'in_flight' and ($1::uuid is null or a.delivery_id = $1)
        and (a.job_id = $2::bigint
             or not exists (select 1 from graphile_worker.jobs j where j.id = a.job_id and j.locked_by = a.worker_id))`,
    [scope?.deliveryId ?? null, scope?.jobId ?? null],
  );
  return r.rowCount ?? 0;
}

/**
 * Logs an attempt as it starts, in flight, before anything is sent: a crash during the send leaves it in the log, to be
 * marked interrupted beside the attempt that sends again (attemptDelivery marks those of its delivery first). The delivery row is locked, so two attempts starting on one delivery are numbered one after the other.
 */
export async function beginAttempt(
  pool: pg.Pool,
  attempt: { job: AttemptJob; maker: AttemptMaker; attemptedAt: Date },
): Promise<number> {
  const { job, maker, attemptedAt } = attempt;
  return inTransaction(pool, async tx => {
    await query(tx, 'LockWebhookDeliveryForAttempt', 'select 1 from webhook_deliveries where id = $1 for update', [
      job.deliveryId,
    ]);
    const r = await query<{ number: number }>(
      tx,
      'BeginWebhookAttempt',
      `insert into webhook_attempts (delivery_id, number, manual, attempted_at, duration_ms, status_code, error, state, job_id, worker_id)
       select $1, coalesce(max(number), 0) + 1, $2, $3, null, null, null, 'in_flight', $4::bigint, $5 from webhook_attempts where delivery_id = $1
       returning number`,
      [job.deliveryId, job.manual, attemptedAt, maker.jobId, maker.workerId],
    );
    return r.rows[0]!.number;
  });
}

/**
 * Finishes the attempt logged by beginAttempt with its answer, and moves the delivery on (afterAttempt), scheduling the
 * next attempt in the same transaction. The delivery row is locked, so two attempts racing on one delivery are logged
 * one after the other. An attempt marked interrupted meanwhile (its worker was taken for dead) gets its answer all the
 * same. The wait before the next attempt counts from `endedAt` (when the answer, the error or the timeout came),
 * which is also when the queue's wait starts: the job is queued `wait` after the database's now(), in this
 * transaction, right after the attempt ended. So `nextAttemptAt` is when the next attempt really runs, also after an
 * attempt that waited for its whole timeout.
 */
export async function recordAttempt(
  pool: pg.Pool,
  attempt: {
    job: AttemptJob;
    number: number;
    endedAt: Date;
    result: AttemptResult;
    delays: readonly number[];
    random: number;
  },
): Promise<AfterAttempt | null> {
  const { job, endedAt, result } = attempt;
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
      'FinishWebhookAttempt',
      `update webhook_attempts set state = 'finished', duration_ms = $3, status_code = $4, error = $5 where delivery_id = $1 and number = $2`,
      [job.deliveryId, attempt.number, result.durationMs, result.statusCode, result.error],
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
      await scheduleAttempt(
        tx,
        { deliveryId: job.deliveryId, step: next.scheduleStep + 1, manual: false },
        next.nextAttemptInMs,
      );
    }
    return next;
  });
}
