import { monthBounds } from '../domain/gateway-periods.ts';
import { query, type Queryable } from '../db/pool.ts';
import { comparePositions, type Position } from '../store/event-store.ts';
import { projection } from './projection.ts';

/**
 * The months of the gateway's books closed, one row per close (a month closed, reopened and closed again has two):
 * its frozen report and hash, the last log position its ledger postings count, and the reopening that ended it.
 * The reports read it to place each posting in its period (movedToSql).
 */
export const gatewayPeriodsProjection = projection({
  name: 'gateway-periods',
  tables: ['gateway_period_closures'],
  schema: [
    `
    create table if not exists gateway_period_closures (
      event_id uuid primary key,
      period text not null,
      starts_at timestamptz not null,
      ends_at timestamptz not null,
      report_hash text not null,
      report json not null,
      through_commit bigint not null,
      through_prepare bigint not null,
      closed_by uuid not null,
      closed_at timestamptz not null,
      reopened_commit bigint,
      reopened_prepare bigint,
      reopened_by uuid,
      reopened_at timestamptz,
      reason text
    );
    create index if not exists gateway_period_closures_by_period on gateway_period_closures (period, closed_at);`,
    // the event-log fold's closing at the month's end, where a later fold starts (src/audit/ledger-fold-start.ts)
    `alter table gateway_period_closures add column if not exists ledger json;`,
  ],
  on: {
    async GatewayPeriodClosed(tx, { data: d, metadata }) {
      const { startsAt, endsAt } = monthBounds(d.period);
      await query(
        tx,
        'ProjectGatewayPeriodClosed',
        `insert into gateway_period_closures (event_id, period, starts_at, ends_at, report_hash, report, through_commit, through_prepare,
           closed_by, closed_at, ledger) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) on conflict do nothing`,
        [
          metadata.eventId,
          d.period,
          startsAt,
          endsAt,
          d.reportHash,
          JSON.stringify(d.report),
          d.through.commit,
          d.through.prepare,
          d.closedBy,
          d.closedAt,
          d.ledger === undefined ? null : JSON.stringify(d.ledger),
        ],
      );
    },
    async GatewayPeriodReopened(tx, { data: d, position }) {
      await query(
        tx,
        'ProjectGatewayPeriodReopened',
        `update gateway_period_closures set reopened_commit = $2, reopened_prepare = $3, reopened_by = $4, reopened_at = $5, reason = $6
         where period = $1 and reopened_at is null`,
        [d.period, String(position.commit), String(position.prepare), d.reopenedBy, d.reopenedAt, d.reason],
      );
    },
  },
});

/** A posting's effective time and log position as SQL expressions. */
export type PostingColumns = { effectiveAt: string; positionCommit: string; positionPrepare: string };

/**
 * Where a closed month sends a posting of gateway_postings (the row's columns, of the alias `table` when given): null
 * when it stays at its effective time, else 00:00 WIB of the first month after its own that was open when it was
 * recorded. A posting recorded while its month was closed (after the log position the close's report counted,
 * `through`, and before a reopening) is a prior-period item of that month, and the closed month's frozen report stays
 * as it is. Only postings from the first month ever closed on are looked at again (the first subquery runs once).
 * `closes` is the table of closes read: the ledger read model keeps its own (gateway_ledger_closes), as far as it has
 * projected, and stores the result in gateway_postings.reported_at (src/projections/gateway-ledger.ts).
 */
export function movedToSql(table?: string | PostingColumns, closes = 'gateway_period_closures'): string {
  // a row elsewhere (an event of es_events: transaction_id::text::bigint and position) names its own expressions
  const prefix = typeof table === 'string' ? `${table}.` : '';
  const of: PostingColumns =
    typeof table === 'object'
      ? table
      : {
          effectiveAt: `${prefix}effective_at`,
          positionCommit: `${prefix}position_commit`,
          positionPrepare: `${prefix}position_prepare`,
        };
  const position = `(${of.positionCommit}, ${of.positionPrepare})`;
  const effective = of.effectiveAt;
  const covering = (c: string) => `(${c}.through_commit, ${c}.through_prepare) < ${position}
      and (${c}.reopened_commit is null or ${position} < (${c}.reopened_commit, ${c}.reopened_prepare))`;
  // the month's own close first: most postings were counted by it (or their month is open), and go nowhere
  return `(case when ${effective} >= (select min(starts_at) from ${closes}) and exists (select 1 from ${closes} o
        where ${covering('o')} and o.starts_at <= ${effective} and o.ends_at > ${effective}) then (
      select min(c.ends_at) from ${closes} c
      where ${covering('c')} and c.ends_at > ${effective}
        and not exists (select 1 from ${closes} d where ${covering('d')} and d.starts_at = c.ends_at)) end)`;
}

/** A close as the placement rule reads it: its month's bounds (ms), the log position its report counts, its reopening. */
export type PlacingClosure = {
  startsAt: number;
  endsAt: number;
  through: Position;
  reopened: Position | null;
};

/**
 * movedToSql for a posting read from an event store other than PostgreSQL's (its effective time in ms and its log
 * position), over the closes read once (closuresForPlacement): the same rule, clause by clause.
 */
export function movedTo(effectiveAt: number, position: Position, closures: readonly PlacingClosure[]): number | null {
  const covering = (c: PlacingClosure) =>
    comparePositions(c.through, position) < 0 && (c.reopened === null || comparePositions(position, c.reopened) < 0);
  const open = closures.filter(covering);
  if (!open.some(o => o.startsAt <= effectiveAt && o.endsAt > effectiveAt)) return null;
  const ends = open.filter(c => c.endsAt > effectiveAt && !open.some(d => d.startsAt === c.endsAt)).map(c => c.endsAt);
  return ends.length === 0 ? null : Math.min(...ends);
}

/** Every close ever made, as the placement rule reads them (a few a year). */
export async function closuresForPlacement(db: Queryable): Promise<PlacingClosure[]> {
  const r = await query<{
    starts_at: Date;
    ends_at: Date;
    through_commit: string;
    through_prepare: string;
    reopened_commit: string | null;
    reopened_prepare: string | null;
  }>(
    db,
    'ListGatewayClosuresForPlacement',
    `select starts_at, ends_at, through_commit::text, through_prepare::text, reopened_commit::text, reopened_prepare::text
     from gateway_period_closures`,
  );
  return r.rows.map(row => ({
    startsAt: row.starts_at.getTime(),
    endsAt: row.ends_at.getTime(),
    through: { commit: BigInt(row.through_commit), prepare: BigInt(row.through_prepare) },
    reopened:
      row.reopened_commit === null
        ? null
        : { commit: BigInt(row.reopened_commit), prepare: BigInt(row.reopened_prepare!) },
  }));
}

export type ClosureRow = {
  period: string;
  reportHash: string;
  closedBy: string;
  closedAt: string;
  reopenedBy: string | null;
  reopenedAt: string | null;
  reason: string | null;
};

const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const closureColumns = `period, report_hash as "reportHash", closed_by as "closedBy", ${iso('closed_at')} as "closedAt",
  reopened_by as "reopenedBy", ${iso('reopened_at')} as "reopenedAt", reason`;

/** Every close, newest month first and, within a month, the latest close first (at most 500). */
export async function listClosures(db: Queryable): Promise<ClosureRow[]> {
  const r = await query<ClosureRow>(
    db,
    'ListGatewayPeriodClosures',
    `select ${closureColumns} from gateway_period_closures order by period desc, closed_at desc, event_id desc limit 500`,
  );
  return r.rows;
}

/** The month's close in force (not reopened) with its frozen report, or null. */
export async function findClosedPeriod(
  db: Queryable,
  period: string,
): Promise<(ClosureRow & { report: Record<string, unknown> }) | null> {
  const r = await query<ClosureRow & { report: Record<string, unknown> }>(
    db,
    'FindGatewayPeriodClosed',
    `select ${closureColumns}, report from gateway_period_closures where period = $1 and reopened_at is null
     order by closed_at desc limit 1`,
    [period],
  );
  return r.rows[0] ?? null;
}
