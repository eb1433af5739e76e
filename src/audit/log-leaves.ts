import { wibDate } from '../domain/working-days.ts';
import { preparedQuery, type Queryable } from '../db/pool.ts';
import type { EventMetadata, EventStore, Position, RecordedEvent } from '../store/event-store.ts';
import { positionText } from '../store/subscriber.ts';
import { eventLeafV2 } from './ledger-format.ts';
import { leafBytes } from './merkle.ts';

/** Consecutive events of the log recorded on one WIB date: how many, and the position of the last. */
export type LeafRun = { recordedOn: string; count: number; lastPosition: string };

/** What the chain takes in of a page: its events' leaf hashes (v2; 32 bytes each, in log order), in runs of one WIB date. */
export type PageLeaves = { hashes: Uint8Array; runs: LeafRun[] };

/**
 * A page of the whole log as one JSON text: an array of `[streamId, revision, type, version, data, metadata, position]`
 * per event in log order, data and metadata as stored; with how many events it holds and the last one's position.
 */
export type LogPage = { text: string; count: number; last: Position | null };

type PageEntry = [
  streamId: string,
  revision: number,
  type: string,
  version: number,
  data: Record<string, unknown>,
  metadata: EventMetadata,
  position: string,
];

/**
 * The leaves (v2) of a page's events, parsed and hashed where this runs (the hashing thread for a large page).
 */
export function pageLeaves(text: string): PageLeaves {
  const entries = JSON.parse(text) as PageEntry[];
  const hashes = new Uint8Array(32 * entries.length);
  const runs: LeafRun[] = [];
  entries.forEach(([streamId, revision, type, version, data, metadata, position], i) => {
    hashes.set(leafBytes(eventLeafV2({ streamId, revision, type, version, data, metadata } as RecordedEvent)), 32 * i);
    const on = wibDate(new Date(metadata.occurredAt));
    const run = runs.at(-1);
    if (run?.recordedOn === on) {
      run.count++;
      run.lastPosition = position;
    } else runs.push({ recordedOn: on, count: 1, lastPosition: position });
  });
  return { hashes, runs };
}

/**
 * The whole log after `after` as the chain reads it, at most `maxCount` events: deleted streams' events included, only
 * final ones (below every running transaction, as readers of "all" stop), in the order of "all". On PostgreSQL the page
 * comes as one JSON text built by the server, each event's data and metadata in it as stored: the event loop receives
 * one value, and the page is parsed once, where it is hashed. Another store's events are written back to JSON text.
 */
export async function readLogPage(
  deps: { store: EventStore; pool: Queryable },
  after: Position,
  maxCount: number,
): Promise<LogPage> {
  if (deps.store.kind !== 'postgres') {
    // the whole log where the adapter reads it (deleted streams' events included), else "all"
    const store = deps.store as EventStore & {
      readLog?: (after: Position, maxCount: number) => Promise<RecordedEvent[]>;
    };
    const events = await (store.readLog ? store.readLog(after, maxCount) : store.readAll(after, maxCount));
    return {
      text: JSON.stringify(
        events.map(e => [e.streamId, e.revision, e.type, e.version, e.data, e.metadata, positionText(e.position)]),
      ),
      count: events.length,
      last: events.at(-1)?.position ?? null,
    };
  }
  const r = await preparedQuery<{ page: string | null; count: number; last: string | null }>(
    deps.pool,
    'ReadLogPage',
    `with page as (
       select transaction_id, position, stream_id, revision, type, version, data, metadata from es_events
        where (transaction_id, position) > ($1::text::xid8, $2::bigint)
          and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
        order by transaction_id, position limit $3
     )
     select json_agg(json_build_array(stream_id, revision, type, version, data, metadata, transaction_id::text || '/' || position::text)
                     order by transaction_id, position)::text as page,
            count(*)::int as count,
            (select transaction_id::text || '/' || position::text from page order by transaction_id desc, position desc limit 1) as last
       from page`,
    [String(after.commit < 0n ? 0n : after.commit), String(after.prepare), maxCount],
  );
  const { page, count, last } = r.rows[0]!;
  const [commit, prepare] = last?.split('/') ?? [];
  return { text: page ?? '[]', count, last: last ? { commit: BigInt(commit!), prepare: BigInt(prepare!) } : null };
}
