import { wibDate } from '../domain/working-days.ts';
import { preparedQuery, type Queryable } from '../db/pool.ts';
import { comparePositions, type EventStore, type Position, type RecordedEvent } from '../store/event-store.ts';
import { metadataColumnsSql, metadataOfRow } from '../store/postgres-event-metadata.ts';
import { dataOfStored } from '../store/postgres-event-shapes.ts';
import { longIds } from '../store/postgres-stream-ids.ts';
import { positionText } from '../store/subscriber.ts';
import { committed, committingKeys } from './ledger-format.ts';
import { canonicalJson, leafBytes } from './merkle.ts';

/** Consecutive events of the log recorded on one WIB date: how many, and the position of the last. */
export type LeafRun = { recordedOn: string; count: number; lastPosition: string };

/**
 * What the audit takes in of a page: its events' leaf hashes (32 bytes each, in log order) for the chain (v2, `hashes`)
 * and for the daily digests (v1, `digestHashes`), each empty when not asked for, in runs of one WIB date.
 */
export type PageLeaves = { hashes: Uint8Array; digestHashes: Uint8Array; runs: LeafRun[] };

/** Counts an event recorded on `on` at `position` into the runs of one WIB date it follows. */
export function addToRuns(runs: LeafRun[], on: string, position: string): void {
  const run = runs.at(-1);
  if (run?.recordedOn === on) {
    run.count++;
    run.lastPosition = position;
  } else runs.push({ recordedOn: on, count: 1, lastPosition: position });
}

/** Which leaves a page is hashed for: the chain's, the digests' or both (one reads the log alone to catch up with the other). */
export type LeafKinds = { chain: boolean; digests: boolean };

export const bothLeaves: LeafKinds = { chain: true, digests: true };

/**
 * Where the audit's next reads of the log begin and end, and which leaves they need: the chain and the digests read
 * together from where both stand. A database from before they shared a pass may have one ahead of the other: the one
 * behind then reads alone up to the other's position first, so neither skips an event nor counts one twice.
 */
export function auditRead(
  chain: Position,
  digests: Position,
): { after: Position; upTo: Position | null; kinds: LeafKinds } {
  const order = comparePositions(chain, digests);
  if (order === 0) return { after: chain, upTo: null, kinds: bothLeaves };
  return order < 0
    ? { after: chain, upTo: digests, kinds: { chain: true, digests: false } }
    : { after: digests, upTo: chain, kinds: { chain: false, digests: true } };
}

/**
 * A page of the whole log as one JSON text: an array of `[streamId, revision, type, version, data, metadata, position,
 * eventId, correlation, causation, actor, occurred]` per event in log order, data and metadata as stored (metadata
 * without the eventId of its column, for events appended since es_events keeps it once; null, and the typed columns
 * after eventId set, for events appended since it keeps them: postgres-event-metadata.ts); with how many events it
 * holds and the last one's position.
 */
export type LogPage = { text: string; count: number; last: Position | null };

type PageEntry = [
  // as es_events keeps it (postgres-stream-ids.ts)
  streamId: string,
  revision: number,
  type: string,
  version: number,
  // as es_events stores it: the data, or its shape's values (postgres-event-shapes.ts)
  data: unknown,
  stored: Record<string, unknown> | null,
  position: string,
  eventId: string,
  // the typed columns, null when the metadata is stored as JSON (absent from a page of another store)
  correlation?: string | null,
  causation?: string | null,
  actor?: string | null,
  occurred?: string | null,
];

/** Keys whose presence anywhere in an event's data may make its committed form differ (ledger-format.ts `committed`). */
const maybeCommitted = committingKeys.map(k => `${JSON.stringify(k)}:`);

/**
 * An event's two leaves at once, the same bytes as each alone: the digests' (v1, digest-days.ts `eventLeaf`) and the
 * chain's (v2, ledger-format.ts `eventLeafV2`). They differ only in the data, and only where a secret is committed: the
 * canonical text of the rest is made once, and the data's committed form only when a key it commits appears in it.
 */
export function eventLeaves(
  e: Pick<RecordedEvent, 'streamId' | 'revision' | 'type' | 'version' | 'data' | 'metadata'>,
): {
  v1: string;
  v2: string;
} {
  // the keys in canonical order: data, metadata, revision, streamId, type, version (data parsed from JSON: no undefined in it)
  const rest = canonicalJson({
    metadata: e.metadata,
    revision: e.revision,
    streamId: e.streamId,
    type: e.type,
    version: e.version,
  });
  if (e.data === undefined) return { v1: rest, v2: rest };
  const data = canonicalJson(e.data);
  const committedData = maybeCommitted.some(key => data.includes(key)) ? canonicalJson(committed(e.data)) : data;
  const withData = (d: string) => (rest === '{}' ? `{"data":${d}}` : `{"data":${d},${rest.slice(1)}`);
  return { v1: withData(data), v2: withData(committedData) };
}

/**
 * The leaves of a page's events (v2 for the chain, v1 for the digests, as asked), parsed and hashed where this runs
 * (the hashing thread for a large page).
 */
export function pageLeaves(text: string, kinds: LeafKinds = bothLeaves): PageLeaves {
  const entries = JSON.parse(text) as PageEntry[];
  const hashes = new Uint8Array(kinds.chain ? 32 * entries.length : 0);
  const digestHashes = new Uint8Array(kinds.digests ? 32 * entries.length : 0);
  const runs: LeafRun[] = [];
  entries.forEach((entry, i) => {
    const [keptAs, revision, type, version, data, stored, position, eventId, correlation, causation, actor, at] = entry;
    const streamId = longIds(keptAs);
    const metadata = metadataOfRow(eventId, stored, correlation ?? null, causation ?? null, actor ?? null, at ?? null);
    const leaves = eventLeaves({
      streamId,
      revision,
      type,
      version,
      data: dataOfStored(data, streamId, () => metadata.occurredAt),
      metadata,
    });
    if (kinds.chain) hashes.set(leafBytes(leaves.v2), 32 * i);
    if (kinds.digests) digestHashes.set(leafBytes(leaves.v1), 32 * i);
    addToRuns(runs, wibDate(new Date(metadata.occurredAt)), position);
  });
  return { hashes, digestHashes, runs };
}

/**
 * The whole log after `after` as the chain reads it, at most `maxCount` events and none past `upTo` when given:
 * deleted streams' events included, only final ones (below every running transaction, as readers of "all" stop), in the
 * order of "all". On PostgreSQL the page comes as one JSON text built by the server, each event's data and metadata in
 * it as stored: the event loop receives one value, and the page is parsed once, where it is hashed. Another store's
 * events are written back to JSON text.
 */
export async function readLogPage(
  deps: { store: EventStore; pool: Queryable },
  after: Position,
  maxCount: number,
  upTo: Position | null = null,
): Promise<LogPage> {
  if (deps.store.kind !== 'postgres') {
    // the whole log as the adapter reads it, deleted streams' events included
    const read = await deps.store.readLog(after, maxCount);
    const events = upTo ? read.filter(e => comparePositions(e.position, upTo) <= 0) : read;
    return {
      text: JSON.stringify(
        events.map(e => [
          e.streamId,
          e.revision,
          e.type,
          e.version,
          e.data,
          e.metadata,
          positionText(e.position),
          e.metadata.eventId,
        ]),
      ),
      count: events.length,
      last: events.at(-1)?.position ?? null,
    };
  }
  const xid = (p: Position) => String(p.commit < 0n ? 0n : p.commit);
  const r = await preparedQuery<{ page: string | null; count: number; last: string | null }>(
    deps.pool,
    upTo ? 'ReadLogPageUpTo' : 'ReadLogPage',
    `with page as (
       select transaction_id, position, stream_id, revision, event_id, type, version, data, ${metadataColumnsSql('es_events')} from es_events
        where (transaction_id, position) > ($1::text::xid8, $2::bigint)
          and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
          ${upTo ? 'and (transaction_id, position) <= ($4::text::xid8, $5::bigint)' : ''}
        order by transaction_id, position limit $3
     )
     select json_agg(json_build_array(stream_id, revision, type, version, data, metadata, transaction_id::text || '/' || position::text, event_id,
                                      correlation, causation, actor, occurred)
                     order by transaction_id, position)::text as page,
            count(*)::int as count,
            (select transaction_id::text || '/' || position::text from page order by transaction_id desc, position desc limit 1) as last
       from page`,
    [xid(after), String(after.prepare), maxCount, ...(upTo ? [xid(upTo), String(upTo.prepare)] : [])],
  );
  const { page, count, last } = r.rows[0]!;
  const [commit, prepare] = last?.split('/') ?? [];
  return { text: page ?? '[]', count, last: last ? { commit: BigInt(commit!), prepare: BigInt(prepare!) } : null };
}
