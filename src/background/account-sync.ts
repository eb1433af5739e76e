import type { CommandDeps } from '../commands/deps.ts';
import type pg from 'pg';
import { syncAccount } from '../commands/sync-account.ts';
import { runJobQueue } from '../db/job-queue.ts';
import { query } from '../db/pool.ts';
import { dueAccounts } from '../projections/accounts.ts';
import { onTheClock } from './on-the-clock.ts';
import { checkAccountTask } from './payment-checks.ts';

/**
 * Not a reaction (src/sagas/reaction.ts): a schedule read from the accounts read model feeds a job queue; no event is
 * handed to it.
 *
 * Scheduled account syncs. Which accounts are due comes from the accounts read model and the injectable clock
 * (next_sync_at <= now); running them is the job of a durable PostgreSQL queue (graphile-worker): a job per
 * (account, slot), deduplicated by its key, retried with backoff when it crashes, picked up again after a restart.
 */
export type AccountSyncScheduler = {
  /** Enqueues every account that is due now; answers how many. */
  tick(): Promise<number>;
  stop(): Promise<void>;
};

type SyncJob = { accountId: string; slot: string };

const isSyncJob = (payload: unknown): payload is SyncJob =>
  typeof payload === 'object' &&
  payload !== null &&
  typeof (payload as SyncJob).accountId === 'string' &&
  typeof (payload as SyncJob).slot === 'string';

/**
 * Hands many (account, slot) jobs to the queue in one statement (graphile-worker's add_jobs), each under the job
 * key sync-account:<id>, keeping the run time of a job that is already waiting (preserve_run_at).
 */
async function addSyncJobs(pool: pg.Pool, jobs: { id: string; slot: string }[]): Promise<void> {
  await query(
    pool,
    'AddSyncJobs',
    `select count(*) from graphile_worker.add_jobs(
       array(select ('sync-account', json_build_object('accountId', id, 'slot', slot), null, null, $3::int, 'sync-account:' || id, null, null)::graphile_worker.job_spec
             from unnest($1::text[], $2::text[]) as t(id, slot)),
       true)`,
    [jobs.map(j => j.id), jobs.map(j => j.slot), maxAttempts],
  );
}

/** A sync job that keeps failing (not a provider failure: those are recorded and rescheduled) is given up after this. */
const maxAttempts = 5;

export async function startAccountSync(
  deps: CommandDeps & { pool: pg.Pool },
  options: { concurrency?: number; tickMs?: number; batch?: number } = {},
): Promise<AccountSyncScheduler> {
  const runner = await runJobQueue(
    'job queue',
    {
      pgPool: deps.pool,
      // jobs mostly wait on the provider and the database, not on this CPU
      concurrency: options.concurrency ?? 24,
      pollInterval: 1000,
      taskList: {
        'sync-account': async payload => {
          if (!isSyncJob(payload)) return; // a malformed job is dropped, not retried for ever
          await syncAccount(deps, payload.accountId, payload.slot);
        },
        // pending payments asked for it (payment-checks.ts): costs no points, moves no schedule
        [checkAccountTask]: async payload => {
          const accountId = (payload as { accountId?: unknown } | null)?.accountId;
          if (typeof accountId === 'string') await syncAccount(deps, accountId, null, { paymentCheck: true });
        },
      },
    },
    deps.log,
  );

  // slots already handed to the queue by this process; the job key deduplicates across processes
  const enqueued = new Map<string, string>();
  const enqueueDue = async () => {
    const due = await dueAccounts(deps.pool, deps.clock.now(), options.batch ?? 1000);
    const fresh = due
      .map(d => ({ id: d.id, slot: d.next_sync_at.toISOString() }))
      .filter(d => enqueued.get(d.id) !== d.slot);
    if (fresh.length === 0) return 0;
    await addSyncJobs(deps.pool, fresh);
    for (const d of fresh) enqueued.set(d.id, d.slot);
    if (enqueued.size > 100_000) enqueued.clear();
    return fresh.length;
  };

  const clock = onTheClock(enqueueDue, options.tickMs ?? 1000, deps.log, 'account sync scheduler tick');
  return {
    tick: clock.tick,
    async stop() {
      await clock.stop();
      await runner.stop();
    },
  };
}
