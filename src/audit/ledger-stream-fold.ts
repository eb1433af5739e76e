import { effectiveAt, type PostingEvent } from '../domain/ledger-time.ts';
import type { Posting } from '../events/gateway.ts';
import { movedTo, type PlacingClosure, type PostingColumns } from '../projections/gateway-periods.ts';
import { comparePositions, type EventStore, type Position } from '../store/event-store.ts';
import { placement, type PeriodBounds } from './ledger-periods.ts';
import { streamEvents } from './stream-pages.ts';
import { occurredAtOfSql } from '../store/postgres-event-metadata.ts';

/**
 * A ledger stream folded to a period's bounds by the effective time of its entries (src/domain/ledger-time.ts), placed
 * as every report places them (ledger-periods.ts), a closed month's late entries sent to the next open one: the
 * accounts' balances at the start (opening) and at the end (closing), and the entries between. Every event recorded so
 * far is read: an entry recorded after the period may take effect in it (a payment paid at 23:59 and seen after
 * midnight).
 */

/** An event as stored: its postings are trusted (checked when it was appended). */
export type StoredLedgerEvent = { type: string; data: { postings?: Posting[] } & Record<string, unknown> };
export type FoldedStream = {
  open: Record<string, number>;
  close: Record<string, number>;
  /** entries placed before the period's end (0: no ledger yet then) */
  events: number;
  between: StoredLedgerEvent[];
  /** the earliest log position of an entry placed at or after the period's end (absent: none, or none known) */
  firstAfter?: Position;
};

export const emptyFold = (): FoldedStream => ({ open: {}, close: {}, events: 0, between: [] });

/** The effective time of a stored entry; an event the rule does not know takes effect when it was recorded. */
function entryTime(e: ReadLedgerEvent): string {
  const at: unknown = effectiveAt(e as unknown as PostingEvent);
  if (typeof at === 'string') return at;
  // an entry dated by itself (a holding account's opening, an admin's correcting entry) where it says
  return typeof e.data.effectiveAt === 'string' ? e.data.effectiveAt : e.recordedAt;
}

/** An event as read back: when it was recorded and where in the log (placed by the closed months when given). */
export type ReadLedgerEvent = StoredLedgerEvent & { recordedAt: string; position?: Position };

/** A stream's events (in stream order) folded to the bounds, with the closes made so far (none: by effective time). */
export function foldByEffectiveTime(
  events: readonly ReadLedgerEvent[],
  bounds: PeriodBounds,
  closures: readonly PlacingClosure[] = [],
): FoldedStream {
  const folded = emptyFold();
  for (const e of events) {
    if (!Array.isArray(e.data.postings)) continue;
    const effectiveAt = entryTime(e);
    const moved = e.position ? movedTo(Date.parse(effectiveAt), e.position, closures) : null;
    const place = placement({ effectiveAt, recordedAt: e.recordedAt, movedTo: moved }, bounds);
    if (place === 'after') {
      if (e.position && (!folded.firstAfter || comparePositions(e.position, folded.firstAfter) < 0))
        folded.firstAfter = e.position;
      continue;
    }
    folded.events++;
    if (place === 'in') folded.between.push({ type: e.type, data: e.data });
    for (const p of e.data.postings) {
      if (place === 'before') folded.open[p.account] = (folded.open[p.account] ?? 0) + p.amount;
      folded.close[p.account] = (folded.close[p.account] ?? 0) + p.amount;
    }
  }
  return folded;
}

/** One stream read whole from the store (only as far as `through` when given) and folded (another event store). */
export async function foldStreamByEffectiveTime(
  store: EventStore,
  streamId: string,
  bounds: PeriodBounds,
  closures: readonly PlacingClosure[],
  through?: Position,
): Promise<FoldedStream> {
  const events: ReadLedgerEvent[] = [];
  for await (const recorded of streamEvents(store, streamId))
    if (!through || comparePositions(recorded.position, through) <= 0)
      events.push({
        type: recorded.type,
        data: recorded.data as StoredLedgerEvent['data'],
        recordedAt: recorded.metadata.occurredAt,
        position: recorded.position,
      });
  return foldByEffectiveTime(events, bounds, closures);
}

/**
 * `effectiveAt` over a row `e` of es_events, as SQL (the fold on PostgreSQL sums in the database): the same rule,
 * field by field; `field` reads a top-level field of the event's data as text (by default with `->>`, which parses the
 * data once a field: the fold reads them all in one parse, effectiveAtFields).
 */
export const effectiveAtSql = (e: string, field = (name: string) => `${e}.data->>'${name}'`) => `(case ${e}.type
    when 'GatewayPaymentCredited' then coalesce(${field('paidAt')}, ${field('completedAt')})
    when 'BalanceSettled' then ${field('cutoff')}
    when 'WithdrawalPaid' then coalesce(${field('transferredAt')}, ${field('paidAt')})
    when 'WithdrawalRequested' then ${field('requestedAt')}
    when 'WithdrawalRejected' then ${field('rejectedAt')}
    when 'GatewaySuspenseAllocated' then ${field('allocatedAt')}
    when 'SuspenseCreditReceived' then ${field('receivedAt')}
    when 'SuspenseCreditRefunded' then ${field('refundedAt')}
    when 'HoldingTransferRecorded' then coalesce(${field('transferredAt')}, ${field('recordedAt')})
    when 'HoldingTransferCreditReleased' then ${field('releasedAt')}
    -- an entry dated by itself (a holding account's opening, an admin's correcting entry) where it says
    else coalesce(${field('effectiveAt')}, ${occurredAtOfSql(e)}) end)::timestamptz`;

/** A row `t` of es_events (or of a selection keeping its log columns) as movedToSql reads a posting, by `effective_at`. */
export const eventColumns = (t: string): PostingColumns => ({
  effectiveAt: `${t}.effective_at`,
  positionCommit: `${t}.transaction_id::text::bigint`,
  positionPrepare: `${t}.position`,
});
