import type pg from 'pg';
import type { Clock } from '../clock.ts';
import type { PaymentCheckSettings } from '../config.ts';
import { query } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import { accountsWithPendingPayments } from '../projections/payments.ts';
import { onTheClock } from './on-the-clock.ts';

/** The job queue's task that checks an account for the money of its pending payments (src/background/account-sync.ts). */
export const checkAccountTask = 'check-account';

export type PaymentChecks = {
  /** Hands the accounts whose pending payments are due a check to the queue; answers how many. */
  tick(): Promise<number>;
  /** A payer says they paid: the account is checked now. */
  checkNow(accountId: string): Promise<void>;
  stop(): Promise<void>;
};

/**
 * Checks of a receiving account whose payments wait for money (DESIGN section 11): every `fastSeconds` while its newest
 * pending payment is younger than `fastForMinutes`, then every `slowSeconds` until its last pending payment ends. A
 * check is a sync that costs no points and moves no schedule; it runs as a job of the durable queue under the key
 * check-account:<id>, so one check serves every pending payment of the account, and a check waiting in the queue is
 * not queued twice (by this process or another). When each account was last handed over is kept in this process.
 */
export function startPaymentChecks(
  deps: { pool: pg.Pool; clock: Clock; log: Logger },
  settings: PaymentCheckSettings,
  options: { tickMs?: number } = {},
): PaymentChecks {
  const handedAt = new Map<string, number>();

  const enqueueDue = async () => {
    const now = deps.clock.now().getTime();
    const pending = await accountsWithPendingPayments(deps.pool, deps.clock.now());
    const due = pending.filter(a => {
      const young = now - a.newest.getTime() < settings.fastForMinutes * 60_000;
      const every = (young ? settings.fastSeconds : settings.slowSeconds) * 1000;
      return now - (handedAt.get(a.id) ?? 0) >= every;
    });
    if (due.length === 0) return 0;
    await addCheckJobs(deps.pool, due.map(a => a.id), { now: false });
    for (const a of due) handedAt.set(a.id, now);
    // accounts whose payments all ended are forgotten
    if (handedAt.size > pending.length * 2 + 1000) for (const id of [...handedAt.keys()]) if (!pending.some(a => a.id === id)) handedAt.delete(id);
    return due.length;
  };

  const clock = onTheClock(enqueueDue, options.tickMs ?? 1000, deps.log, 'payment check tick');
  return {
    tick: clock.tick,
    async checkNow(accountId) {
      await addCheckJobs(deps.pool, [accountId], { now: true });
      handedAt.set(accountId, deps.clock.now().getTime());
    },
    stop: clock.stop,
  };
}

/**
 * Queues a check per account under its job key. A check already waiting keeps its run time, unless `now`: then it runs
 * at once (the payer said they paid).
 */
async function addCheckJobs(pool: pg.Pool, accountIds: string[], options: { now: boolean }): Promise<void> {
  await query(
    pool,
    'AddCheckJobs',
    `select count(*) from graphile_worker.add_jobs(
       array(select ($1::text, json_build_object('accountId', id), null, null, 1, 'check-account:' || id, null, null)::graphile_worker.job_spec
             from unnest($2::text[]) as t(id)),
       $3::boolean)`,
    [checkAccountTask, accountIds, !options.now],
  );
}
