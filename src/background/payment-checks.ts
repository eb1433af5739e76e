import type pg from 'pg';
import type { Clock } from '../clock.ts';
import type { PaymentCheckSettings } from '../config.ts';
import { migrate, type Migration } from '../db/migrations.ts';
import { query, type Queryable } from '../db/pool.ts';
import { checkIntervalMs } from '../domain/check-cadence.ts';
import type { Logger } from '../logger.ts';
import { accountsWithPendingPayments } from '../projections/payments.ts';
import { onTheClock } from './on-the-clock.ts';
import { ensureSignals, payerSignals, paymentHistories, signalsOf, type PayerSignal } from './payment-check-signals.ts';

/** The job queue's task that checks an account for the money of its pending payments (src/background/account-sync.ts). */
export const checkAccountTask = 'check-account';

export type PaymentChecks = {
  /** Hands the accounts whose pending payments are due a check to the queue; answers how many. */
  tick(): Promise<number>;
  /** A payer says they paid: the account is checked now. */
  checkNow(accountId: string): Promise<void>;
  /** A payer of the account shows up (its page asks for the status, its QR is fetched): the cadence draws closer. */
  payerSeen(accountId: string, kind: PayerSignal): Promise<void>;
  stop(): Promise<void>;
};

/**
 * When each account was last handed to the queue, shared by every instance on the database: a check is handed over by
 * whichever instance claims it first, so the provider sees one check per interval however many instances tick.
 */
const handoversSchema = `
  create table if not exists payment_check_handovers (
    account_id text primary key,
    handed_at timestamptz not null
  );`;

/** The table's unit of start-up DDL (src/db/migrations.ts). */
export const paymentCheckHandoversMigration: Migration = { name: 'payment-check-handovers', steps: [handoversSchema] };

const ready = new WeakMap<pg.Pool, Promise<void>>();
function ensureHandovers(pool: pg.Pool): Promise<void> {
  let done = ready.get(pool);
  if (!done) {
    done = migrate(pool, [paymentCheckHandoversMigration]).then(() => undefined);
    ready.set(pool, done);
    done.catch(() => ready.delete(pool));
  }
  return done;
}

/**
 * Not a reaction (src/sagas/reaction.ts): the clock drives it, over the pending payments' read model, and its one
 * statement claims and queues the checks of many accounts at once across instances.
 *
 * Checks of a receiving account whose payments wait for money, at the cadence of
 * src/domain/check-cadence.ts: closer while a payer shows up (its page open, its QR fetched, the window in which the
 * account's payers usually pay), rarer as nobody does, never closer than the provider's floor nor further apart than
 * `slowSeconds`, until its last pending payment ends. What the payers did is read from payment_check_signals, written
 * by whichever instance served them. A check is a sync that costs no points and moves no schedule; it runs as a job of the durable queue under the key
 * check-account:<id>, so one check serves every pending payment of the account, and a check waiting in the queue is
 * not queued twice. When each account was last handed over is kept in PostgreSQL (payment_check_handovers) and claimed
 * in the statement that queues the check, so several instances ticking at once hand each check over once.
 */
export function startPaymentChecks(
  deps: { pool: pg.Pool; clock: Clock; log: Logger },
  settings: PaymentCheckSettings,
  options: { tickMs?: number } = {},
): PaymentChecks {
  let tidiedAt = 0;
  const historiesOf = paymentHistories(deps.pool);
  const recordSignal = payerSignals(deps.pool);
  const pushing = new Set(settings.pushingProviders ?? []);
  const providersOf = accountProviders(deps.pool);

  const enqueueDue = async () => {
    await Promise.all([ensureHandovers(deps.pool), ensureSignals(deps.pool)]);
    const now = deps.clock.now();
    const pending = await accountsWithPendingPayments(deps.pool, now);
    if (now.getTime() - tidiedAt >= 60 * 60_000) {
      // accounts whose payments all ended long ago are forgotten
      await query(
        deps.pool,
        'ForgetPaymentCheckHandovers',
        'delete from payment_check_handovers where handed_at < $1',
        [new Date(now.getTime() - 24 * 3600_000)],
      );
      tidiedAt = now.getTime();
    }
    if (pending.length === 0) return 0;
    const ids = pending.map(a => a.id);
    const [signals, histories, providers] = await Promise.all([
      signalsOf(deps.pool, ids),
      historiesOf(ids, now),
      pushing.size > 0 ? providersOf(ids) : new Map<string, string>(),
    ]);
    const everyMs = pending.map(a =>
      checkIntervalMs(
        {
          newestCreatedAt: a.newest,
          providerPushes: pushing.has(providers.get(a.id) ?? ''),
          pageSeenAt: null,
          phonePageSeenAt: null,
          pageHiddenAt: null,
          pageClosedAt: null,
          qrFetchedAt: null,
          qrDownloadedAt: null,
          ...signals.get(a.id),
        },
        histories.get(a.id)!,
        now,
        settings,
      ),
    );
    return claimAndAddCheckJobs(
      deps.pool,
      pending.map(a => a.id),
      everyMs,
      now,
    );
  };

  const clock = onTheClock(enqueueDue, options.tickMs ?? 1000, deps.log, 'payment check tick');
  return {
    tick: clock.tick,
    async checkNow(accountId) {
      await ensureHandovers(deps.pool);
      await claimAndAddCheckJobs(deps.pool, [accountId], [0], deps.clock.now(), { now: true });
    },
    payerSeen: (accountId, kind) => recordSignal(accountId, kind, deps.clock.now()),
    stop: clock.stop,
  };
}

/** The provider of each account, read once per account: an account's provider never changes. */
function accountProviders(db: Queryable) {
  const known = new Map<string, string>();
  return async function providersOf(accountIds: string[]): Promise<Map<string, string>> {
    const unknown = accountIds.filter(id => !known.has(id));
    if (unknown.length > 0) {
      if (known.size > 50_000) known.clear(); // a bound, not a cache: forgetting costs one read
      const r = await query<{ id: string; provider_code: string }>(
        db,
        'ReadAccountProviders',
        'select id::text, provider_code from accounts where id = any($1::uuid[])',
        [unknown],
      );
      for (const row of r.rows) known.set(row.id, row.provider_code);
    }
    return known;
  };
}

/**
 * Claims the accounts last handed over at least their interval before `now` (the conditional upsert locks each row, so
 * of two instances claiming one account at once only the first gets it back) and queues a check for each under its
 * job key, in one statement; answers how many were claimed. A check already waiting keeps its run time, unless `now`:
 * then it runs at once (the payer said they paid).
 */
async function claimAndAddCheckJobs(
  pool: pg.Pool,
  accountIds: string[],
  everyMs: number[],
  now: Date,
  options: { now: boolean } = { now: false },
): Promise<number> {
  const r = await query<{ claimed: number }>(
    pool,
    'ClaimAndAddCheckJobs',
    `with due as (
       select t.id, t.every_ms from unnest($2::text[], $3::float8[]) as t(id, every_ms)
         left join payment_check_handovers h on h.account_id = t.id
        where h.account_id is null or h.handed_at <= $4::timestamptz - t.every_ms * interval '1 millisecond'
     ),
     claimed as (
       insert into payment_check_handovers as h (account_id, handed_at)
       select id, $4::timestamptz from due
       on conflict (account_id) do update set handed_at = excluded.handed_at
         where h.handed_at <= excluded.handed_at - (select d.every_ms from due d where d.id = h.account_id) * interval '1 millisecond'
       returning account_id
     ),
     queued as (
       select count(*) from graphile_worker.add_jobs(
         array(select ($1::text, json_build_object('accountId', account_id), null, null, 1, 'check-account:' || account_id, null, null)::graphile_worker.job_spec
                 from claimed),
         $5::boolean)
     )
     select (select count(*) from claimed)::int as claimed, (select count(*) from queued)::int as queued`,
    [checkAccountTask, accountIds, everyMs, now, !options.now],
  );
  return r.rows[0]?.claimed ?? 0;
}
