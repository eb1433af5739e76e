import type pg from 'pg';
import type { Logger } from '../logger.ts';
import { migrate, type Migration } from './migrations.ts';
import { isDatabaseUnavailable, query, type Queryable } from './pool.ts';

/**
 * Crash recovery for the job queues. graphile-worker 0.16 locks a job for the worker running it and frees the lock only
 * when the job ends, when the worker shuts down gracefully, or four hours later: a job cut off by the death of its
 * process (SIGKILL, out of memory, a lost machine) would wait four hours. The library's remedy is
 * `force_unlock_workers(worker_ids)`, to call with the ids of workers known to be dead; it has no heartbeat of its own
 * (that came with later versions and Worker Pro). So each queue runner (runJobQueue) says which queue workers are its
 * own and that it is alive, in `queue_runners`, every `heartbeatMs`; and each runner looks, at start and at every
 * beat, for jobs of its own tasks locked by a worker that no live runner claims, and hands those workers to
 * force_unlock_workers. Times are the database's, as the queue's are, so the clocks of several processes never
 * disagree.
 */
const runnersSchema = `
  create table if not exists queue_runners (
    id text primary key,
    worker_ids text[] not null,
    -- how long this runner may stay silent before it counts as dead (runners of different queues beat differently)
    dead_after_ms int not null,
    started_at timestamptz not null default now(),
    heartbeat_at timestamptz not null default now()
  );
  -- the webhook queue's table before every queue had one; its rows were only heartbeats
  drop table if exists webhook_runners;`;

export const queueRunnersMigration: Migration = { name: 'queue-runners', steps: [runnersSchema] };

export type RunnerIdentity = { id: string; workerIds: readonly string[]; deadAfterMs: number };
export type LivenessTiming = { heartbeatMs: number; deadAfterMs: number };

/** The table runners beat in (src/db/migrations.ts: made once, under the lock every instance's DDL takes). */
export async function ensureRunnersTable(pool: pg.Pool): Promise<void> {
  await migrate(pool, [queueRunnersMigration]);
}

/** This runner is alive and owns these workers (inserted again if another runner forgot it as dead). */
export async function heartbeat(db: Queryable, runner: RunnerIdentity): Promise<void> {
  await query(
    db,
    'QueueRunnerHeartbeat',
    `insert into queue_runners (id, worker_ids, dead_after_ms) values ($1, $2::text[], $3)
     on conflict (id) do update set worker_ids = excluded.worker_ids, dead_after_ms = excluded.dead_after_ms, heartbeat_at = now()`,
    [runner.id, runner.workerIds, runner.deadAfterMs],
  );
}

/** A runner that stopped cleanly: its workers released their jobs, nothing of it is left to recover. */
export async function forgetRunner(db: Queryable, runnerId: string): Promise<void> {
  await query(db, 'ForgetQueueRunner', 'delete from queue_runners where id = $1', [runnerId]);
}

/**
 * Unlocks the jobs of `tasks` held by dead workers, so that the queue runs them again at once, and answers those
 * workers. A worker is dead when no live runner claims it (one that beat within its own `deadAfterMs`), and its job
 * has been locked for longer than `deadAfterMs` (a runner registers its workers as soon as they exist, so a live one
 * is claimed by then). Jobs of live runners, in this process or any other sharing the database, are never touched;
 * nor are other tasks' jobs (their own runners judge them).
 */
export async function unlockJobsOfDeadWorkers(
  db: Queryable,
  tasks: readonly string[],
  deadAfterMs: number,
): Promise<string[]> {
  const dead = await query<{ worker_id: string }>(
    db,
    'FindDeadQueueWorkers',
    `select distinct j.locked_by as worker_id
       from graphile_worker.jobs j
      where j.task_identifier = any($1::text[]) and j.locked_by is not null
        and j.locked_at < now() - $2::float8 * interval '1 millisecond'
        and not exists (
          select 1 from queue_runners r
           where j.locked_by = any(r.worker_ids) and r.heartbeat_at >= now() - r.dead_after_ms * interval '1 millisecond'
        )`,
    [tasks, deadAfterMs],
  );
  const workerIds = dead.rows.map(r => r.worker_id);
  if (workerIds.length > 0) {
    await query(db, 'UnlockDeadQueueWorkers', 'select graphile_worker.force_unlock_workers($1::text[])', [workerIds]);
  }
  // runners silent for longer than they said they might be are dead too; one that was only slow inserts itself again
  await query(
    db,
    'ForgetDeadQueueRunners',
    `delete from queue_runners where heartbeat_at < now() - dead_after_ms * interval '1 millisecond'`,
  );
  return workerIds;
}

export type Liveness = { stop(): Promise<void> };

/**
 * Beats for the runner and recovers dead workers' jobs of its tasks: once before answering, then every `heartbeatMs`.
 * A failed beat or sweep is logged and tried again at the next beat.
 */
export async function startLiveness(
  deps: { pool: pg.Pool; log: Logger },
  runner: Omit<RunnerIdentity, 'deadAfterMs'> & { name: string; tasks: readonly string[] },
  timing: LivenessTiming,
): Promise<Liveness> {
  const identity = { ...runner, deadAfterMs: timing.deadAfterMs };
  await ensureRunnersTable(deps.pool);
  const tick = async () => {
    try {
      await heartbeat(deps.pool, identity);
      const unlocked = await unlockJobsOfDeadWorkers(deps.pool, runner.tasks, timing.deadAfterMs);
      if (unlocked.length > 0)
        deps.log.warn({ workerIds: unlocked }, `${runner.name}: unlocked the jobs of dead workers`);
    } catch (err) {
      if (!isDatabaseUnavailable(err)) deps.log.warn({ err }, `${runner.name}: heartbeat or recovery failed`); // else the database watch says it
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
      await forgetRunner(deps.pool, runner.id).catch(err =>
        deps.log.warn({ err }, `${runner.name}: could not forget this runner`),
      );
    },
  };
}
