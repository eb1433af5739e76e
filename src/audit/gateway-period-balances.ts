import { z } from 'zod';
import { foldStreamByEffectiveTime, type FoldedStream, type StoredLedgerEvent } from './ledger-stream-fold.ts';
import {
  closedMonthThrough,
  foldStartBefore,
  textOf,
  type Balances,
  type FoldStart,
  type LedgerClosing,
} from './ledger-fold-start.ts';
import { foldInDatabase, type SqlFold } from './ledger-sql-fold.ts';
import type { PeriodBounds } from './ledger-periods.ts';
import { gatewayLedgerStream, merchantBalance, type GatewayLedger } from '../domain/gateway-ledger.ts';
import { suspenseStream } from '../domain/gateway-suspense.ts';
import { holdingTransfersStream } from '../domain/holding-transfers.ts';
import { ledgerAdjustmentsStream } from '../domain/ledger-adjustments.ts';
import type { TieItem } from './gateway-provider-tie.ts';

import type { Clock } from '../clock.ts';
import { query, type Queryable } from '../db/pool.ts';
import type { GatewayLedgerEvent, Posting } from '../events/gateway.ts';
import { comparePositions, type EventStore, type Position } from '../store/event-store.ts';
import { closuresForPlacement } from '../projections/gateway-periods.ts';
import type { ReconciliationPeriod } from './gateway-reconciliation.ts';

/**
 * Each merchant's and each holding account's balances at the period's bounds, folded from the event log (the merchant's
 * `gateway-<id>` stream, as `balance-as-of` folds it), the movements between them, and opening + movements = closing
 * checked; the closing balances are compared with the read model when the period reaches today (WIB).
 */

export type { Balances };
export type MerchantMovements = {
  creditsGross: number;
  fees: number;
  /** the unique codes the platform kept of the payments and allocations (a payment's gross: its fee, code and net) */
  uniqueCodes: number;
  creditsNet: number;
  /** suspense credits allocated to the merchant, net of their fees (the fees are in `fees`) */
  adjustments: number;
  settlements: number;
  withdrawalsRequested: number;
  withdrawalsPaid: number;
  withdrawalsRejected: number;
};
export type MerchantPeriod = {
  merchantId: string;
  opening: Balances;
  movements: MerchantMovements;
  closing: Balances;
  /** opening + movements = closing, for each balance */
  consistent: boolean;
  /** the read model's balances now (null: the period ended before today, nothing live to compare with) */
  readModel: Balances | null;
  /** the balances where the read model differs from the fold's closing */
  differences: { balance: keyof Balances; ledger: number; readModel: number }[];
};
export type HoldingAccountPeriod = {
  accountId: string;
  opening: number;
  credited: number;
  paidOut: number;
  closing: number;
  consistent: boolean;
  /** the account's cash in the ledger at the period's end, from the read model's postings (equals closing) */
  ledgerCash: number;
  /** the provider's balance at the period's end, from the synchronised mutations (null: never synchronised) */
  providerBalance: number | null;
  /** what it is known as of: the period's end, or the last sync when that came earlier */
  providerBalanceAt: string | null;
  /** providerBalance - ledgerCash: money the ledger does not account for (or lacks), shown, never hidden */
  difference: number | null;
  /** the timing differences that explain it (gateway-provider-tie.ts), their sum, and what they leave */
  items: TieItem[];
  explained: number;
  unexplained: number | null;
  /** unexplained = 0 (null: no provider balance) */
  tied: boolean | null;
};
export type PeriodBalances = {
  /** the closing balances were compared with the read model (the period reaches today, WIB) */
  comparedWithReadModel: boolean;
  merchants: MerchantPeriod[];
  /** the ledger debits `holding:<accountId>` for each credited payment: the holding accounts' own balances, folded alike */
  holdingAccounts: HoldingAccountPeriod[];
  /** the withdrawals paid in the period, in the order they were paid */
  payouts: Payout[];
  /** the years without a holiday decree that the period's settlements counted (their `calendarMissingYears`), in order */
  calendarMissingYears: number[];
};
export type Payout = { merchantId: string; withdrawalId: string; amount: number; reference: string; paidAt: string };

export type PeriodSources = { pool: Queryable; store: EventStore; clock: Clock };

const noMovements = (): MerchantMovements => ({
  creditsGross: 0,
  fees: 0,
  uniqueCodes: 0,
  creditsNet: 0,
  adjustments: 0,
  settlements: 0,
  withdrawalsRequested: 0,
  withdrawalsPaid: 0,
  withdrawalsRejected: 0,
});
const balancesOf = (balances: GatewayLedger['balances'], merchantId: string): Balances => {
  const { pending, settled, onHold } = merchantBalance({ balances } as GatewayLedger, merchantId);
  return { pending, settled, onHold };
};
const holdingPrefix = 'holding:';
const folding = 8; // merchants folded at once: each is a sequence of indexed page reads

/** What opening + movements make: settled counts what withdrawals hold, so a request moves nothing out of it. */
export function expectedClosing(opening: Balances, m: MerchantMovements): Balances {
  return {
    pending: opening.pending + m.creditsNet + m.adjustments - m.settlements,
    settled: opening.settled + m.settlements - m.withdrawalsPaid,
    onHold: opening.onHold + m.withdrawalsRequested - m.withdrawalsPaid - m.withdrawalsRejected,
  };
}

export const newHolding = (accountId: string): HoldingAccountPeriod => ({
  accountId,
  opening: 0,
  credited: 0,
  paidOut: 0,
  closing: 0,
  consistent: true,
  ledgerCash: 0,
  providerBalance: null,
  providerBalanceAt: null,
  difference: null,
  items: [],
  explained: 0,
  unexplained: null,
  tied: null,
});

/** Money into a holding account (a payment, a suspense credit) and out of it (a payout, a refund). */
function addHoldingMovements(postings: Posting[], holdings: Map<string, HoldingAccountPeriod>) {
  for (const p of postings) {
    if (!p.account.startsWith(holdingPrefix)) continue;
    const accountId = p.account.slice(holdingPrefix.length);
    const h = holdings.get(accountId) ?? newHolding(accountId);
    if (p.amount > 0) h.credited += p.amount;
    else h.paidOut -= p.amount;
    holdings.set(accountId, h);
  }
}

function addMovement(
  m: MerchantMovements,
  event: GatewayLedgerEvent,
  holdings: Map<string, HoldingAccountPeriod>,
  payouts: Payout[],
) {
  addHoldingMovements(event.data.postings, holdings);
  switch (event.type) {
    case 'GatewayPaymentCredited':
      m.creditsGross += event.data.totalAmount;
      m.fees += event.data.fee;
      m.uniqueCodes += event.data.uniqueCode ?? 0;
      m.creditsNet += event.data.net;
      return;
    case 'GatewaySuspenseAllocated':
      m.adjustments += event.data.net;
      m.fees += event.data.fee;
      m.uniqueCodes += event.data.uniqueCode ?? 0;
      return;
    case 'BalanceSettled':
      m.settlements += event.data.amount;
      return;
    case 'WithdrawalRequested':
      m.withdrawalsRequested += event.data.amount;
      return;
    case 'WithdrawalPaid': {
      const { merchantId, withdrawalId, amount, reference, paidAt } = event.data;
      m.withdrawalsPaid += amount;
      payouts.push({ merchantId, withdrawalId, amount, reference, paidAt });
      return;
    }
    case 'WithdrawalRejected':
      m.withdrawalsRejected += event.data.amount;
      return;
    default: {
      const never: never = event;
      return never;
    }
  }
}

/**
 * Every stream folded to the bounds, only as far as `through` when given. On PostgreSQL in one statement
 * (ledger-sql-fold.ts), from the newest month closed before the period when its close recorded its ledger closing (the
 * balances it adds are then that closing's, `start`); elsewhere each stream is read and folded (ledger-stream-fold.ts),
 * a few at a time. Either way an entry is placed by its effective time, moved by a closed month as every report places
 * it: before the start (opening), before the end (closing).
 */
async function foldStreams(
  sources: PeriodSources,
  streamIds: string[],
  period: PeriodBounds,
  through?: Position,
): Promise<SqlFold & { start: FoldStart | null }> {
  if (sources.store.kind === 'postgres') {
    const start = await foldStartBefore(sources.pool, period.startsAt, through);
    // a merchant the start counted whose stream is no longer listed: folded from the beginning, as before
    const listed = new Set(streamIds);
    const usable = start && [...start.merchants.keys()].every(id => listed.has(gatewayLedgerStream(id))) ? start : null;
    return { ...(await foldInDatabase(sources.pool, streamIds, period, usable, through)), start: usable };
  }
  const folded = new Map<string, FoldedStream>();
  const closures = await closuresForPlacement(sources.pool);
  const foldOne = async (streamId: string) => {
    folded.set(streamId, await foldStreamByEffectiveTime(sources.store, streamId, period, closures, through));
  };
  for (let i = 0; i < streamIds.length; i += folding) await Promise.all(streamIds.slice(i, i + folding).map(foldOne));
  const afters = [...folded.values()].flatMap(f => (f.firstAfter ? [f.firstAfter] : []));
  const firstAfter = afters.sort(comparePositions)[0] ?? null;
  return { folded, firstAfter, start: null };
}

/** The merchants with a ledger: the event store's gateway streams (PostgreSQL) and the read model's, so neither hides one. */
async function merchantIds(sources: PeriodSources): Promise<string[]> {
  const fromStore =
    sources.store.kind === 'postgres'
      ? `select substr(stream_id, 9) as id from es_streams where stream_id like 'gateway-%' and not deleted
         and substr(stream_id, 9) ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' union `
      : '';
  const r = await query<{ id: string }>(
    sources.pool,
    'ReconcileLedgerMerchants',
    `${fromStore}select merchant_id::text as id from gateway_balances order by 1`,
  );
  return r.rows.map(row => row.id).filter(id => z.uuid().safeParse(id).success);
}

/** The years without a decree that the settlements among `events` say they counted (an entry before it says none). */
function settledWithoutDecree(events: StoredLedgerEvent[], into: Set<number>) {
  for (const event of events) {
    if (event.type !== 'BalanceSettled') continue;
    const years = event.data.calendarMissingYears;
    if (Array.isArray(years)) for (const year of years) into.add(Number(year));
  }
}

/** The WIB date of an instant (UTC+7 all year). */
const wibDate = (at: Date) => new Date(at.getTime() + 7 * 3_600_000).toISOString().slice(0, 10);

/** The ledger folded to a period's bounds, a fold start's closing added: what the period's figures are made of. */
type LedgerFold = {
  /** each merchant listed, `counted` when it has a ledger entry placed before the period's end */
  merchants: {
    merchantId: string;
    opening: Balances;
    closing: Balances;
    counted: boolean;
    between: StoredLedgerEvent[];
  }[];
  /** the platform streams' entries in the period */
  platformBetween: StoredLedgerEvent[];
  /** each holding account with a posting before the period's end: its cash at the period's start and end */
  holdingOpening: Map<string, number>;
  holdingClosing: Map<string, number>;
  firstAfter: Position | null;
};

const plus = (a: Balances | undefined, b: Balances): Balances =>
  a ? { pending: a.pending + b.pending, settled: a.settled + b.settled, onHold: a.onHold + b.onHold } : b;

async function ledgerFold(sources: PeriodSources, period: PeriodBounds, through?: Position): Promise<LedgerFold> {
  const ids = await merchantIds(sources);
  // the platform's own streams move holding accounts' cash too: suspense credits and refunds, hand transfers, openings
  const platformStreams = [suspenseStream, holdingTransfersStream, ledgerAdjustmentsStream];
  const streams = [...platformStreams, ...ids.map(gatewayLedgerStream)];
  const { folded, firstAfter, start } = await foldStreams(sources, streams, period, through);
  const holdingOpening = new Map(start?.holdingAccounts);
  const holdingClosing = new Map(start?.holdingAccounts);
  const addBounds = (open: Record<string, number>, close: Record<string, number>) => {
    for (const [into, balances] of [
      [holdingOpening, open],
      [holdingClosing, close],
    ] as const) {
      for (const [account, balance] of Object.entries(balances)) {
        if (account.startsWith(holdingPrefix))
          into.set(account.slice(holdingPrefix.length), (into.get(account.slice(holdingPrefix.length)) ?? 0) + balance);
      }
    }
  };
  const platformBetween = platformStreams.flatMap(id => {
    const platform = folded.get(id)!;
    addBounds(platform.open, platform.close);
    return platform.between;
  });
  const merchants = ids.map(merchantId => {
    const { open, close, events, between } = folded.get(gatewayLedgerStream(merchantId))!;
    addBounds(open, close);
    const carried = start?.merchants.get(merchantId);
    const opening = plus(carried, balancesOf(open, merchantId));
    const closing = plus(carried, balancesOf(close, merchantId));
    return { merchantId, opening, closing, counted: events > 0 || carried !== undefined, between };
  });
  return { merchants, platformBetween, holdingOpening, holdingClosing, firstAfter };
}

/**
 * A month's ledger closing as its close records it (ledger-fold-start.ts): the fold of the log as far as `through`,
 * and where a later fold reads from: the earliest entry up to `through` placed after the month, else `through`.
 */
export async function ledgerClosingOf(
  sources: PeriodSources,
  month: PeriodBounds,
  through: Position,
): Promise<LedgerClosing> {
  const fold = await ledgerFold(sources, month, through);
  const merchants = fold.merchants.filter(m => m.counted).map(m => [m.merchantId, m.closing] as const);
  return {
    from: textOf(fold.firstAfter ?? through),
    merchants: Object.fromEntries(merchants),
    holdingAccounts: Object.fromEntries(fold.holdingClosing),
  };
}

/**
 * How the reports fold: `through`, the last log position counted (a close's report; none: as far as anything can be
 * placed in the period, which for a period inside a closed month is that month's close).
 */
export type FoldOptions = { through?: Position };

export async function periodBalances(
  sources: PeriodSources,
  period: ReconciliationPeriod,
  options: FoldOptions = {},
): Promise<PeriodBalances> {
  const through = options.through ?? (await closedMonthThrough(sources.pool, period));
  const fold = await ledgerFold(sources, period, through);
  const holdings = new Map<string, HoldingAccountPeriod>();
  const merchants: MerchantPeriod[] = [];
  const payouts: Payout[] = [];
  const withoutDecree = new Set<number>();
  for (const event of fold.platformBetween)
    if (Array.isArray(event.data.postings)) addHoldingMovements(event.data.postings, holdings);
  for (const { merchantId, opening, closing, counted, between } of fold.merchants) {
    const movements = noMovements();
    for (const event of between) addMovement(movements, event as GatewayLedgerEvent, holdings, payouts);
    settledWithoutDecree(between, withoutDecree);
    if (!counted) continue; // no ledger yet at the period's end: nothing to report but a read-model row
    const expected = expectedClosing(opening, movements);
    const consistent =
      expected.pending === closing.pending &&
      expected.settled === closing.settled &&
      expected.onHold === closing.onHold;
    merchants.push({ merchantId, opening, movements, closing, consistent, readModel: null, differences: [] });
  }
  merchants.sort((a, b) => a.merchantId.localeCompare(b.merchantId));
  const { holdingOpening, holdingClosing } = fold;

  const comparedWithReadModel = period.to >= wibDate(sources.clock.now());
  if (comparedWithReadModel) await compareWithReadModel(sources.pool, merchants);

  for (const accountId of new Set([...holdings.keys(), ...holdingOpening.keys(), ...holdingClosing.keys()])) {
    const h = holdings.get(accountId) ?? newHolding(accountId);
    h.opening = holdingOpening.get(accountId) ?? 0;
    h.closing = holdingClosing.get(accountId) ?? 0;
    h.consistent = h.opening + h.credited - h.paidOut === h.closing;
    holdings.set(accountId, h);
  }
  // tied to the providers by the report, from the read models of its snapshot (gateway-provider-tie.ts)
  const holdingAccounts = [...holdings.values()].sort((a, b) => a.accountId.localeCompare(b.accountId));
  payouts.sort((a, b) => a.paidAt.localeCompare(b.paidAt) || a.withdrawalId.localeCompare(b.withdrawalId));
  const calendarMissingYears = [...withoutDecree].sort((a, b) => a - b);
  return { comparedWithReadModel, merchants, holdingAccounts, payouts, calendarMissingYears };
}

/** Every merchant of the read model against the fold's closing; a read-model merchant the ledger lacks is a row of zeros. */
async function compareWithReadModel(db: Queryable, merchants: MerchantPeriod[]) {
  const r = await query<{ merchant_id: string; pending: number; settled: number; on_hold: number }>(
    // the table keeps the settled account (available); the API's settled counts what withdrawals hold, as the fold's
    db,
    'ReconcileReadModelBalances',
    'select merchant_id::text, pending, settled + on_hold as settled, on_hold from gateway_balances',
  );
  const byId = new Map(merchants.map(m => [m.merchantId, m]));
  const zero = (): Balances => ({ pending: 0, settled: 0, onHold: 0 });
  for (const row of r.rows) {
    let m = byId.get(row.merchant_id);
    if (!m) {
      m = {
        merchantId: row.merchant_id,
        opening: zero(),
        movements: noMovements(),
        closing: zero(),
        consistent: true,
        readModel: null,
        differences: [],
      };
      merchants.push(m);
      byId.set(m.merchantId, m);
    }
    m.readModel = { pending: row.pending, settled: row.settled, onHold: row.on_hold };
  }
  for (const m of merchants) {
    m.readModel ??= zero();
    for (const balance of ['pending', 'settled', 'onHold'] as const) {
      if (m.readModel[balance] !== m.closing[balance])
        m.differences.push({ balance, ledger: m.closing[balance], readModel: m.readModel[balance] });
    }
  }
  merchants.sort((a, b) => a.merchantId.localeCompare(b.merchantId));
}
