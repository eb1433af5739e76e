import { EventEmitter } from 'node:events';
import { run, type Runner, type RunnerOptions, type WorkerEvents } from 'graphile-worker';
import type pg from 'pg';
import type { Logger } from '../logger.ts';
import { jobQueueLog } from './job-queue-log.ts';
import { isDatabaseUnavailable, query } from './pool.ts';

export type JobQueue = { stop(): Promise<void> };

export type JobQueueOptions = Omit<RunnerOptions, 'pgPool' | 'logger' | 'events' | 'noHandleSignals'> & {
  pgPool: pg.Pool;
  /** graphile-worker's events, for those who follow its workers (the webhook runner records their ids). */
  events?: WorkerEvents;
};

/**
 * A graphile-worker runner that mends itself. In graphile-worker 0.16 a worker that cannot release its job (the database
 * went away while the job ran) leaves the queue for good, and its job stays locked for four hours. Here the jobs of such
 * workers are unlocked as soon as the database answers again, and the runner is started anew with its full
 * concurrency (the other workers finish their jobs first).
 */
export async function runJobQueue(name: string, options: JobQueueOptions, log: Logger): Promise<JobQueue> {
  const events = options.events ?? (new EventEmitter() as WorkerEvents);
  const start = () => run({ ...options, events, noHandleSignals: true, logger: jobQueueLog(log, name) });
  let runner: Runner = await start();
  const lost: string[] = [];
  let mending: Promise<void> | null = null;
  let stopped = false;

  const mend = async () => {
    for (let attempt = 1; !stopped; attempt++) {
      await new Promise(r => setTimeout(r, Math.min(1000 * attempt, 10_000)));
      if (stopped) return;
      try {
        const workerIds = [...lost];
        await query(options.pgPool, 'UnlockLostQueueWorkers', 'select graphile_worker.force_unlock_workers($1::text[])', [workerIds]);
        lost.splice(0, workerIds.length);
        await runner.stop().catch(() => undefined); // its lost workers ended with an error already
        if (stopped) return;
        runner = await start();
        log.info({ queue: name, workerIds }, `${name}: jobs of workers lost while the database was away are unlocked; runner started again`);
        if (lost.length === 0) return; // else more were lost meanwhile, by the runner just stopped
      } catch (err) {
        if (!isDatabaseUnavailable(err)) log.warn({ err, queue: name }, `${name}: could not start the runner again; trying again`);
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
      await runner.stop();
    },
  };
}
