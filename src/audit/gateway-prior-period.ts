import { query, type Queryable } from '../db/pool.ts';

/**
 * The postings a period reports from months closed before they were recorded (prior-period items): listed apart from
 * the period's days, with when the money moved and when they were recorded.
 */

type Bounds = { startsAt: Date; endsAt: Date };

/** A posting of an earlier, closed month, reported in this period (its entry: the postings of one event). */
export type PriorPeriodItem = {
  merchantId: string;
  streamRevision: number;
  eventType: string;
  referenceId: string;
  effectiveAt: string;
  recordedAt: string;
  /** the WIB day it is reported on: the first of the month it moved to */
  reportedOn: string;
  postings: { account: string; amount: number }[];
};

const utc = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The period's prior-period items (at most 1,000 of them; `count` counts all): the postings reported in the period
 * later than they took effect, which only a closed month does (gateway_postings.reported_at).
 */
export async function priorPeriodItems(
  db: Queryable,
  period: Bounds,
): Promise<{ count: number; items: PriorPeriodItem[] }> {
  const r = await query<{ items: PriorPeriodItem[]; count: number }>(
    db,
    'ReconcilePriorPeriodItems',
    `with moved as (
       select merchant_id::text as "merchantId", stream_revision as "streamRevision", min(event_type) as "eventType",
         min(reference_id) as "referenceId", min(effective_at) as effective_at, min(recorded_at) as recorded_at,
         (min(moved_to) at time zone 'Asia/Jakarta')::date::text as "reportedOn",
         json_agg(json_build_object('account', account, 'amount', amount) order by account collate "C") as postings
       from (select g.*, g.reported_at as moved_to from gateway_postings g
             where g.reported_at >= $1 and g.reported_at < $2 and g.reported_at <> g.effective_at) p
       group by merchant_id, stream_revision
     )
     select (select coalesce(json_agg(x), '[]') from (
              select "merchantId", "streamRevision", "eventType", "referenceId", ${utc('effective_at')} as "effectiveAt",
                ${utc('recorded_at')} as "recordedAt", "reportedOn", postings
              from moved order by effective_at, "merchantId", "streamRevision" limit 1000) x) as items,
            (select count(*) from moved)::int as count`,
    [period.startsAt, period.endsAt],
  );
  return r.rows[0]!;
}
