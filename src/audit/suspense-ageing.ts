import { query, type Queryable } from '../db/pool.ts';

/**
 * Suspense as at an instant: the credits no payment claimed that were received before it and not yet allocated or
 * refunded then, each with its age, and their ageing in buckets (0-7, 8-30, over 30 days). A credit stays in every
 * report until it is resolved, whatever period it came in. Ages are counted in WIB days: from the day it came (day 0)
 * to the as-at day.
 */

export const ageingBuckets = ['0-7', '8-30', 'over-30'] as const;
export type AgeingBucket = (typeof ageingBuckets)[number];

export type OpenSuspenseItem = {
  id: string;
  accountId: string;
  amount: number;
  senderName: string;
  reference: string | null;
  receivedAt: string;
  /** whole WIB days from the day it came to the as-at day */
  ageDays: number;
  bucket: AgeingBucket;
};
export type SuspenseAgeing = {
  /** the instant it is taken at (the period's end), and its WIB day, the last day counted */
  asAt: string;
  asOfDay: string;
  buckets: { bucket: AgeingBucket; items: number; amount: number }[];
  total: { items: number; amount: number };
  /** oldest first, at most 1,000 (`total` counts all) */
  items: OpenSuspenseItem[];
};

const dayMs = 86_400_000;
const wibOffsetMs = 7 * 3_600_000;
const wibDayNumber = (at: number) => Math.floor((at + wibOffsetMs) / dayMs);

/** The WIB days from `receivedAt` to the day of `asAt` (an instant that ends a day counts that day: 00:00 is taken as just before). */
export function ageDays(receivedAt: Date, asAt: Date): number {
  return Math.max(0, wibDayNumber(asAt.getTime() - 1) - wibDayNumber(receivedAt.getTime()));
}

export function bucketOf(age: number): AgeingBucket {
  if (age <= 7) return '0-7';
  return age <= 30 ? '8-30' : 'over-30';
}

type OpenRow = Omit<OpenSuspenseItem, 'ageDays' | 'bucket' | 'receivedAt'> & { receivedAt: Date };

/** The open credits aged and bucketed as at `asAt`. */
export function ageing(open: readonly OpenRow[], asAt: Date): SuspenseAgeing {
  const items = open.map(row => {
    const age = ageDays(row.receivedAt, asAt);
    return { ...row, receivedAt: row.receivedAt.toISOString(), ageDays: age, bucket: bucketOf(age) };
  });
  const buckets = ageingBuckets.map(bucket => {
    const of = items.filter(i => i.bucket === bucket);
    return { bucket, items: of.length, amount: of.reduce((sum, i) => sum + i.amount, 0) };
  });
  return {
    asAt: asAt.toISOString(),
    asOfDay: new Date(wibDayNumber(asAt.getTime() - 1) * dayMs).toISOString().slice(0, 10),
    buckets,
    total: { items: items.length, amount: items.reduce((sum, i) => sum + i.amount, 0) },
    items: items.slice(0, 1000),
  };
}

/**
 * The suspense credits open as at `asAt`: received before it (the mutation's time) and not resolved before it (an
 * allocation or refund recorded later leaves it open as at then), nor taken by a hand transfer then and given back
 * since.
 */
export async function suspenseAgeing(db: Queryable, asAt: Date): Promise<SuspenseAgeing> {
  const r = await query<OpenRow>(
    db,
    'ReconcileOpenSuspense',
    `select id, account_id as "accountId", amount, sender_name as "senderName", reference, received_at as "receivedAt"
     from gateway_suspense where received_at < $1 and (resolved_at is null or resolved_at >= $1)
       and not exists (select 1 from jsonb_array_elements(untransfers) u
         where (u->>'transferredAt')::timestamptz < $1 and (u->>'at')::timestamptz >= $1)
     order by received_at, id`,
    [asAt],
  );
  return ageing(r.rows, asAt);
}
