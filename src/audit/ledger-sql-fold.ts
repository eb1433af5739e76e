import { query, type Queryable } from '../db/pool.ts';
import { movedToSql } from '../projections/gateway-periods.ts';
import type { Position } from '../store/event-store.ts';
import type { FoldStart } from './ledger-fold-start.ts';
import type { PeriodBounds } from './ledger-periods.ts';
import {
  effectiveAtSql,
  emptyFold,
  eventColumns,
  type FoldedStream,
  type StoredLedgerEvent,
} from './ledger-stream-fold.ts';

/**
 * The event-log fold on PostgreSQL: one statement sums the postings out of the stored events for all streams at once
 * and hands back only the period's events, each entry placed as ledger-stream-fold.ts places it (effective time,
 * moved by a closed month). From a fold start (ledger-fold-start.ts) it reads the log from the start's `from` only and
 * leaves out what the start's closing counted; the sums are then what the entries after that closing add to it.
 */

/** The data fields the placement reads, all taken from the event's JSON in one parse (`->>` parses it each time). */
function dataFields(): string {
  const names = new Set<string>();
  effectiveAtSql('e', name => {
    names.add(name);
    return 'null';
  });
  return ['"postings" json', ...[...names].map(name => `"${name}" text`)].join(', ');
}

export type SqlFold = {
  folded: Map<string, FoldedStream>;
  /** the earliest log position of an entry placed at or after the period's end (null: none read) */
  firstAfter: Position | null;
};

type Row = {
  balances: { stream_id: string; account: string; open: number | null; close: number }[];
  streams: { stream_id: string; events: number }[];
  between: (StoredLedgerEvent & { stream_id: string })[];
  first_after: { commit: string; prepare: string } | null;
};

/** The streams folded to the bounds: the whole log, or from `start`, and only as far as `through` when given. */
export async function foldInDatabase(
  db: Queryable,
  streamIds: string[],
  bounds: PeriodBounds,
  start: FoldStart | null,
  through?: Position,
): Promise<SqlFold> {
  const params: unknown[] = [streamIds, bounds.startsAt, bounds.endsAt];
  const param = (value: unknown) => `$${params.push(value)}`;
  const at = (p: Position) => `(${param(String(p.commit))}::text::xid8, ${param(String(p.prepare))}::bigint)`;
  const logRange = [
    start ? `and (e.transaction_id, e.position) >= ${at(start.from)}` : '',
    through ? `and (e.transaction_id, e.position) <= ${at(through)}` : '',
  ].join(' ');
  // an entry the start's closing counted: up to its close's `through` and placed before its month's end
  const counted = start
    ? `where not ((t.transaction_id, t.position) <= ${at(start.through)} and t.at < ${param(start.endsAt)})`
    : '';
  const r = await query<Row>(
    db,
    `ReconcileFoldLedgers${start ? 'FromClose' : ''}${through ? 'Through' : ''}`,
    `with timed as materialized (
       select e.stream_id, e.revision, e.type, e.data, x.postings, e.transaction_id, e.position,
         ${effectiveAtSql('e', name => `x."${name}"`)} as effective_at
       from es_events e cross join lateral json_to_record(e.data) as x(${dataFields()})
       where e.stream_id = any($1::text[]) and x.postings is not null ${logRange}
     ), placed as materialized (
       select t.stream_id, t.revision, t.type, t.data, t.postings, t.transaction_id, t.position,
         coalesce(${movedToSql(eventColumns('t'))}, t.effective_at) as at
       from timed t
     ), ev as materialized (
       select * from placed t ${counted}
     ), lines as (
       select ev.stream_id, p->>'account' as account, (p->>'amount')::bigint as amount, ev.at
       from ev cross join lateral json_array_elements(ev.postings) p where ev.at < $3
     )
     select
       (select coalesce(json_agg(b), '[]') from (
          select stream_id, account, sum(amount) filter (where at < $2) as open, sum(amount) as close from lines group by 1, 2) b) as balances,
       (select coalesce(json_agg(c), '[]') from (select stream_id, count(*) as events from ev where at < $3 group by 1) c) as streams,
       (select coalesce(json_agg(x order by x.stream_id, x.revision), '[]') from (
          select stream_id, revision, type, data from ev where at >= $2 and at < $3) x) as between,
       (select json_build_object('commit', transaction_id::text, 'prepare', position::text) from ev
          where at >= $3 order by transaction_id, position limit 1) as first_after`,
    params,
  );
  const { balances, streams, between, first_after } = r.rows[0]!;
  const folded = new Map<string, FoldedStream>(streamIds.map(id => [id, emptyFold()]));
  for (const b of balances) {
    const f = folded.get(b.stream_id)!;
    f.open[b.account] = Number(b.open ?? 0);
    f.close[b.account] = Number(b.close);
  }
  for (const c of streams) folded.get(c.stream_id)!.events = Number(c.events);
  for (const e of between) folded.get(e.stream_id)!.between.push({ type: e.type, data: e.data });
  const firstAfter = first_after && { commit: BigInt(first_after.commit), prepare: BigInt(first_after.prepare) };
  return { folded, firstAfter };
}
