import { query, type Queryable } from '../db/pool.ts';
import { monthBounds } from '../domain/gateway-periods.ts';
import type { Position } from '../store/event-store.ts';
import { movedToSql, type PostingColumns } from './gateway-periods.ts';

/**
 * Where the reports place each posting of gateway_postings, kept on the row (`reported_at`) so that a report reads one
 * indexed column instead of running the placement rule (movedToSql) over the closes for every posting it reads.
 *
 * The rule is by log position (a close covers the postings after its `through` and before its reopening), and the
 * ledger read model applies the log in order, so it keeps its own copy of the closes (gateway_ledger_closes): the
 * closes read model (gateway-periods) runs on a checkpoint of its own and may be behind. A posting takes the rule over
 * the closes projected before it; a close projected later covers only the postings after its `through` that are
 * already there, the few recorded while its report was computed, which it places again. A reopening changes no row: it
 * covers no posting before it, and a posting sent forward while its month was closed stays where it was sent.
 */

export const ledgerClosesTable = 'gateway_ledger_closes';

/** `reported_at` of a posting being inserted, from its columns (of the recordset being inserted). */
export const reportedAtOnInsert = (of: PostingColumns): string =>
  `coalesce(${movedToSql(of, ledgerClosesTable)}, ${of.effectiveAt})`;

/**
 * The migration step: the closes as the read model of closes has them (none on a fresh schema, where that table is in
 * another unit or, in a replay, not in the search path), then every posting placed. A ledger read model ahead of the
 * closes' (a close appended while one was stopped) is exact after `rebuild-read-models gateway-ledger`.
 */
export const placementStep = `
  create table if not exists ${ledgerClosesTable} (
    event_id uuid primary key,
    starts_at timestamptz not null,
    ends_at timestamptz not null,
    through_commit bigint not null,
    through_prepare bigint not null,
    reopened_commit bigint,
    reopened_prepare bigint
  );
  do $$ begin
    if to_regclass('gateway_period_closures') is not null then
      insert into ${ledgerClosesTable} (event_id, starts_at, ends_at, through_commit, through_prepare, reopened_commit, reopened_prepare)
      select event_id, starts_at, ends_at, through_commit, through_prepare, reopened_commit, reopened_prepare
      from gateway_period_closures on conflict do nothing;
    end if;
  end $$;
  alter table gateway_postings add column if not exists reported_at timestamptz;
  update gateway_postings g set reported_at = coalesce(${movedToSql('g', ledgerClosesTable)}, g.effective_at);
  alter table gateway_postings alter column reported_at set not null;
  create index if not exists gateway_postings_by_reported on gateway_postings (reported_at);
  create index if not exists gateway_postings_by_account_reported on gateway_postings (account, reported_at);`;

/** A close as the ledger read model records it: its event, month and the log position its report counted. */
export type LedgerClose = { eventId: string; period: string; through: { commit: string; prepare: string } };

/**
 * A close projected: recorded, then the postings it may move placed again. Those are after its `through` and reported
 * in its month now: taking effect in it, or sent to its first day by the closed months before it (now sent further).
 */
export async function placeClose(tx: Queryable, close: LedgerClose): Promise<void> {
  const { startsAt, endsAt } = monthBounds(close.period);
  await query(
    tx,
    'ProjectLedgerClose',
    `insert into ${ledgerClosesTable} (event_id, starts_at, ends_at, through_commit, through_prepare)
     values ($1, $2, $3, $4, $5) on conflict do nothing`,
    [close.eventId, startsAt, endsAt, close.through.commit, close.through.prepare],
  );
  await query(
    tx,
    'PlaceLedgerPostingsAfterClose',
    `update gateway_postings g set reported_at = coalesce(${movedToSql('g', ledgerClosesTable)}, g.effective_at)
     where (g.position_commit, g.position_prepare) > ($3::bigint, $4::bigint) and g.reported_at >= $1 and g.reported_at < $2`,
    [startsAt, endsAt, close.through.commit, close.through.prepare],
  );
}

/** A reopening projected: the month's close in force ends at its position (no posting changes: see above). */
export async function recordReopening(tx: Queryable, period: string, position: Position): Promise<void> {
  await query(
    tx,
    'ProjectLedgerReopening',
    `update ${ledgerClosesTable} set reopened_commit = $2, reopened_prepare = $3
     where starts_at = $1 and reopened_commit is null`,
    [monthBounds(period).startsAt, String(position.commit), String(position.prepare)],
  );
}
