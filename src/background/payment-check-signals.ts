import type pg from 'pg';
import { migrate, type Migration } from '../db/migrations.ts';
import { query, type Queryable } from '../db/pool.ts';
import type { CheckHistory, CheckSignals } from '../domain/check-cadence.ts';

/**
 * What the payers of each receiving account were last seen doing, for the cadence of its checks
 * (src/domain/check-cadence.ts): a page of one of its payments asking for its status while in sight (on a computer, or
 * on a phone), a page going out of sight (its payer off to the wallet app), a page closed, a QR image fetched, a QR
 * downloaded. Kept in PostgreSQL, since a payer's requests reach any instance and the ticks of every instance read it.
 */
const signalsSchema = `
  create table if not exists payment_check_signals (
    account_id text primary key,
    page_seen_at timestamptz,
    qr_fetched_at timestamptz
  );`;

/** The table's unit of start-up DDL (src/db/migrations.ts). */
export const paymentCheckSignalsMigration: Migration = {
  name: 'payment-check-signals',
  steps: [
    signalsSchema,
    // a page's visibility, where it is seen, and a QR downloaded apart from one shown (src/domain/check-cadence.ts)
    `alter table payment_check_signals add column if not exists page_hidden_at timestamptz,
       add column if not exists phone_page_seen_at timestamptz,
       add column if not exists qr_downloaded_at timestamptz;`,
    // a page closed apart from one out of sight: its payer is gone, not in the wallet app
    `alter table payment_check_signals add column if not exists page_closed_at timestamptz;`,
  ],
};

const ready = new WeakMap<pg.Pool, Promise<void>>();
export function ensureSignals(pool: pg.Pool): Promise<void> {
  let done = ready.get(pool);
  if (!done) {
    done = migrate(pool, [paymentCheckSignalsMigration]).then(() => undefined);
    ready.set(pool, done);
    done.catch(() => ready.delete(pool));
  }
  return done;
}

export type PayerSignal = 'page' | 'phone' | 'hidden' | 'closed' | 'qr' | 'download';

/**
 * A signal is written at most once per this long per account and kind: a page polling every few seconds, or several
 * pages of one account, cost one small update now and then, and the cadence reads "open" over a longer span. A page
 * going out of sight says so once, and the cadence reads its window from the first of a burst just as well.
 */
export const signalCoalesceMs = 5000;

const columnOf = {
  page: 'page_seen_at',
  phone: 'phone_page_seen_at',
  hidden: 'page_hidden_at',
  closed: 'page_closed_at',
  qr: 'qr_fetched_at',
  download: 'qr_downloaded_at',
} as const satisfies Record<PayerSignal, string>;

/**
 * Records that a payer of the account showed up at `at`. Coalesced twice: in this process (no statement at all when it
 * wrote the same one a moment ago) and in the statement (no row written when another instance did).
 */
export function payerSignals(pool: pg.Pool) {
  const written = new Map<string, number>();
  return async function record(accountId: string, kind: PayerSignal, at: Date): Promise<void> {
    const key = `${kind}:${accountId}`;
    const last = written.get(key);
    if (last !== undefined && at.getTime() - last < signalCoalesceMs && at.getTime() >= last) return;
    written.set(key, at.getTime());
    if (written.size > 10_000) written.clear(); // a bound, not a cache: forgetting costs one statement
    await ensureSignals(pool);
    const column = columnOf[kind];
    await query(
      pool,
      `RecordPayerSignal_${kind}`,
      `insert into payment_check_signals as s (account_id, ${column}) values ($1, $2)
       on conflict (account_id) do update set ${column} = excluded.${column}
        where s.${column} is null or s.${column} < excluded.${column} - $3 * interval '1 millisecond'`,
      [accountId, at, signalCoalesceMs],
    );
  };
}

/** The signals of the accounts, by account id (none recorded: nulls). */
export async function signalsOf(
  db: Queryable,
  accountIds: string[],
): Promise<Map<string, Omit<CheckSignals, 'newestCreatedAt' | 'providerPushes'>>> {
  const r = await query<{
    account_id: string;
    page_seen_at: Date | null;
    phone_page_seen_at: Date | null;
    page_hidden_at: Date | null;
    page_closed_at: Date | null;
    qr_fetched_at: Date | null;
    qr_downloaded_at: Date | null;
  }>(
    db,
    'ReadPayerSignals',
    `select account_id, page_seen_at, phone_page_seen_at, page_hidden_at, page_closed_at, qr_fetched_at,
            qr_downloaded_at
       from payment_check_signals where account_id = any($1::text[])`,
    [accountIds],
  );
  return new Map(
    r.rows.map(row => [
      row.account_id,
      {
        pageSeenAt: row.page_seen_at,
        phonePageSeenAt: row.phone_page_seen_at,
        pageHiddenAt: row.page_hidden_at,
        pageClosedAt: row.page_closed_at,
        qrFetchedAt: row.qr_fetched_at,
        qrDownloadedAt: row.qr_downloaded_at,
      },
    ]),
  );
}

/** How many of an account's last paid payments teach its window. */
export const historyLength = 20;

/**
 * The creation-to-paid times of each account's last paid payments, from the payments read model; read again for an
 * account after `refreshMs` (a window learned over twenty payments moves slowly), so a tick reads few accounts.
 */
export function paymentHistories(db: Queryable, refreshMs = 5 * 60_000) {
  const known = new Map<string, { readAt: number; history: CheckHistory }>();
  return async function historiesOf(accountIds: string[], now: Date): Promise<Map<string, CheckHistory>> {
    const stale = accountIds.filter(id => {
      const k = known.get(id);
      return !k || now.getTime() - k.readAt >= refreshMs || now.getTime() < k.readAt;
    });
    if (stale.length > 0) {
      const r = await query<{ id: string; paid_after_ms: number[] | null }>(
        db,
        'ReadPaymentHistories',
        `select t.id, array(
           select (extract(epoch from coalesce(p.paid_at, p.completed_at) - p.created_at) * 1000)::float8
             from payments p
            where p.receiving_account_id = t.id::uuid and p.status = 'COMPLETED'
            order by p.created_at desc limit $2) as paid_after_ms
           from unnest($1::text[]) as t(id)`,
        [stale, historyLength],
      );
      for (const row of r.rows)
        known.set(row.id, { readAt: now.getTime(), history: { paidAfterMs: row.paid_after_ms ?? [] } });
      if (known.size > 50_000) known.clear();
    }
    return new Map(accountIds.map(id => [id, known.get(id)?.history ?? { paidAfterMs: [] }]));
  };
}
