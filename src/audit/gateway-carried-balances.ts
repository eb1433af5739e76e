import { query, type Queryable } from '../db/pool.ts';
import type { AccountKind } from './gateway-reconciliation.ts';
import { placement, reportedAtSql, type PeriodBounds, type PeriodPosting } from './ledger-periods.ts';

/**
 * Every ledger account's balance carried through a period: its opening (the postings placed before the period), its
 * debits and credits in the period, and its closing (the postings placed before the period's end), each summed on its
 * own so that closing = opening + debits - credits is a check, not a definition. Debit positive, credit negative, as
 * the postings: what the platform owes closes negative. One period's closing is the next one's opening because both
 * are the sum of the same postings (ledger-periods.ts places each posting once).
 */

export type AccountSums = { account: string; opening: number; debits: number; credits: number; closing: number };
export type AccountPeriod = AccountSums & {
  kind: AccountKind;
  /** closing = opening + debits - credits */
  consistent: boolean;
};
export type KindPeriod = {
  kind: AccountKind;
  accounts: number;
  opening: number;
  debits: number;
  credits: number;
  closing: number;
};
export type CarriedBalances = {
  /** every account carried, and the openings and closings each sum to zero (the ledger balanced at both bounds) */
  balanced: boolean;
  accounts: AccountPeriod[];
  /** the accounts summed by kind (the trial balance's columns), in the order of `kinds` */
  kinds: KindPeriod[];
};

/** The kind of a ledger account, as the trial balance totals them (gateway-reconciliation.ts's SQL says the same). */
export function kindOf(account: string): AccountKind {
  if (account.startsWith('holding:')) return 'holding';
  if (account.startsWith('merchant:')) {
    if (account.endsWith(':pending')) return 'pending';
    if (account.endsWith(':settled')) return 'settled';
    if (account.endsWith(':onHold')) return 'onHold';
    return 'other';
  }
  const platform: Record<string, AccountKind> = {
    'platform:suspense': 'suspense',
    'platform:fees': 'fees',
    'platform:unique-codes': 'uniqueCodes',
    'bank:payouts': 'payouts',
    'platform:equity': 'equity',
  };
  return platform[account] ?? 'other';
}

/** Each account's sums over postings, placed by ledger-periods.ts: what the report's SQL sums in the database. */
export function accountSums(postings: readonly PeriodPosting[], bounds: PeriodBounds): AccountSums[] {
  const sums = new Map<string, AccountSums>();
  for (const p of postings) {
    const place = placement(p, bounds);
    if (place === 'after') continue;
    const s = sums.get(p.account) ?? { account: p.account, opening: 0, debits: 0, credits: 0, closing: 0 };
    if (place === 'before') s.opening += p.amount;
    else if (p.amount > 0) s.debits += p.amount;
    else s.credits -= p.amount;
    s.closing += p.amount;
    sums.set(p.account, s);
  }
  // code point order, as the database's "C" collation
  return [...sums.values()].sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0));
}

/** The accounts carried, checked, and summed by kind. */
export function carried(sums: readonly AccountSums[], kinds: readonly AccountKind[]): CarriedBalances {
  const accounts = sums.map(s => ({
    ...s,
    kind: kindOf(s.account),
    consistent: s.closing === s.opening + s.debits - s.credits,
  }));
  const byKind = kinds.map(kind => {
    const of = accounts.filter(a => a.kind === kind);
    const sum = (f: (a: AccountPeriod) => number) => of.reduce((t, a) => t + f(a), 0);
    return {
      kind,
      accounts: of.length,
      opening: sum(a => a.opening),
      debits: sum(a => a.debits),
      credits: sum(a => a.credits),
      closing: sum(a => a.closing),
    };
  });
  const total = (f: (a: AccountPeriod) => number) => accounts.reduce((t, a) => t + f(a), 0);
  const balanced =
    accounts.every(a => a.consistent) &&
    total(a => a.opening) === 0 &&
    total(a => a.closing) === 0 &&
    total(a => a.debits) === total(a => a.credits);
  return { balanced, accounts, kinds: byKind };
}

/** `accountSums` over the read model's postings (gateway_postings), in one scan of those placed before the period's end. */
export async function carriedBalances(
  db: Queryable,
  bounds: PeriodBounds,
  kinds: readonly AccountKind[],
): Promise<CarriedBalances> {
  // each posting placed once (offset 0 keeps the subquery apart, so its placement is not repeated in every filter)
  const r = await query<AccountSums>(
    db,
    'ReconcileCarriedBalances',
    `select account, coalesce(sum(amount) filter (where at < $1), 0)::bigint as opening,
       coalesce(sum(amount) filter (where at >= $1 and amount > 0), 0)::bigint as debits,
       coalesce(-sum(amount) filter (where at >= $1 and amount < 0), 0)::bigint as credits,
       sum(amount)::bigint as closing
     from (select account, amount, ${reportedAtSql()} as at from gateway_postings offset 0) p
     where at < $2 group by account order by account collate "C"`,
    [bounds.startsAt, bounds.endsAt],
  );
  return carried(r.rows, kinds);
}
