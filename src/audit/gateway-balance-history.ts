import { query, type Queryable } from '../db/pool.ts';
import { refuse } from '../errors.ts';
import type { ReconciliationPeriod } from './gateway-reconciliation.ts';
import { reportedAtSql } from './ledger-periods.ts';
import { accountNames, merchantNames, type AccountNames, type MerchantNames } from './report-names.ts';

/**
 * The balance history of one merchant or one holding account: for each WIB day of any period, each of its ledger
 * accounts' opening, debits, credits and closing, placed by the reports' one rule (ledger-periods.ts: effective time,
 * closed months' prior-period items). Figures keep the ledger's sign, as the reconciliation's accounts table does:
 * debit positive, so a holding account's cash is positive and what the platform owes a merchant is negative.
 * A day's closing is the next day's opening; the last day's closing is also summed on its own (`closing` of the
 * accounts), so `consistent` checks the days against the postings rather than against themselves.
 */

export type BalanceHistorySubject =
  | ({ kind: 'merchant'; merchantId: string } & MerchantNames)
  | ({ kind: 'holdingAccount'; holdingAccountId: string } & AccountNames);

/** Which balance an account of the subject is: a merchant's three, a holding account's cash. */
export type HistoryBalance = 'pending' | 'settled' | 'onHold' | 'cash';

export type BalanceHistoryRow = {
  day: string;
  account: string;
  balance: HistoryBalance;
  postings: number;
  opening: number;
  debits: number;
  credits: number;
  closing: number;
};
export type BalanceHistoryAccount = Omit<BalanceHistoryRow, 'day'> & {
  /** the days carried from the opening end at the closing summed on its own */
  consistent: boolean;
};
export type BalanceHistory = {
  period: { from: string; to: string; timeZone: 'Asia/Jakarta'; startsAt: string; endsAt: string };
  subject: BalanceHistorySubject;
  /** the whole period, per account */
  accounts: BalanceHistoryAccount[];
  /** one row per WIB day and account, days in order */
  days: BalanceHistoryRow[];
  consistent: boolean;
};

export type HistoryOf = { merchantId: string } | { holdingAccountId: string };

const accountsOf = (of: HistoryOf): { account: string; balance: HistoryBalance }[] =>
  'merchantId' in of
    ? (['pending', 'settled', 'onHold'] as const).map(balance => ({
        account: `merchant:${of.merchantId}:${balance}`,
        balance,
      }))
    : [{ account: `holding:${of.holdingAccountId}`, balance: 'cash' }];

/** The subject with its names; 404 when no user, account or posting has that id. */
async function subjectOf(db: Queryable, of: HistoryOf): Promise<BalanceHistorySubject> {
  const id = 'merchantId' in of ? of.merchantId : of.holdingAccountId;
  // a merchant is a user, a holding account an account; either with postings under its id (a rebuilt read model)
  const known = await query<{ known: boolean }>(
    db,
    'BalanceHistoryKnown',
    `select exists (select 1 from users where id = $1::uuid and $3) or exists (select 1 from accounts where id = $1::uuid and not $3)
       or exists (select 1 from gateway_postings where account = any($2::text[])) as known`,
    [id, accountsOf(of).map(a => a.account), 'merchantId' in of],
  );
  if ('merchantId' in of) {
    if (!known.rows[0]!.known) throw refuse('NOT_FOUND', { message: 'No merchant has that id' });
    return { kind: 'merchant', merchantId: of.merchantId, ...(await merchantNames(db, [id])).get(id)! };
  }
  if (!known.rows[0]!.known) throw refuse('ACCOUNT_NOT_FOUND', { message: 'No holding account has that id' });
  return { kind: 'holdingAccount', holdingAccountId: id, ...(await accountNames(db, [id])).get(id)! };
}

export async function balanceHistory(
  db: Queryable,
  period: ReconciliationPeriod,
  of: HistoryOf,
): Promise<BalanceHistory> {
  const subject = await subjectOf(db, of);
  const accounts = accountsOf(of);
  const at = reportedAtSql();
  const names = accounts.map(a => a.account);
  // the index on (account, reported_at) finds what is reported before the end without the account's later postings
  const before = `account = any($1::text[]) and ${at} < $3`;
  const bounds = await query<{ account: string; opening: number; closing: number }>(
    db,
    'BalanceHistoryBounds',
    `select account, coalesce(sum(amount) filter (where ${at} < $2), 0)::bigint as opening, sum(amount)::bigint as closing
     from gateway_postings where ${before} group by account`,
    [names, period.startsAt, period.endsAt],
  );
  const days = await query<{ day: string; account: string; postings: number; debits: number; credits: number }>(
    db,
    'BalanceHistoryDays',
    `select (${at} at time zone 'Asia/Jakarta')::date::text as day, account, count(*)::int as postings,
       coalesce(sum(amount) filter (where amount > 0), 0)::bigint as debits,
       coalesce(-sum(amount) filter (where amount < 0), 0)::bigint as credits
     from gateway_postings where ${before} and ${at} >= $2 group by 1, 2`,
    [names, period.startsAt, period.endsAt],
  );
  const moved = new Map(days.rows.map(r => [`${r.day} ${r.account}`, r]));
  const rows: BalanceHistoryRow[] = [];
  const totals = accounts.map(({ account, balance }) => {
    const bound = bounds.rows.find(b => b.account === account);
    const total = { account, balance, postings: 0, opening: bound?.opening ?? 0, debits: 0, credits: 0, closing: 0 };
    let carried = total.opening;
    for (const day of period.days) {
      const m = moved.get(`${day} ${account}`);
      const row = {
        day,
        account,
        balance,
        postings: m?.postings ?? 0,
        opening: carried,
        debits: m?.debits ?? 0,
        credits: m?.credits ?? 0,
        closing: carried + (m?.debits ?? 0) - (m?.credits ?? 0),
      };
      rows.push(row);
      carried = row.closing;
      total.postings += row.postings;
      total.debits += row.debits;
      total.credits += row.credits;
    }
    total.closing = bound?.closing ?? 0;
    return { ...total, consistent: carried === total.closing };
  });
  rows.sort((a, b) => a.day.localeCompare(b.day));
  return {
    period: {
      from: period.from,
      to: period.to,
      timeZone: 'Asia/Jakarta',
      startsAt: period.startsAt.toISOString(),
      endsAt: period.endsAt.toISOString(),
    },
    subject,
    accounts: totals,
    days: rows,
    consistent: totals.every(t => t.consistent),
  };
}
