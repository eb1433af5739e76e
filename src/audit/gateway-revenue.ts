import { query, type Queryable } from '../db/pool.ts';
import type { ReconciliationPeriod } from './gateway-reconciliation.ts';
import { reportedAtSql } from './ledger-periods.ts';
import { merchantNames, merchantNamesOf, type MerchantNames } from './report-names.ts';

/**
 * The platform's revenue of a period by payment method and by merchant: what the ledger booked to `platform:fees` and,
 * apart, to `platform:unique-codes` (the codes buyers paid on top of their bills), with the sales they came from. Every
 * entry that earns either counts: a completed payment's credit, and a suspense credit allocated to a merchant (its
 * payment's method; none when it was allocated without a payment). Placed by the reports' one rule (ledger-periods.ts),
 * so the totals are the reconciliation's `fees.total.earned` and `fees.total.uniqueCodes` for the same days.
 */

export type RevenueFigures = {
  /** completed payments credited */
  payments: number;
  /** suspense credits allocated */
  allocations: number;
  /** what the buyers paid: fees + unique codes + what the merchants were credited */
  gross: number;
  fees: number;
  uniqueCodes: number;
  /** fees + unique codes: the platform's income */
  revenue: number;
  /** what the merchants were credited */
  net: number;
};
export type MethodRevenue = { method: string | null } & RevenueFigures;
export type MerchantRevenue = { merchantId: string } & MerchantNames & RevenueFigures;
export type GatewayRevenue = {
  period: { from: string; to: string; timeZone: 'Asia/Jakarta'; startsAt: string; endsAt: string };
  byMethod: MethodRevenue[];
  byMerchant: MerchantRevenue[];
  total: RevenueFigures;
};

const none = (): RevenueFigures => ({
  payments: 0,
  allocations: 0,
  gross: 0,
  fees: 0,
  uniqueCodes: 0,
  revenue: 0,
  net: 0,
});

function add(into: RevenueFigures, row: Omit<RevenueFigures, 'revenue' | 'gross'>) {
  into.payments += row.payments;
  into.allocations += row.allocations;
  into.fees += row.fees;
  into.uniqueCodes += row.uniqueCodes;
  into.net += row.net;
  into.revenue = into.fees + into.uniqueCodes;
  into.gross = into.revenue + into.net;
}

type RevenueRow = {
  method: string | null;
  merchant_id: string;
  payments: number;
  allocations: number;
  fees: number;
  unique_codes: number;
  net: number;
};

/** The period's earning entries, summed by the method of the payment they came from and by merchant. */
async function revenueRows(db: Queryable, period: ReconciliationPeriod): Promise<RevenueRow[]> {
  const at = reportedAtSql('g');
  const r = await query<RevenueRow>(
    db,
    'ReportGatewayRevenue',
    `with entries as (
       select g.merchant_id, g.event_type, min(g.reference_id) as reference_id,
         coalesce(-sum(g.amount) filter (where g.account = 'platform:fees'), 0) as fees,
         coalesce(-sum(g.amount) filter (where g.account = 'platform:unique-codes'), 0) as unique_codes,
         coalesce(-sum(g.amount) filter (where g.account like 'merchant:%'), 0) as net
       from gateway_postings g
       where g.event_type in ('GatewayPaymentCredited', 'GatewaySuspenseAllocated') and ${at} >= $1 and ${at} < $2
       group by g.merchant_id, g.stream_revision, g.event_type
     )
     select p.type as method, e.merchant_id::text as merchant_id,
       count(*) filter (where e.event_type = 'GatewayPaymentCredited')::int as payments,
       count(*) filter (where e.event_type = 'GatewaySuspenseAllocated')::int as allocations,
       sum(e.fees)::bigint as fees, sum(e.unique_codes)::bigint as unique_codes, sum(e.net)::bigint as net
     from entries e
     left join gateway_suspense s on e.event_type = 'GatewaySuspenseAllocated' and s.id::text = e.reference_id
     left join payments p on p.id::text = case when e.event_type = 'GatewayPaymentCredited' then e.reference_id
       else s.payment_id::text end
     group by 1, 2`,
    [period.startsAt, period.endsAt],
  );
  return r.rows;
}

export async function gatewayRevenue(db: Queryable, period: ReconciliationPeriod): Promise<GatewayRevenue> {
  const byMethod = new Map<string | null, MethodRevenue>();
  const byMerchant = new Map<string, RevenueFigures>();
  const total = none();
  for (const row of await revenueRows(db, period)) {
    const figures = {
      payments: row.payments,
      allocations: row.allocations,
      fees: Number(row.fees),
      uniqueCodes: Number(row.unique_codes),
      net: Number(row.net),
    };
    const method = byMethod.get(row.method) ?? { method: row.method, ...none() };
    add(method, figures);
    byMethod.set(row.method, method);
    const merchant = byMerchant.get(row.merchant_id) ?? none();
    add(merchant, figures);
    byMerchant.set(row.merchant_id, merchant);
    add(total, figures);
  }
  const names = await merchantNames(db, byMerchant.keys());
  return {
    period: {
      from: period.from,
      to: period.to,
      timeZone: 'Asia/Jakarta',
      startsAt: period.startsAt.toISOString(),
      endsAt: period.endsAt.toISOString(),
    },
    // a method's name in order, the allocations without a payment last
    byMethod: [...byMethod.values()].sort((a, b) =>
      a.method === null ? 1 : b.method === null ? -1 : a.method.localeCompare(b.method),
    ),
    byMerchant: [...byMerchant.entries()]
      .map(([merchantId, figures]) => ({ merchantId, ...merchantNamesOf(names, merchantId), ...figures }))
      .sort((a, b) => b.revenue - a.revenue || a.merchantId.localeCompare(b.merchantId)),
    total,
  };
}
