import { ledgerClosing, type LedgerClosing } from '../events/gateway-periods.ts';
import { query, type Queryable } from '../db/pool.ts';
import type { Position } from '../store/event-store.ts';

/**
 * Where the event-log fold of a period may start instead of the log's beginning: the closing a month's close folded
 * (GatewayPeriodClosed.ledger) over the log as far as its `through`. An entry recorded up to `through` is placed where
 * it was when the month closed (a close or reopening made later never covers it), so while the month stays closed
 * that closing is final; the entries after `through`, and those up to it placed after the month (they begin at
 * `from`), are folded as any other. Reading the log from `from` leaves out only entries that closing counted.
 */

export type { LedgerClosing };
export type Balances = LedgerClosing['merchants'][string];

/** A fold's starting point: the closing at `endsAt`, counting the entries up to `through` placed before it. */
export type FoldStart = {
  endsAt: Date;
  through: Position;
  from: Position;
  merchants: Map<string, Balances>;
  holdingAccounts: Map<string, number>;
};

export const positionOf = (p: { commit: string; prepare: string }): Position => ({
  commit: BigInt(p.commit),
  prepare: BigInt(p.prepare),
});
export const textOf = (p: Position) => ({ commit: String(p.commit), prepare: String(p.prepare) });

/**
 * The newest month closed now (not reopened) that ends by `startsAt` and whose close recorded its ledger closing, as
 * a fold start; null: none (a close from before the closing was recorded is not used), the fold reads the whole log.
 * `through`: the fold counts the log only up to there (a close's own report), so a later close is no start for it.
 */
export async function foldStartBefore(db: Queryable, startsAt: Date, through?: Position): Promise<FoldStart | null> {
  const r = await query<{ ends_at: Date; through_commit: string; through_prepare: string; ledger: unknown }>(
    db,
    'FindLedgerFoldStart',
    `select ends_at, through_commit::text, through_prepare::text, ledger from gateway_period_closures
     where reopened_at is null and ledger is not null and ends_at <= $1
       and ($2::bigint is null or (through_commit, through_prepare) <= ($2::bigint, $3::bigint))
     order by ends_at desc limit 1`,
    [
      startsAt,
      through === undefined ? null : String(through.commit),
      through === undefined ? null : String(through.prepare),
    ],
  );
  const row = r.rows[0];
  if (!row) return null;
  const closing = ledgerClosing.parse(row.ledger);
  return {
    endsAt: row.ends_at,
    through: { commit: BigInt(row.through_commit), prepare: BigInt(row.through_prepare) },
    from: positionOf(closing.from),
    merchants: new Map(Object.entries(closing.merchants)),
    holdingAccounts: new Map(Object.entries(closing.holdingAccounts)),
  };
}

/**
 * The log position the close of a month folded to, when `period` lies inside that month and it is closed now (not
 * reopened): an entry recorded after that position is placed after the month (src/audit/ledger-periods.ts), so a fold
 * of the period need read the log no further. Undefined when no closed month holds the whole period.
 */
export async function closedMonthThrough(
  db: Queryable,
  period: { startsAt: Date; endsAt: Date },
): Promise<Position | undefined> {
  const r = await query<{ through_commit: string; through_prepare: string }>(
    db,
    'FindClosedMonthAround',
    `select through_commit::text, through_prepare::text from gateway_period_closures
     where reopened_at is null and starts_at <= $1 and ends_at >= $2
     order by ends_at desc limit 1`,
    [period.startsAt, period.endsAt],
  );
  const row = r.rows[0];
  return row ? { commit: BigInt(row.through_commit), prepare: BigInt(row.through_prepare) } : undefined;
}
