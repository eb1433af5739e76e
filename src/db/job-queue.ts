import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import {
  Logger as WorkerLogger,
  run,
  runMigrations,
  type Runner,
  type RunnerOptions,
  type WorkerEvents,
} from 'graphile-worker';
import type pg from 'pg';
import type { Logger } from '../logger.ts';
import { jobQueueLog } from './job-queue-log.ts';
import type { Migration } from './migrations.ts';
import { isDatabaseUnavailable, query } from './pool.ts';
import { startLiveness, type LivenessTiming } from './queue-liveness.ts';

export type JobQueue = { stop(): Promise<void> };

export type JobQueueOptions = Omit<RunnerOptions, 'pgPool' | 'logger' | 'events' | 'noHandleSignals' | 'taskList'> & {
  pgPool: pg.Pool;
  taskList: NonNullable<RunnerOptions['taskList']>;
  /** How often the runner says it is alive, and after how long a silent one's jobs are taken back (queue-liveness.ts). */
  liveness?: LivenessTiming;
};

const graphileWorker = createRequire(import.meta.url)('graphile-worker/package.json') as { version: string };
const quiet = new WorkerLogger(() => () => undefined);

/**
 * graphile-worker's schema, migrated by the library itself (its version table graphile_worker.migrations): its first
 * install is not locked against another process's, so start-up runs it under the migration lock, once per version.
 */
export const jobQueueMigration: Migration = {
  name: 'graphile-worker',
  version: graphileWorker.version,
  apply: pool => runMigrations({ pgPool: pool, logger: quiet }),
};

const defaultLiveness: LivenessTiming = { heartbeatMs: 5_000, deadAfterMs: 20_000 };

/**
 * A graphile-worker runner that mends itself. In graphile-worker 0.16 a worker that cannot release its job (the database
 * went away while the job ran) leaves the queue for good, and its job stays locked for four hours. Here the jobs of such
 * workers are unlocked as soon as the database answers again, and the runner is started anew with its full
 * concurrency (the other workers finish their jobs first). And a job cut off by the death of its process is run again
 * by whichever process runs its tasks, about `deadAfterMs` later (queue-liveness.ts): the runner beats with the ids of
 * its workers and takes back its tasks' jobs locked by workers nobody alive claims.
 */
export async function runJobQueue(name: string, options: JobQueueOptions, log: Logger): Promise<JobQueue> {
  const { liveness: timing = defaultLiveness, ...runOptions } = options;
  const events = new EventEmitter() as WorkerEvents;
  const workerIds: string[] = [];
  events.on('worker:create', ({ worker }) => workerIds.push(worker.workerId));
  const start = () => run({ ...runOptions, events, noHandleSignals: true, logger: jobQueueLog(log, name) });
  let runner: Runner = await start();
  // its workers exist once run() answers (graphile-worker creates them all at once): they are registered before the
  // first beat ends; a job taken in between and cut off is recovered by the age of its lock
  const tasks = Object.keys(options.taskList);
  const liveness = await startLiveness(
    { pool: options.pgPool, log },
    { id: `${name.replace(/\s+/g, '-')}-${randomUUID()}`, workerIds, name, tasks },
    timing,
  );
  const lost: string[] = [];
  let mending: Promise<void> | null = null;
  let stopped = false;

  /** Lost workers are no longer claimed as this runner's. */
  const forget = (gone: string[]) => {
    for (const id of gone) {
      const at = workerIds.indexOf(id);
      if (at >= 0) workerIds.splice(at, 1);
    }
  };
  const mend = async () => {
    for (let attempt = 1; !stopped; attempt++) {
      await new Promise(r => setTimeout(r, Math.min(1000 * attempt, 10_000)));
      if (stopped) return;
      try {
        const lostIds = [...lost];
        await query(
          options.pgPool,
          'UnlockLostQueueWorkers',
          'select graphile_worker.force_unlock_workers($1::text[])',
          [lostIds],
        );
        lost.splice(0, lostIds.length);
        forget(lostIds);
        await runner.stop().catch(() => undefined); // its lost workers ended with an error already
        if (stopped) return;
        runner = await start();
        log.info(
          { queue: name, workerIds: lostIds },
          `${name}: jobs of workers lost while the database was away are unlocked; runner started again`,
        );
        if (lost.length === 0) return; // else more were lost meanwhile, by the runner just stopped
      } catch (err) {
        if (!isDatabaseUnavailable(err))
          log.warn({ err, queue: name }, `${name}: could not start the runner again; trying again`);
      }
    }
  };

  events.on('worker:fatalError', ({ worker }) => {
    lost.push(worker.workerId);
    mending ??= mend().finally(() => (mending = null));
  });

  return {
    async stop() {
      stopped = true;
      await mending;
      // the runner first: its workers release their jobs; then this runner is forgotten, with nothing left to recover
      await runner.stop();
      await liveness.stop();
    },
  };
}

/**
 * Removes at most `batch` jobs that failed for good (attempts spent) and were last tried over `olderThanMs` ago, through
 * graphile-worker's own complete_jobs. Jobs that succeed are deleted by graphile-worker as they finish; only these stay,
 * for an operator to look at. The queue's times are the database's, so the age is measured on its clock.
 */
export async function pruneFailedJobs(pool: pg.Pool, olderThanMs: number, batch: number): Promise<number> {
  const r = await query<{ n: number }>(
    pool,
    'PruneFailedJobs',
    `select count(*)::int as n from graphile_worker.complete_jobs(array(
       select id from graphile_worker.jobs
        where attempts >= max_attempts and locked_at is null and updated_at < now() - $1::float8 * interval '1 millisecond'
        order by id limit $2))`,
    [olderThanMs, batch],
  );
  return r.rows[0]!.n;
}
