import type pg from 'pg';
import { isCalendarDate } from '../domain/working-days.ts';
import { inSnapshot, query, type Queryable } from '../db/pool.ts';
import { refuse } from '../errors.ts';
import {
  periodBalances,
  type FoldOptions,
  type HoldingAccountPeriod,
  type MerchantPeriod,
  type Payout,
  type PeriodSources,
} from './gateway-period-balances.ts';
import { listSuspense, type SuspenseRow } from '../projections/gateway-suspense.ts';
import { providerTies, withTies } from './gateway-provider-tie.ts';
import { uncoveredYearsWarning } from '../projections/holiday-calendar.ts';
import { unmatchedCredits, type UnmatchedCredit } from '../projections/reconciliation.ts';
import { carriedBalances, type AccountPeriod, type KindPeriod } from './gateway-carried-balances.ts';
import { reportedAtSql } from './ledger-periods.ts';
import { suspenseAgeing, type SuspenseAgeing } from './suspense-ageing.ts';
import { priorPeriodItems, type PriorPeriodItem } from './gateway-prior-period.ts';
import { namedReconciliation, type NamedSuspenseRow } from './reconciliation-names.ts';
import type { AccountNames, MerchantNames } from './report-names.ts';

/**
 * The gateway's reconciliation for finance: the balances at the period's bounds folded from the
 * event log (gateway-period-balances.ts) and, over the read models, the ledger's postings per day (gateway_postings),
 * gateway payments and the mutations that paid them.
 * Days are WIB days (Asia/Jakarta, UTC+7 all year): a period runs from 00:00 WIB of `from` to 00:00 WIB after `to`.
 * Every figure is computed in PostgreSQL, set-based; Node only lays out the aggregates.
 */

export const maxPeriodDays = 366;
const dayMs = 86_400_000;

export type ReconciliationPeriod = { from: string; to: string; startsAt: Date; endsAt: Date; days: string[] };

/** The period from..to (dates YYYY-MM-DD, both included), at most `maxPeriodDays` WIB days; 400 INVALID_PERIOD otherwise. */
export function reconciliationPeriod(from: string, to: string): ReconciliationPeriod {
  for (const [path, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (!isCalendarDate(value))
      throw refuse('INVALID_PERIOD', {
        message: `${path} must be a date written YYYY-MM-DD`,
        errors: [{ path, message: 'not a date' }],
      });
  }
  const first = Date.parse(`${from}T00:00:00Z`);
  const count = (Date.parse(`${to}T00:00:00Z`) - first) / dayMs + 1;
  if (count < 1)
    throw refuse('INVALID_PERIOD', {
      message: 'from must not be after to',
      errors: [{ path: 'to', message: 'before from' }],
    });
  if (count > maxPeriodDays)
    throw refuse('INVALID_PERIOD', {
      message: `The period spans ${count} days; at most ${maxPeriodDays}`,
      errors: [{ path: 'to', message: 'too far from from' }],
    });
  const days = Array.from({ length: count }, (_, i) => new Date(first + i * dayMs).toISOString().slice(0, 10));
  return {
    from,
    to,
    startsAt: new Date(`${from}T00:00:00+07:00`),
    endsAt: new Date(Date.parse(`${to}T00:00:00+07:00`) + dayMs),
    days,
  };
}

/** The ledger's account kinds: what the trial balance totals (debit positive, credit negative). */
export const accountKinds = [
  'holding',
  'pending',
  'settled',
  'onHold',
  'suspense',
  'fees',
  'uniqueCodes',
  'payouts',
  'equity',
  'other',
] as const;
export type AccountKind = (typeof accountKinds)[number];
type KindTotals = Record<AccountKind, number>;

export type TrialBalanceDay = {
  day: string;
  postings: number;
  debits: number;
  credits: number;
  difference: number;
} & KindTotals;
export type UnbalancedEntry = {
  merchantId: string;
  streamRevision: number;
  eventType: string;
  referenceId: string;
  day: string;
  sum: number;
};
export type HoldingAccountCredits = {
  accountId: string;
  credited: number;
  completedPayments: number;
  payments: number;
  difference: number;
};
export type PaymentProblem =
  | 'COMPLETED_WITHOUT_CREDIT'
  | 'CREDITED_WITHOUT_COMPLETED_PAYMENT'
  | 'CREDIT_DIFFERS_FROM_PAYMENT'
  | 'MUTATION_NOT_A_MATCHING_CREDIT';
export type PaymentCheck = {
  paymentId: string;
  problem: PaymentProblem;
  holdingAccountId: string | null;
  credited: number | null;
  creditedFee: number | null;
  /** the unique code the credit gave the platform (0: none, as every credit before the platform kept the codes) */
  creditedUniqueCode: number | null;
  totalAmount: number | null;
  fee: number | null;
  uniqueCode: number | null;
  mutationId: string | null;
};
/**
 * the fees the ledger earned against the completed payments' fees and the suspense allocations' fees; apart from them,
 * the unique codes the platform earned (`platform:unique-codes`)
 */
export type FeesDay = {
  day: string;
  earned: number;
  paymentsFees: number;
  allocationsFees: number;
  difference: number;
  uniqueCodes: number;
};

export type GatewayReconciliation = {
  period: { from: string; to: string; timeZone: 'Asia/Jakarta'; startsAt: string; endsAt: string };
  /** every check passed (unmatched credits are listed for finance, not a failed check) */
  balanced: boolean;
  trialBalance: {
    balanced: boolean;
    days: TrialBalanceDay[];
    total: Omit<TrialBalanceDay, 'day'>;
    unbalancedEntries: UnbalancedEntry[];
    /** every account carried through the period: opening, debits, credits, closing (gateway-carried-balances.ts) */
    accounts: (AccountPeriod & { name?: string | null })[];
    /** the accounts summed by kind */
    kinds: KindPeriod[];
  };
  /**
   * per merchant, folded from the event log: opening (at startsAt), movements, closing (at endsAt), opening + movements =
   * closing checked, and the closing compared with the read model when the period reaches today (else `readModel` null);
   * `folded` false: no event store was given (only the pool), nothing folded
   */
  merchants: {
    balanced: boolean;
    folded: boolean;
    comparedWithReadModel: boolean;
    checked: number;
    inconsistent: number;
    differing: number;
    rows: (MerchantPeriod & Partial<MerchantNames>)[];
  };
  /**
   * per holding account, from its `holding:<accountId>` postings: opening, credited, paid out, closing; tied to its
   * provider at the period's end (gateway-provider-tie.ts); `tied`: no account leaves a difference its items do not explain
   */
  holdingAccounts: { balanced: boolean; tied: boolean; accounts: (HoldingAccountPeriod & Partial<AccountNames>)[] };
  /** the platform's suspense: credits no payment claimed, received in the period, and what became of them */
  suspense: {
    open: number;
    allocated: number;
    refunded: number;
    /**
     * taken as a hand transfer's destination side (status TRANSFERRED); absent from the reports of months closed
     * before it was counted, which are answered as they were frozen
     */
    transferred?: number;
    items: NamedSuspenseRow[];
    /** every credit still open at the period's end, whenever it came, with its age and the ageing buckets */
    ageing: Omit<SuspenseAgeing, 'items'> & { items: (SuspenseAgeing['items'][number] & Partial<AccountNames>)[] };
  };
  /** the withdrawals paid in the period (from the ledgers' WithdrawalPaid events) */
  payouts: (Payout & Partial<MerchantNames>)[];
  holdingCredits: {
    balanced: boolean;
    accounts: (HoldingAccountCredits & Partial<AccountNames>)[];
    total: Omit<HoldingAccountCredits, 'accountId'>;
    /** at most 1,000 of them; `problemCount` counts all */
    problems: PaymentCheck[];
    problemCount: number;
  };
  unmatchedCredits: UnmatchedCredit[];
  fees: { balanced: boolean; days: FeesDay[]; total: Omit<FeesDay, 'day'> };
  /**
   * the years without a holiday decree that the period's settlements counted (weekends and every-year holidays only,
   * so a settlement may have come a day early); `warning` says so, null when every decree was in force
   */
  holidayCalendar: { missingYears: number[]; warning: string | null };
  /**
   * postings of earlier months recorded after those months were closed, reported here (on the first day of the month
   * they moved to, in the days' totals) and listed apart: at most 1,000, `count` counts all
   */
  priorPeriod: { count: number; items: PriorPeriodItem[] };
};

const wibDayOf = (column: string) => `(${column} at time zone 'Asia/Jakarta')::date`;
// where a posting is placed: its effective time (ledger-periods.ts), one rule for every report
const at = reportedAtSql();

const accountKind = `case when account like 'holding:%' then 'holding' when account like 'merchant:%:pending' then 'pending'
  when account like 'merchant:%:settled' then 'settled' when account like 'merchant:%:onHold' then 'onHold'
  when account = 'platform:suspense' then 'suspense' when account = 'platform:fees' then 'fees'
  when account = 'platform:unique-codes' then 'uniqueCodes' when account = 'bank:payouts' then 'payouts'
  when account = 'platform:equity' then 'equity' else 'other' end`;

async function trialBalance(db: Queryable, period: ReconciliationPeriod) {
  const sums = await query<{
    day: string;
    kind: AccountKind;
    postings: number;
    debits: number;
    credits: number;
    net: number;
  }>(
    db,
    'ReconcileTrialBalance',
    `select day::text, kind, postings, debits, credits, debits - credits as net from (
       select ${wibDayOf(at)} as day, ${accountKind} as kind, count(*)::bigint as postings,
         coalesce(sum(amount) filter (where amount > 0), 0)::bigint as debits, coalesce(-sum(amount) filter (where amount < 0), 0)::bigint as credits
       from gateway_postings where ${at} >= $1 and ${at} < $2 group by 1, 2) s
     order by 1, 2`,
    [period.startsAt, period.endsAt],
  );
  const unbalanced = await query<UnbalancedEntry>(
    db,
    'ReconcileUnbalancedEntries',
    `select merchant_id as "merchantId", stream_revision as "streamRevision", min(event_type) as "eventType", min(reference_id) as "referenceId",
       ${wibDayOf(`min(${at})`)}::text as day, sum(amount)::bigint as sum
     from gateway_postings where ${at} >= $1 and ${at} < $2
     group by merchant_id, stream_revision having sum(amount) <> 0 order by 5, 1, 2 limit 1000`,
    [period.startsAt, period.endsAt],
  );
  const zero = (): Omit<TrialBalanceDay, 'day'> => ({
    postings: 0,
    debits: 0,
    credits: 0,
    difference: 0,
    ...(Object.fromEntries(accountKinds.map(k => [k, 0])) as KindTotals),
  });
  const byDay = new Map(period.days.map(day => [day, { day, ...zero() }]));
  const total = zero();
  for (const row of sums.rows) {
    for (const into of [byDay.get(row.day), total]) {
      if (!into) continue;
      into.postings += row.postings;
      into.debits += row.debits;
      into.credits += row.credits;
      into.difference += row.net;
      into[row.kind] += row.net;
    }
  }
  const days = [...byDay.values()];
  const balanced = unbalanced.rows.length === 0 && days.every(d => d.difference === 0) && total.other === 0;
  return { balanced, days, total, unbalancedEntries: unbalanced.rows };
}

/**
 * Every gateway payment of the period against its credit on the ledger: the credits by holding account, the fees by
 * day, and what does not tie (a completed payment without a credit, a credit without a completed payment, a credit
 * that differs from its payment, a payment not paid by a matching credit).
 */
const holdingCreditsSql = `with credited as (
     select reference_id as payment_id, min(substr(account, 9)) filter (where account like 'holding:%') as account_id,
       coalesce(sum(amount) filter (where account like 'holding:%'), 0)::bigint as amount,
       coalesce(-sum(amount) filter (where account = 'platform:fees'), 0)::bigint as fee,
       coalesce(-sum(amount) filter (where account = 'platform:unique-codes'), 0)::bigint as unique_code,
       ${wibDayOf(`min(${at})`)}::text as day
     from gateway_postings where event_type = 'GatewayPaymentCredited' and ${at} >= $1 and ${at} < $2
       and (account like 'holding:%' or account in ('platform:fees', 'platform:unique-codes'))
     group by reference_id
   ), completed as (
     -- checked in the period of its credit; a payment without one, in the period it was paid (a credit from before
     -- the ledger kept paidAt is placed at its completion, so the two are found together either way)
     select p.id::text as payment_id, p.receiving_account_id::text as account_id, p.total_amount, coalesce(p.gateway_fee, 0) as fee,
       coalesce(p.unique_code, 0) as unique_code,
       ${wibDayOf('coalesce(p.paid_at, p.completed_at)')}::text as day, p.mutation_id,
       m.id is not null and m.type = 'CREDIT' and m.amount = p.total_amount and m.account_id = p.receiving_account_id as paid_by_credit
     from payments p left join mutations m on m.id = p.mutation_id
     where p.gateway and p.status = 'COMPLETED' and (p.id::text in (select payment_id from credited)
       or (coalesce(p.paid_at, p.completed_at) >= $1 and coalesce(p.paid_at, p.completed_at) < $2
         and not exists (select 1 from gateway_postings g where g.event_type = 'GatewayPaymentCredited' and g.reference_id = p.id::text)))
   ), joined as (
     select coalesce(c.payment_id, p.payment_id) as payment_id, c.account_id as credited_account, c.amount as credited, c.fee as credited_fee,
       c.unique_code as credited_code, p.account_id as paid_account, p.total_amount, p.fee, p.unique_code, coalesce(c.day, p.day) as day,
       p.mutation_id, p.paid_by_credit
     from credited c full join completed p on p.payment_id = c.payment_id
   ), problems as (
     select payment_id as "paymentId", problem, coalesce(paid_account, credited_account) as "holdingAccountId", credited, credited_fee as "creditedFee",
       credited_code as "creditedUniqueCode", total_amount as "totalAmount", fee, unique_code as "uniqueCode", mutation_id as "mutationId"
     from (
       select *, 'COMPLETED_WITHOUT_CREDIT' as problem from joined where credited is null
       union all select *, 'CREDITED_WITHOUT_COMPLETED_PAYMENT' from joined where total_amount is null
       union all select *, 'CREDIT_DIFFERS_FROM_PAYMENT' from joined
         where credited is not null and total_amount is not null
           and (credited <> total_amount or credited_fee <> fee or credited_account is distinct from paid_account
             -- a credit from before the platform kept the codes gave it none: a code it did take must be the payment's
             or (credited_code <> 0 and credited_code <> unique_code))
       union all select *, 'MUTATION_NOT_A_MATCHING_CREDIT' from joined where not paid_by_credit) found
   )
   select
     (select coalesce(json_agg(a order by a."accountId"), '[]') from (
        select account_id as "accountId", sum(credited)::bigint as credited, sum(completed)::bigint as "completedPayments",
          sum(payments)::bigint as payments, (sum(credited) - sum(completed))::bigint as difference
        from (select credited_account as account_id, coalesce(credited, 0) as credited, 0 as completed, 0 as payments from joined where credited is not null
              union all select paid_account, 0, total_amount, 1 from joined where total_amount is not null) s
        group by account_id) a) as accounts,
     (select coalesce(json_agg(f), '[]') from (select day, sum(fee)::bigint as fees from joined where day is not null group by day) f) as fee_days,
     (select coalesce(json_agg(x), '[]') from (select * from problems order by problem, "paymentId" limit 1000) x) as problems,
     (select count(*) from problems)::bigint as problem_count`;

async function holdingCredits(db: Queryable, period: ReconciliationPeriod) {
  const r = await query<{
    accounts: HoldingAccountCredits[];
    fee_days: { day: string; fees: number }[];
    problems: PaymentCheck[];
    problem_count: number;
  }>(db, 'ReconcileHoldingCredits', holdingCreditsSql, [period.startsAt, period.endsAt]);
  const { accounts, fee_days, problems, problem_count } = r.rows[0]!;
  const total = accounts.reduce(
    (t, a) => ({
      credited: t.credited + a.credited,
      completedPayments: t.completedPayments + a.completedPayments,
      payments: t.payments + a.payments,
      difference: t.difference + a.difference,
    }),
    { credited: 0, completedPayments: 0, payments: 0, difference: 0 },
  );
  const balanced = problem_count === 0 && accounts.every(a => a.difference === 0);
  return {
    balanced,
    accounts,
    total,
    problems,
    problemCount: problem_count,
    paymentsFees: new Map(fee_days.map(d => [d.day, d.fees])),
  };
}

export type ReconciliationSources = PeriodSources & { pool: pg.Pool };

/** The fees of suspense credits allocated in the period, by day of allocation. */
async function allocationFees(db: Queryable, period: ReconciliationPeriod) {
  const allocated = await query<{ day: string; fees: number }>(
    db,
    'ReconcileAllocationFees',
    `select ${wibDayOf('resolved_at')}::text as day, sum(fee)::bigint as fees from gateway_suspense
       where status = 'ALLOCATED' and resolved_at >= $1 and resolved_at < $2 group by 1`,
    [period.startsAt, period.endsAt],
  );
  return new Map(allocated.rows.map(r => [r.day, r.fees]));
}

/** The read models' checks, in one snapshot: a projection writing meanwhile cannot make a false difference. */
function readModelChecks(pool: pg.Pool, period: ReconciliationPeriod) {
  return inSnapshot(pool, async client => {
    // the aggregates hash a row per payment and per entry: in memory rather than spilled to disk in batches
    await client.query(`set local work_mem = '64MB'`);
    const days = await trialBalance(client, period);
    const carried = await carriedBalances(client, period, accountKinds);
    const trial = {
      ...days,
      balanced: days.balanced && carried.balanced,
      accounts: carried.accounts,
      kinds: carried.kinds,
    };
    const ageing = await suspenseAgeing(client, period.endsAt);
    const prior = await priorPeriodItems(client, period);
    const { paymentsFees, ...credits } = await holdingCredits(client, period);
    const unmatched = await unmatchedCredits(client, { from: period.startsAt, to: period.endsAt, holding: true });
    const suspenseItems = await listSuspense(client, { from: period.startsAt, to: period.endsAt });
    const allocationsFees = await allocationFees(client, period);
    const ties = await providerTies(client, period.endsAt);
    return { trial, paymentsFees, credits, unmatched, suspenseItems, allocationsFees, ageing, prior, ties };
  });
}

type Folded = Awaited<ReturnType<typeof periodBalances>>;

/** The merchants' folded ledgers: each consistent with itself and, where compared, with the read model. */
function merchantsSection(folded: Folded, wasFolded: boolean) {
  const inconsistent = folded.merchants.filter(m => !m.consistent).length;
  const differing = folded.merchants.filter(m => m.differences.length > 0).length;
  return {
    balanced: inconsistent === 0 && differing === 0,
    folded: wasFolded,
    comparedWithReadModel: folded.comparedWithReadModel,
    checked: folded.merchants.length,
    inconsistent,
    differing,
    rows: folded.merchants,
  };
}

/** The suspense credits of the period, totalled by what became of them. */
function suspenseSection(items: SuspenseRow[], ageing: SuspenseAgeing) {
  const total = (status: SuspenseRow['status']) =>
    items.filter(i => i.status === status).reduce((sum, i) => sum + i.amount, 0);
  return {
    open: total('OPEN'),
    allocated: total('ALLOCATED'),
    refunded: total('REFUNDED'),
    transferred: total('TRANSFERRED'),
    items,
    ageing,
  };
}

/** Each day's fees earned on the ledger against the payments' and the allocations' fees of that day. */
function feesSection(days: TrialBalanceDay[], paymentsFees: Map<string, number>, allocationsFees: Map<string, number>) {
  const feeDays = days.map(d => {
    const earned = -d.fees;
    const fromPayments = paymentsFees.get(d.day) ?? 0;
    const fromAllocations = allocationsFees.get(d.day) ?? 0;
    return {
      day: d.day,
      earned,
      paymentsFees: fromPayments,
      allocationsFees: fromAllocations,
      difference: earned - fromPayments - fromAllocations,
      uniqueCodes: -d.uniqueCodes,
    };
  });
  const feeTotal = feeDays.reduce(
    (t, d) => ({
      earned: t.earned + d.earned,
      paymentsFees: t.paymentsFees + d.paymentsFees,
      allocationsFees: t.allocationsFees + d.allocationsFees,
      difference: t.difference + d.difference,
      uniqueCodes: t.uniqueCodes + d.uniqueCodes,
    }),
    { earned: 0, paymentsFees: 0, allocationsFees: 0, difference: 0, uniqueCodes: 0 },
  );
  return { balanced: feeDays.every(d => d.difference === 0), days: feeDays, total: feeTotal };
}

/**
 * Runs the read models' checks in one snapshot (a projection writing meanwhile cannot make a false difference), then folds
 * the merchants' ledgers to the bounds. A bare pool (a caller without the event store) folds nothing and says so.
 */
export async function gatewayReconciliation(
  sources: ReconciliationSources | pg.Pool,
  period: ReconciliationPeriod,
  fold: FoldOptions = {},
): Promise<GatewayReconciliation> {
  const pool = 'store' in sources ? sources.pool : sources;
  const { trial, paymentsFees, credits, unmatched, suspenseItems, allocationsFees, ageing, prior, ties } =
    await readModelChecks(pool, period);
  const folded =
    'store' in sources
      ? await periodBalances(sources, period, fold)
      : { comparedWithReadModel: false, merchants: [], holdingAccounts: [], payouts: [], calendarMissingYears: [] };
  const merchants = merchantsSection(folded, 'store' in sources);
  const tiedAccounts = withTies(folded.holdingAccounts, ties);
  const holdingAccounts = {
    balanced: tiedAccounts.every(h => h.consistent),
    tied: tiedAccounts.every(h => h.tied !== false),
    accounts: tiedAccounts,
  };
  const fees = feesSection(trial.days, paymentsFees, allocationsFees);
  // names beside the ids (reconciliation-names.ts), computed with the report so a closed month keeps them
  return namedReconciliation(pool, {
    period: {
      from: period.from,
      to: period.to,
      timeZone: 'Asia/Jakarta',
      startsAt: period.startsAt.toISOString(),
      endsAt: period.endsAt.toISOString(),
    },
    balanced: trial.balanced && merchants.balanced && holdingAccounts.balanced && credits.balanced && fees.balanced,
    trialBalance: trial,
    merchants,
    holdingAccounts,
    suspense: suspenseSection(suspenseItems, ageing),
    payouts: folded.payouts,
    holdingCredits: credits,
    unmatchedCredits: unmatched,
    fees,
    holidayCalendar: {
      missingYears: folded.calendarMissingYears,
      warning: uncoveredYearsWarning(folded.calendarMissingYears),
    },
    priorPeriod: prior,
  });
}
