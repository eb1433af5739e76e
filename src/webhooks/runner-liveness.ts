import type pg from 'pg';
import { isDatabaseUnavailable, query, type Queryable } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import { deliverWebhookTask } from './jobs.ts';

/**
 * Crash recovery for webhook attempts. graphile-worker 0.16 locks a job for the worker running it and frees the lock
 * only when the job ends, when the worker shuts down gracefully, or four hours later: an attempt cut off by the death
 * of its process (SIGKILL, out of memory, a lost machine) would wait four hours. The library's remedy is
 * `force_unlock_workers(worker_ids)`, to call with the ids of workers known to be dead; it has no heartbeat of its own
 * (that came with later versions and Worker Pro). So each webhook runner says which queue workers are its own and
 * that it is alive, in `webhook_runners`, every `heartbeatMs`; and each runner looks, at start and at every beat,
 * for webhook jobs locked by a worker that no live runner claims, and hands those workers to force_unlock_workers.
 * Times are the database's, as the queue's are, so the clocks of several processes never disagree.
 */
export const runnersSchema = `
  create table if not exists webhook_runners (
    id text primary key,
    worker_ids text[] not null,
    started_at timestamptz not null default now(),
    heartbeat_at timestamptz not null default now()
  );`;

export type RunnerIdentity = { id: string; workerIds: readonly string[] };

/** This runner is alive and owns these workers (inserted again if another runner forgot it as dead). */
export async function heartbeat(db: Queryable, runner: RunnerIdentity): Promise<void> {
  await query(
    db,
    'WebhookRunnerHeartbeat',
    `insert into webhook_runners (id, worker_ids) values ($1, $2::text[])
     on conflict (id) do update set worker_ids = excluded.worker_ids, heartbeat_at = now()`,
    [runner.id, runner.workerIds],
  );
}

/** A runner that stopped cleanly: its workers released their jobs, nothing of it is left to recover. */
export async function forgetRunner(db: Queryable, runnerId: string): Promise<void> {
  await query(db, 'ForgetWebhookRunner', 'delete from webhook_runners where id = $1', [runnerId]);
}

/**
 * Unlocks the webhook jobs of dead workers, so that the queue runs them again at once, and answers those workers.
 * A worker is dead when no runner that beat within `deadAfterMs` claims it, and its job has been locked for longer
 * than that too (a runner registers its workers as soon as they exist, so a live one is claimed by then). Jobs of
 * live runners, in this process or any other sharing the database, are never touched; nor are other tasks' jobs.
 */
export async function unlockJobsOfDeadWorkers(db: Queryable, deadAfterMs: number): Promise<string[]> {
  const dead = await query<{ worker_id: string }>(
    db,
    'FindDeadWebhookWorkers',
    `select distinct j.locked_by as worker_id
       from graphile_worker.jobs j
      where j.task_identifier = $1 and j.locked_by is not null
        and j.locked_at < now() - $2::float8 * interval '1 millisecond'
        and not exists (
          select 1 from webhook_runners r
           where j.locked_by = any(r.worker_ids) and r.heartbeat_at >= now() - $2::float8 * interval '1 millisecond'
        )`,
    [deliverWebhookTask, deadAfterMs],
  );
  const workerIds = dead.rows.map(r => r.worker_id);
  if (workerIds.length > 0) {
    await query(db, 'UnlockDeadWebhookWorkers', 'select graphile_worker.force_unlock_workers($1::text[])', [workerIds]);
  }
  // runners silent for that long are dead too; one that was only slow inserts itself again at its next beat
  await query(db, 'ForgetDeadWebhookRunners', `delete from webhook_runners where heartbeat_at < now() - $1::float8 * interval '1 millisecond'`, [
    deadAfterMs,
  ]);
  return workerIds;
}

export type Liveness = { stop(): Promise<void> };

/**
 * Beats for the runner and recovers dead workers' jobs: once before answering, then every `heartbeatMs`. A failed
 * beat or sweep is logged and tried again at the next beat.
 */
export async function startLiveness(
  deps: { pool: pg.Pool; log: Logger },
  runner: RunnerIdentity,
  timing: { heartbeatMs: number; deadAfterMs: number },
): Promise<Liveness> {
  const tick = async () => {
    try {
      await heartbeat(deps.pool, runner);
      const unlocked = await unlockJobsOfDeadWorkers(deps.pool, timing.deadAfterMs);
      if (unlocked.length > 0) deps.log.warn({ workerIds: unlocked }, 'webhook queue: unlocked the jobs of dead workers');
    } catch (err) {
      if (!isDatabaseUnavailable(err)) deps.log.warn({ err }, 'webhook queue: heartbeat or recovery failed'); // else the database watch says it
    }
  };
  let busy: Promise<void> | null = null;
  const beat = () => (busy ??= tick().finally(() => (busy = null))); // a slow beat is not overtaken by the next
  await beat();
  const timer = setInterval(() => void beat(), timing.heartbeatMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await busy;
      await forgetRunner(deps.pool, runner.id).catch(err => deps.log.warn({ err }, 'webhook queue: could not forget this runner'));
    },
  };
}
