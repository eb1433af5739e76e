import { query, type Queryable } from '../db/pool.ts';
import { newHolding, type HoldingAccountPeriod } from './gateway-period-balances.ts';
import { reportedAtSql } from './ledger-periods.ts';

/**
 * Each holding account tied to its provider at a period's end (docs/decisions.md, "The tie to the bank"): the ledger's
 * cash at the cut-off, the provider's balance at the cut-off, their difference, and the items that explain it.
 *
 * The provider's balance at the cut-off: synchronised mutations carry no balance after them, so it is derived from the
 * account's balance as last synchronised (less the service's own transfers since, whose DEBITs are recorded with them)
 * minus every mutation at or after the cut-off. Mutations after the cut-off are therefore out by construction.
 *
 * The items are the timing differences a ledger knows of, each signed as its share of providerBalance - ledgerCash:
 * - PAYOUT_IN_FLIGHT (-): what a withdrawal's transfers not booked by the cut-off had moved out of the account by
 *   then: the payout's transfer (the first or a retry after a failure) left, its payout not booked yet; a failed one
 *   whose money the provider has not given back yet (given back, its DEBIT and CREDIT net to zero);
 * - PAYOUT_NOT_SEEN (+): a payout through WALLET-A booked before the cut-off whose DEBIT the provider shows only later
 *   (once a withdrawal: the attempt that paid it);
 * - CREDIT_NOT_BOOKED (+): a CREDIT since the account was marked, before the cut-off, that no payment, suspense item
 *   or hand transfer had booked by then (matching had not run yet);
 * - HAND_TRANSFER_SIDE_NOT_SEEN (source +, destination -): a hand transfer booked before the cut-off, its side seen
 *   later or not yet; HAND_TRANSFER_NOT_RECORDED (source -, destination +): its side seen before it was recorded;
 * - PAYOUT_NOT_RECORDED (-): a DEBIT before the cut-off of the amount of a payout recorded as paid elsewhere (/paid)
 *   from the account and booked at or after the cut-off (a /paid payout has no transfer to name its DEBIT: the
 *   latest such DEBITs pair with the earliest such payouts, amount by amount, none before its withdrawal was asked).
 * What the items do not explain is `unexplained`; the account ties when that is zero. Anything else (a DEBIT nobody
 * booked, money the account held before it was marked and no opening booked) stays unexplained: an admin's correcting
 * entry books it.
 */

export type TieItemKind =
  | 'PAYOUT_IN_FLIGHT'
  | 'PAYOUT_NOT_SEEN'
  | 'CREDIT_NOT_BOOKED'
  | 'HAND_TRANSFER_SIDE_NOT_SEEN'
  | 'HAND_TRANSFER_NOT_RECORDED'
  | 'PAYOUT_NOT_RECORDED';
export type TieItem = {
  kind: TieItemKind;
  /** its share of the difference (providerBalance - ledgerCash) */
  amount: number;
  /** the withdrawal, mutation or hand transfer it is about */
  reference: string;
  /** the provider's time of its mutation (null: not seen yet) */
  seenAt: string | null;
  /** when the ledger placed it (null: not booked yet) */
  bookedAt: string | null;
};
export type ProviderTie = {
  accountId: string;
  /** the account's cash in the ledger at the cut-off (its holding:<id> postings placed before it) */
  ledgerCash: number;
  /** the provider's balance at the cut-off (null: never synchronised, or no such account) */
  providerBalance: number | null;
  /** what the balance is known as of: the cut-off, or the last sync when the cut-off is later */
  providerBalanceAt: string | null;
  difference: number | null;
  items: TieItem[];
  explained: number;
  unexplained: number | null;
  /** unexplained = 0 (null: no provider balance to tie to) */
  tied: boolean | null;
};

const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const at = reportedAtSql('g');
const signed = `case when m.type = 'CREDIT' then m.amount else -m.amount end`;

/** Balances: the ledger's cash and the provider's at the cut-off, of every account with ledger cash or marked now. */
const balancesSql = `
  with acc as (
    select a.id, a.balance, a.last_sync from accounts a
    where a.id::text in (select account_id from gateway_cash) or a.id in (select account_id from gateway_holding_accounts)
  )
  select acc.id::text as "accountId",
    coalesce((select sum(g.amount) from gateway_postings g where g.account = 'holding:' || acc.id::text and ${at} < $1), 0)::bigint as "ledgerCash",
    case when acc.last_sync is null then null
      else (acc.balance - coalesce((select sum(${signed}) from mutations m where m.account_id = acc.id and m.created_at >= $1), 0))::bigint end
      as "providerBalance",
    case when acc.last_sync is null then null else ${iso('least(acc.last_sync, $1::timestamptz)')} end as "providerBalanceAt"
  from acc`;

/** The explaining items at the cut-off, of the accounts named. */
const itemsSql = `
  with booked as (
    select g.event_type, g.reference_id, substr(g.account, 9) as account_id, g.amount, ${at} as at
    from gateway_postings g where g.account like 'holding:%' and substr(g.account, 9) = any($1::text[])
  ), attempts as (
    -- every transfer a payout of a withdrawal began, and the first or paying one of a withdrawal from before they were kept
    -- (the ids are the accounts' own, uuids: compared as uuids, the transfers are found by their account's index)
    select wt.withdrawal_id, wt.transfer_id, wt.account_id from gateway_withdrawal_transfers wt where wt.account_id = any($1::text[]::uuid[])
    union
    select w.id, t.id, t.account_id from gateway_withdrawals w
    join transfers t on t.id::text = coalesce(w.reference, w.id::text) and t.account_id::text = any($1::text[])
  ), attempt_moves as (
    select w.id::text as withdrawal_id, a.account_id, w.amount,
      -- booked: the attempt that paid it (the withdrawal's reference), when the ledger placed the payout
      b.at as booked_at, (b.at is not null and b.at < $2) as paid_before,
      (select min(m.created_at) from mutations m where m.account_id = a.account_id and m.type = 'DEBIT' and m.reference = a.transfer_id::text) as seen_at,
      (select coalesce(sum(${signed}), 0) from mutations m where m.account_id = a.account_id and m.reference = a.transfer_id::text and m.created_at < $2)::bigint as moved
    from attempts a join gateway_withdrawals w on w.id = a.withdrawal_id
    left join booked b on w.reference = a.transfer_id::text and b.event_type = 'WithdrawalPaid' and b.reference_id = w.id::text
      and b.account_id = a.account_id::text
  ), payouts as (
    -- per withdrawal and account: what left through attempts not booked by the cut-off (a failed one given back nets to
    -- zero), and the payout booked before it whose DEBIT had not left by then
    select withdrawal_id, account_id, amount,
      coalesce(sum(moved) filter (where not paid_before), 0)::bigint as in_flight,
      min(seen_at) filter (where not paid_before and moved <> 0) as in_flight_seen_at,
      max(booked_at) filter (where booked_at >= $2) as booked_later,
      bool_or(paid_before and moved = 0) as not_seen,
      min(seen_at) filter (where paid_before) as paid_seen_at, max(booked_at) filter (where paid_before) as booked_before
    from attempt_moves group by withdrawal_id, account_id, amount
  ), credits as (
    select m.id, m.account_id, m.amount, m.created_at from mutations m join gateway_holding_accounts h on h.account_id = m.account_id
    where m.account_id::text = any($1::text[]) and m.type = 'CREDIT' and m.created_at >= h.marked_at and m.created_at < $2
      and not exists (select 1 from transfers t where t.id::text = m.reference)
      and not exists (select 1 from gateway_holding_transfers ht where ht.credit_mutation_id = m.id)
  ), sides as (
    select ht.id::text as transfer_id, side.account_id, side.sign * ht.amount as amount, b.at as booked_at, m.created_at as seen_at
    from gateway_holding_transfers ht
    cross join lateral (values (ht.from_account_id, 1, ht.debit_mutation_id), (ht.to_account_id, -1, ht.credit_mutation_id))
      as side(account_id, sign, mutation_id)
    left join mutations m on m.id = side.mutation_id
    -- a destination side given back from suspense is booked when it was released
    left join booked b on b.event_type in ('HoldingTransferRecorded', 'HoldingTransferCreditReleased') and b.reference_id = ht.id::text and b.account_id = side.account_id::text
    where side.account_id::text = any($1::text[])
      -- a destination's CREDIT in suspense before the recording is booked as that credit, when it arrived
      and not (side.sign = -1 and exists (select 1 from gateway_suspense s where s.mutation_id = side.mutation_id))
  ), paid_later as (
    select b.reference_id as withdrawal_id, b.account_id, -b.amount as amount, b.at as booked_at, w.requested_at,
      row_number() over (partition by b.account_id, b.amount order by b.at, b.reference_id) as n
    from booked b join gateway_withdrawals w on w.id::text = b.reference_id
    where b.event_type = 'WithdrawalPaid' and b.at >= $2
      and not exists (select 1 from transfers t where t.id::text = coalesce(w.reference, w.id::text))
  ), debits as (
    select m.account_id::text as account_id, m.amount, m.created_at,
      row_number() over (partition by m.account_id, m.amount order by m.created_at desc, m.id) as n
    from mutations m
    where m.type = 'DEBIT' and m.created_at < $2
      and (m.account_id::text, m.amount) in (select account_id, amount from paid_later)
      and not exists (select 1 from transfers t where t.id::text = m.reference)
      and not exists (select 1 from gateway_holding_transfers ht where ht.debit_mutation_id = m.id)
  )
  select "accountId", kind, amount, reference, ${iso('seen_at')} as "seenAt", ${iso('booked_at')} as "bookedAt" from (
    select account_id::text as "accountId", 'PAYOUT_IN_FLIGHT' as kind, in_flight as amount, withdrawal_id as reference,
      in_flight_seen_at as seen_at, booked_later as booked_at
    from payouts where in_flight <> 0
    union all
    select account_id::text, 'PAYOUT_NOT_SEEN', amount, withdrawal_id, paid_seen_at, booked_before
    from payouts where not_seen
    union all
    select c.account_id::text, 'CREDIT_NOT_BOOKED', c.amount, c.id::text, c.created_at, null
    from credits c where not exists (
      select 1 from booked b where b.account_id = c.account_id::text and b.at < $2 and (
        (b.event_type = 'GatewayPaymentCredited' and b.reference_id in (select p.id::text from payments p where p.mutation_id = c.id))
        or (b.event_type = 'SuspenseCreditReceived' and b.reference_id in (select s.id::text from gateway_suspense s where s.mutation_id = c.id))))
    union all
    select account_id::text, 'HAND_TRANSFER_SIDE_NOT_SEEN', amount, transfer_id, seen_at, booked_at
    from sides where booked_at < $2 and (seen_at is null or seen_at >= $2)
    union all
    select account_id::text, 'HAND_TRANSFER_NOT_RECORDED', -amount, transfer_id, seen_at, booked_at
    from sides where seen_at < $2 and (booked_at is null or booked_at >= $2)
    union all
    select p.account_id, 'PAYOUT_NOT_RECORDED', -p.amount, p.withdrawal_id, d.created_at, p.booked_at
    from paid_later p join debits d on d.account_id = p.account_id and d.amount = p.amount and d.n = p.n
    where d.created_at >= p.requested_at
  ) i order by 1, 2, 4`;

/**
 * The tie at `cutoff` of each account the ledger has cash for and each account marked as a holding account now. Every
 * figure is computed in PostgreSQL over the read models: called inside the report's snapshot, none moves meanwhile.
 */
export async function providerTies(db: Queryable, cutoff: Date): Promise<ProviderTie[]> {
  const balances = await query<Pick<ProviderTie, 'accountId' | 'ledgerCash' | 'providerBalance' | 'providerBalanceAt'>>(
    db,
    'TieHoldingBalances',
    balancesSql,
    [cutoff],
  );
  const ids = balances.rows.map(b => b.accountId);
  const items = await query<TieItem & { accountId: string }>(db, 'TieHoldingItems', itemsSql, [ids, cutoff]);
  return balances.rows
    .map(b =>
      tieOf(
        b,
        items.rows.filter(i => i.accountId === b.accountId).map(({ accountId: _, ...item }) => item),
      ),
    )
    .sort((a, b) => a.accountId.localeCompare(b.accountId));
}

/** One account's balances at the cut-off and its items, tied: the difference, what the items explain, what is left. */
export function tieOf(
  balances: Pick<ProviderTie, 'accountId' | 'ledgerCash' | 'providerBalance' | 'providerBalanceAt'>,
  items: TieItem[],
): ProviderTie {
  const explained = items.reduce((sum, i) => sum + i.amount, 0);
  const difference = balances.providerBalance === null ? null : balances.providerBalance - balances.ledgerCash;
  const unexplained = difference === null ? null : difference - explained;
  return {
    ...balances,
    difference,
    items,
    explained,
    unexplained,
    tied: unexplained === null ? null : unexplained === 0,
  };
}

/** The ties set on the period's holding accounts (their rows from the fold), an account only the tie knows added. */
export function withTies(holdings: HoldingAccountPeriod[], ties: ProviderTie[]): HoldingAccountPeriod[] {
  const rows = new Map(holdings.map(h => [h.accountId, h]));
  for (const tie of ties) {
    const h = rows.get(tie.accountId) ?? newHolding(tie.accountId);
    const { accountId: _, ...found } = tie;
    rows.set(tie.accountId, { ...h, ...found });
  }
  return [...rows.values()].sort((a, b) => a.accountId.localeCompare(b.accountId));
}
