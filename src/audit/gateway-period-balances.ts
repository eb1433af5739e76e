import { z } from 'zod';
import {
  effectiveAtSql,
  emptyFold,
  eventColumns,
  foldStreamByEffectiveTime,
  type FoldedStream,
  type StoredLedgerEvent,
} from './ledger-stream-fold.ts';
import { gatewayLedgerStream, merchantBalance, type GatewayLedger } from '../domain/gateway-ledger.ts';
import { suspenseStream } from '../domain/gateway-suspense.ts';
import { holdingTransfersStream } from '../domain/holding-transfers.ts';
import { ledgerAdjustmentsStream } from '../domain/ledger-adjustments.ts';
import type { TieItem } from './gateway-provider-tie.ts';

import type { Clock } from '../clock.ts';
import { query, type Queryable } from '../db/pool.ts';
import type { GatewayLedgerEvent, Posting } from '../events/gateway.ts';
import type { EventStore } from '../store/event-store.ts';
import { closuresForPlacement, movedToSql } from '../projections/gateway-periods.ts';
import type { ReconciliationPeriod } from './gateway-reconciliation.ts';

/**
 * Each merchant's and each holding account's balances at the period's bounds, folded from the event log (the merchant's
 * `gateway-<id>` stream, as `balance-as-of` folds it), the movements between them, and opening + movements = closing
 * checked; the closing balances are compared with the read model when the period reaches today (WIB).
 */

export type Balances = { pending: number; settled: number; onHold: number };
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
 * Every stream folded to the bounds. On PostgreSQL one statement sums the postings out of the stored events for all
 * streams at once (a year of a thousand merchants' ledgers in one scan) and hands back only the period's events;
 * elsewhere each stream is read and folded (ledger-stream-fold.ts), a few at a time. Either way an entry is placed by
 * its effective time, moved by a closed month as every report places it: before the start (opening), before the end
 * (closing).
 */
async function foldStreams(
  sources: PeriodSources,
  streamIds: string[],
  period: ReconciliationPeriod,
): Promise<Map<string, FoldedStream>> {
  const found = new Map<string, FoldedStream>(streamIds.map(id => [id, emptyFold()]));
  if (sources.store.kind === 'postgres') {
    const r = await query<{
      balances: { stream_id: string; account: string; open: number | null; close: number }[];
      streams: { stream_id: string; events: number }[];
      between: (StoredLedgerEvent & { stream_id: string })[];
    }>(
      sources.pool,
      'ReconcileFoldLedgers',
      `with timed as materialized (
         select e.stream_id, e.revision, e.type, e.data, e.transaction_id, e.position, ${effectiveAtSql('e')} as effective_at
         from es_events e where e.stream_id = any($1::text[]) and e.data->'postings' is not null
       ), ev as materialized (
         select t.stream_id, t.revision, t.type, t.data, coalesce(${movedToSql(eventColumns('t'))}, t.effective_at) as at
         from timed t
       ), lines as (
         select ev.stream_id, p->>'account' as account, (p->>'amount')::bigint as amount, ev.at
         from ev cross join lateral json_array_elements(ev.data->'postings') p where ev.at < $3
       )
       select
         (select coalesce(json_agg(b), '[]') from (
            select stream_id, account, sum(amount) filter (where at < $2) as open, sum(amount) as close from lines group by 1, 2) b) as balances,
         (select coalesce(json_agg(c), '[]') from (select stream_id, count(*) as events from ev where at < $3 group by 1) c) as streams,
         (select coalesce(json_agg(x order by x.stream_id, x.revision), '[]') from (
            select stream_id, revision, type, data from ev where at >= $2 and at < $3) x) as between`,
      [streamIds, period.startsAt, period.endsAt],
    );
    const { balances, streams, between } = r.rows[0]!;
    for (const b of balances) {
      const f = found.get(b.stream_id)!;
      f.open[b.account] = Number(b.open ?? 0);
      f.close[b.account] = Number(b.close);
    }
    for (const c of streams) found.get(c.stream_id)!.events = Number(c.events);
    for (const e of between) found.get(e.stream_id)!.between.push({ type: e.type, data: e.data });
    return found;
  }
  const closures = await closuresForPlacement(sources.pool);
  const foldOne = async (streamId: string) => {
    found.set(streamId, await foldStreamByEffectiveTime(sources.store, streamId, period, closures));
  };
  for (let i = 0; i < streamIds.length; i += folding) await Promise.all(streamIds.slice(i, i + folding).map(foldOne));
  return found;
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

export async function periodBalances(sources: PeriodSources, period: ReconciliationPeriod): Promise<PeriodBalances> {
  const ids = await merchantIds(sources);
  const holdings = new Map<string, HoldingAccountPeriod>();
  const holdingOpening = new Map<string, number>();
  const holdingClosing = new Map<string, number>();
  const merchants: MerchantPeriod[] = [];
  const payouts: Payout[] = [];
  const withoutDecree = new Set<number>();
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
  // the platform's own streams move holding accounts' cash too: suspense credits and refunds, hand transfers, openings
  const platformStreams = [suspenseStream, holdingTransfersStream, ledgerAdjustmentsStream];
  const folded = await foldStreams(sources, [...platformStreams, ...ids.map(gatewayLedgerStream)], period);
  for (const platform of platformStreams.map(id => folded.get(id)!)) {
    for (const event of platform.between)
      if (Array.isArray(event.data.postings)) addHoldingMovements(event.data.postings, holdings);
    addBounds(platform.open, platform.close);
  }
  for (const merchantId of ids) {
    const { open, close, events, between } = folded.get(gatewayLedgerStream(merchantId))!;
    const movements = noMovements();
    for (const event of between) addMovement(movements, event as GatewayLedgerEvent, holdings, payouts);
    settledWithoutDecree(between, withoutDecree);
    addBounds(open, close);
    if (events === 0) continue; // no ledger yet at the period's end: nothing to report but a read-model row
    const opening = balancesOf(open, merchantId);
    const closing = balancesOf(close, merchantId);
    const expected = expectedClosing(opening, movements);
    const consistent =
      expected.pending === closing.pending &&
      expected.settled === closing.settled &&
      expected.onHold === closing.onHold;
    merchants.push({ merchantId, opening, movements, closing, consistent, readModel: null, differences: [] });
  }
  merchants.sort((a, b) => a.merchantId.localeCompare(b.merchantId));

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
