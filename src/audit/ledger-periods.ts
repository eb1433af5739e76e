/**
 * Where the reports place a posting of the gateway ledger: one rule for the trial balance, the carried balances, the
 * merchants' and holding accounts' folds and the suspense report, so a posting falls in exactly one period and each
 * period's closing is the next one's opening. A posting is placed by its effective time (when the money moved:
 * src/domain/ledger-time.ts), not by when the service recorded it. Periods are half open, [startsAt, endsAt): a posting
 * at 00:00 WIB belongs to the day it starts.
 *
 * Closing a period extends this rule (a posting recorded after its period closed goes into the next open one): here,
 * in `reportedAt` and `reportedAtSql` together, so the reports keep following one rule.
 */

/** A posting as the reports see it: its account, its amount (debit positive, credit negative) and its two times. */
export type PeriodPosting = {
  account: string;
  amount: number;
  /** when the money moved (ISO instant) */
  effectiveAt: string;
  /** when the service recorded it (ISO instant) */
  recordedAt: string;
};

/** A period's bounds: from `startsAt` (included) to `endsAt` (excluded). */
export type PeriodBounds = { startsAt: Date; endsAt: Date };

/**
 * A posting as placed: its times and, read from an event store other than PostgreSQL's, where a closed month sent it
 * (movedTo over its log position; null or absent: nowhere, it stays at its effective time).
 */
export type Placed = Pick<PeriodPosting, 'effectiveAt' | 'recordedAt'> & { movedTo?: number | null };

/** The instant a report places a posting at, in milliseconds. */
export const reportedAt = (p: Placed): number => p.movedTo ?? Date.parse(p.effectiveAt);

/**
 * `reportedAt` over a row of gateway_postings (optionally of the alias `table`), as SQL, with the closed months: a
 * posting recorded while its month was closed is reported at the start of the next open month. The ledger read model
 * keeps it on the row as it projects the postings and the closes (movedToSql, src/projections/gateway-ledger-placement.ts),
 * indexed alone and by account; never earlier than the effective time.
 */
export const reportedAtSql = (table?: string): string => `${table ? `${table}.` : ''}reported_at`;

/** Before the period (in its opening), in it (its movements), or after it (in neither). */
export type Placement = 'before' | 'in' | 'after';

export function placement(p: Placed, bounds: PeriodBounds): Placement {
  const at = reportedAt(p);
  if (at < bounds.startsAt.getTime()) return 'before';
  return at < bounds.endsAt.getTime() ? 'in' : 'after';
}

const wibOffsetMs = 7 * 3_600_000;

/** The WIB month (YYYY-MM) a posting is reported in: the month-end close's period. */
export const periodOf = (p: Placed): string => new Date(reportedAt(p) + wibOffsetMs).toISOString().slice(0, 7);

/** The bounds of a WIB month (YYYY-MM): 00:00 WIB of its first day to 00:00 WIB of the next month's. */
export function monthBounds(month: string): PeriodBounds {
  const [year, m] = month.split('-').map(Number) as [number, number];
  const startsAt = new Date(Date.UTC(year, m - 1, 1) - wibOffsetMs);
  const endsAt = new Date(Date.UTC(year, m, 1) - wibOffsetMs);
  return { startsAt, endsAt };
}
