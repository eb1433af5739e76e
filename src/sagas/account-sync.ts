import { Logger as WorkerLogger, run, type Runner } from 'graphile-worker';
import type pg from 'pg';
import { syncAccount, type SyncDeps } from '../commands/sync-account.ts';
import { dueAccounts } from '../projections/accounts.ts';

/**
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
  typeof payload === 'object' && payload !== null && typeof (payload as SyncJob).accountId === 'string' && typeof (payload as SyncJob).slot === 'string';

export async function startAccountSync(
  deps: SyncDeps & { pool: pg.Pool },
  options: { concurrency?: number; tickMs?: number; batch?: number } = {},
): Promise<AccountSyncScheduler> {
  const runner: Runner = await run({
    pgPool: deps.pool,
    // jobs mostly wait on the provider and the database, not on this CPU
    concurrency: options.concurrency ?? 24,
    noHandleSignals: true,
    pollInterval: 1000,
    logger: new WorkerLogger(() => (level, message, meta) => {
      if (level === 'error' || level === 'warning') deps.log.warn({ meta }, `job queue: ${message}`);
    }),
    taskList: {
      'sync-account': async payload => {
        if (!isSyncJob(payload)) return; // a malformed job is dropped, not retried for ever
        await syncAccount(deps, payload.accountId, payload.slot);
      },
    },
  });

  // slots already handed to the queue by this process; the job key deduplicates across processes
  const enqueued = new Map<string, string>();
  const tick = async () => {
    const due = await dueAccounts(deps.pool, deps.clock.now(), options.batch ?? 1000);
    let count = 0;
    for (const { id, next_sync_at } of due) {
      const slot = next_sync_at.toISOString();
      if (enqueued.get(id) === slot) continue;
      await runner.addJob('sync-account', { accountId: id, slot } satisfies SyncJob, {
        jobKey: `sync-account:${id}`,
        jobKeyMode: 'preserve_run_at',
        maxAttempts: 5,
      });
      enqueued.set(id, slot);
      count++;
    }
    if (enqueued.size > 100_000) enqueued.clear();
    return count;
  };

  let stopped = false;
  let ticking: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    if (stopped) return;
    ticking = tick().catch(err => deps.log.error({ err }, 'account sync scheduler tick failed'));
  }, options.tickMs ?? 1000);

  return {
    tick,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await ticking;
      await runner.stop();
    },
  };
}
