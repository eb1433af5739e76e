import { START, type AppendResult, type StreamWrite } from './event-store.ts';
import { appendedMetadata, appendedMetadataRows, metadataValues } from './postgres-event-metadata.ts';
import { storedData } from './postgres-event-shapes.ts';
import { streamIdForms } from './postgres-stream-ids.ts';
import { appendedEventColumns, lockStream } from './postgres-schema.ts';

/**
 * One append waiting for the next batch: its writes (one stream each, with exact revision or no stream, or a guard),
 * which succeed or fail together. A single-stream append is a group of one write.
 */
export type BatchedAppend = {
  writes: StreamWrite[];
  resolve: (results: AppendResult[]) => void;
  reject: (err: unknown) => void;
};

/** The last event an append wrote to a stream. */
export type AppendedRow = { stream_id: string; revision: number; position: string; transaction_id: string };

/** A write the batch refused: the stream's revision and tombstone as the batch saw them. */
export type RefusedRow = { stream_id: string; grp: number; actual: number | null; deleted: boolean | null };

/**
 * Many appends (groups of writes to distinct streams) in one statement (group commit). The written streams are locked
 * (their stream locks, then their rows), then each group is checked as a whole: a group whose every write finds its
 * stream at the expected revision (or absent, for 'no_stream'; guards are read without a lock) claims its streams' next
 * revisions and writes its events; the other groups write nothing and come back as refused rows, one per refused
 * write. A short-lived stream has no row: its revision is its last event's, and a new one gets no row. A new stream
 * created concurrently, a short-lived stream written concurrently by another process, a duplicate event id or a
 * deadlock fails the whole statement: the caller then appends each group on its own.
 */
export const appendBatchSql = `
  with input as (
    select * from unnest($1::text[], $2::bigint[], $3::int[], $4::int[], $12::bool[], $13::text[])
      with ordinality as i(stream_id, expected, n, grp, short_lived, legacy, idx)
  ),
  -- the written streams' locks first, in key order, while the transaction has no id yet (lockStream); every step that
  -- writes or locks a row comes after locked, which waits for them
  stream_locks as materialized (
    select count(*) as taken from (
      select ${lockStream('l.stream_id')} from (select distinct stream_id, hashtext(stream_id) from input where n > 0 order by 2) l
    ) t
  ),
  -- a stream's row may be under its id in rows written before short ids (legacy, postgres-stream-ids.ts)
  locked as (
    select s.stream_id, s.revision, s.deleted from es_streams s
    where s.stream_id in (select stream_id from input where n > 0 union all select legacy from input where n > 0)
      and (select taken from stream_locks) >= 0
    for update
  ),
  guarded as (
    select s.stream_id, s.revision, s.deleted from es_streams s
    where s.stream_id in (select stream_id from input where n = 0 union all select legacy from input where n = 0)
  ),
  -- both forms have a row only when the stream is deleted (deleteStream)
  rows_found as (
    select i.idx, coalesce(l.stream_id, g.stream_id, ll.stream_id, lg.stream_id) as row_id,
      greatest(l.revision, g.revision, ll.revision, lg.revision) as revision,
      coalesce(l.deleted, g.deleted, false) or coalesce(ll.deleted, lg.deleted, false) as deleted
    from input i
    left join locked l on l.stream_id = i.stream_id and i.n > 0
    left join guarded g on g.stream_id = i.stream_id and i.n = 0
    left join locked ll on ll.stream_id = i.legacy and i.n > 0
    left join guarded lg on lg.stream_id = i.legacy and i.n = 0
  ),
  -- a stream without a row (a short-lived one) is at its last event's revision as this statement's snapshot sees it:
  -- one written since (committed while this statement waited for its lock) makes the insert fail on
  -- es_events_stream_revision, and each group is appended on its own, where the claim sees it (es_claim_revisions)
  checked as (
    select i.*, r.row_id, r.row_id is not null as has_row, r.deleted, coalesce(r.revision, t.revision) as actual
    from input i
    join rows_found r on r.idx = i.idx
    left join lateral (select greatest((select max(e.revision) from es_events e where e.stream_id = i.stream_id),
                                       (select max(e.revision) from es_events e where e.stream_id = i.legacy)) as revision
                       where r.row_id is null) t on true
  ),
  judged as (
    select c.*, not c.deleted and case when c.expected = -1 then not c.has_row and c.actual is null
                                       else c.actual is not distinct from c.expected end as ok
    from checked c
  ),
  accepted as (
    select * from judged where n > 0 and grp in (select grp from judged group by grp having bool_and(ok))
  ),
  bumped as (
    update es_streams s set revision = s.revision + a.n
    from accepted a
    where a.has_row and s.stream_id = a.row_id and s.revision = a.expected
    returning a.idx, s.revision
  ),
  -- a new stream's revision is known before it is inserted, so nothing joins back to the inserted rows (that join ran
  -- as a nested loop, quadratic in the batch, as the planner cannot estimate a CTE's rows); PostgreSQL runs a
  -- data-modifying WITH to the end whether or not it is read, and a stream created meanwhile fails the statement
  fresh as (
    insert into es_streams (stream_id, revision)
    select stream_id, n - 1 from accepted where expected = -1 and not short_lived
  ),
  claimed as (
    select idx, revision from bumped
    union all
    select idx, expected + n from accepted where not has_row
  ),
  inserted as (
    insert into es_events (${appendedEventColumns.join(', ')})
    select a.stream_id, c.revision - a.n + e.ord, e.event_id, e.type, e.version, e.data, ${metadataValues('e')}
    from (
      select e.*, d.value as data, ${metadataValues('m')}
      from unnest($5::int[], $6::int[], $7::uuid[], $8::text[], $9::int[]) with ordinality as e(idx, ord, event_id, type, version, k)
      join json_array_elements($10::json) with ordinality as d(value, k) on d.k = e.k
      join ${appendedMetadataRows('$11')} on m.k = e.k
    ) e
    join claimed c on c.idx = e.idx
    join accepted a on a.idx = e.idx
    returning stream_id, revision, position, transaction_id
  )
  select stream_id, revision, position::text as position, transaction_id::text as transaction_id,
         null::int as grp, null::bigint as actual, null::boolean as deleted
  from inserted
  union all
  select stream_id, null, null, null, grp, actual, deleted from judged where not ok`;

const escaped = /["\\]/;

/**
 * A flat array of strings, numbers and nulls as the PostgreSQL array literal node-postgres makes of it (each element
 * quoted, backslashes and quotes escaped, a null as NULL): the same text, made in one pass, where node-postgres escapes
 * each element with two regular expressions and joins them one concatenation at a time.
 */
export function arrayLiteral(values: readonly (string | number | null)[]): string {
  let literal = '{';
  for (let i = 0; i < values.length; i++) {
    const value = values[i] as string | number | null;
    if (i > 0) literal += ',';
    if (value === null) {
      literal += 'NULL';
      continue;
    }
    const text = String(value);
    literal += `"${escaped.test(text) ? text.replace(/["\\]/g, '\\$&') : text}"`;
  }
  return `${literal}}`;
}

/**
 * The parameters of appendBatchSql: one row per write (groups numbered from 1), one per event (writes from 1), each
 * array as its literal (arrayLiteral); each stream by the id it is kept under, and the one rows written before hold
 * (streamIdForms). The events' data and metadata go as two JSON arrays: one JSON text each, split
 * once by PostgreSQL, instead of arrays of JSON texts that would be escaped again as array literals here and unescaped
 * there; each event's data and metadata in the form it is stored in (storedData: a shape's values or the data;
 * appendedMetadata: the typed columns or the JSON).
 */
export function appendBatchParams(batch: { writes: StreamWrite[] }[]): unknown[] {
  const streams: string[] = [];
  const legacies: (string | null)[] = [];
  const expected: number[] = [];
  const counts: number[] = [];
  const groups: number[] = [];
  const shortLived: string[] = [];
  const idx: number[] = [];
  const ord: number[] = [];
  const ids: string[] = [];
  const types: string[] = [];
  const versions: number[] = [];
  const data: unknown[] = [];
  const metadata: unknown[] = [];
  batch.forEach((append, g) =>
    append.writes.forEach(write => {
      const { stored, legacy } = streamIdForms(write.streamId);
      streams.push(stored);
      legacies.push(legacy);
      expected.push(write.expected === 'no_stream' ? -1 : write.expected);
      counts.push(write.events.length);
      groups.push(g + 1);
      shortLived.push(write.shortLived === true ? 'true' : 'false');
      write.events.forEach((e, j) => {
        idx.push(streams.length);
        ord.push(j + 1);
        ids.push(e.metadata.eventId);
        types.push(e.type);
        versions.push(e.version);
        data.push(storedData(e, write.streamId));
        metadata.push(appendedMetadata(e.metadata));
      });
    }),
  );
  return [
    ...[streams, expected, counts, groups, idx, ord, ids, types, versions].map(arrayLiteral),
    JSON.stringify(data),
    JSON.stringify(metadata),
    arrayLiteral(shortLived),
    arrayLiteral(legacies),
  ];
}

/** The last row each stream got. */
export function lastRowPerStream(rows: AppendedRow[]): Map<string, AppendedRow> {
  const last = new Map<string, AppendedRow>();
  for (const row of rows) {
    const seen = last.get(row.stream_id);
    if (!seen || row.revision > seen.revision) last.set(row.stream_id, row);
  }
  return last;
}

/** Appends written in one statement at most (a bound on its size; more wait for the next batch). */
const maxBatch = 200;
/**
 * Appends that make a batch worth sending before the end of the event loop's turn (a statement's fixed cost is then a
 * small part of it). A busy turn takes dozens of requests; waiting for its end left PostgreSQL idle meanwhile (sending
 * at 16: +8 % payments/s at 32 connections, median of 16 alternating rounds; at 8 the extra statements ate the gain).
 */
const sendAtOnce = 16;
/**
 * Batches written at once. One: the appends that arrive while a batch is written make the next one. Under a steady
 * load below saturation, several batches in flight each carried a few appends, and their concurrent statements cost
 * PostgreSQL more per payment (at 1,200 payments/s sent at a steady pace: 480 µs with one in flight, 750 µs with four;
 * 14 % more payments done, and p50/p99 at 800/s 14/52 ms instead of 25/109 ms); saturated at 32 connections, one did
 * as well as four (+4 %, median of 8 alternating rounds).
 */
const maxBatchesInFlight = 1;

export const resultOf = (row: AppendedRow): AppendResult => ({
  nextRevision: row.revision,
  position: { commit: BigInt(row.transaction_id), prepare: BigInt(row.position) },
});

/** What the batcher needs of the store: a statement runner and the one-at-a-time paths it falls back to. */
type BatchWriter = {
  run(params: unknown[]): Promise<(AppendedRow & RefusedRow)[]>;
  /** Appends one group on its own (after the batch statement failed), with the precise refusal. */
  appendAlone(writes: StreamWrite[]): Promise<AppendResult[]>;
  /** The group's results when it was appended before (an idempotent retry), else null. */
  appendedBefore(writes: StreamWrite[]): Promise<AppendResult[] | null>;
  refusal(write: StreamWrite, refused: RefusedRow): Error;
  written(): void;
};

/**
 * Appends of concurrent commands go to PostgreSQL together, one statement per batch (group commit), up to
 * maxBatchesInFlight batches at once; each append still succeeds or is refused on its own. A stream is written by one
 * append at a time: another append to it waits for a later batch (it was decided on the same revision and would be
 * refused anyway), so batches in flight together never lock the same stream and cannot deadlock on each other.
 */
export class AppendBatcher {
  private queued: BatchedAppend[] = [];
  private running = 0;
  private scheduled = false;
  private readonly streamsBeingWritten = new Set<string>();

  constructor(private readonly writer: BatchWriter) {}

  submit(writes: StreamWrite[]): Promise<AppendResult[]> {
    return new Promise((resolve, reject) => {
      this.queued.push({ writes, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    // a batch big enough to be worth its statement goes now: PostgreSQL writes it while this turn of the event loop
    // goes on taking requests, which the next batch collects at its end (tried once per filling, so that appends
    // waiting for their stream are not scanned again at every submit)
    if (this.queued.length === sendAtOnce && this.running < maxBatchesInFlight) {
      void this.writeBatch();
      return;
    }
    if (this.running >= maxBatchesInFlight || this.scheduled || this.queued.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.writeBatch();
    });
  }

  private async writeBatch(): Promise<void> {
    if (this.running >= maxBatchesInFlight || this.queued.length === 0) return;
    const batch: BatchedAppend[] = [];
    const later: BatchedAppend[] = [];
    for (const append of this.queued) {
      const streams = append.writes.filter(w => w.events.length > 0).map(w => w.streamId);
      if (batch.length >= maxBatch || streams.some(s => this.streamsBeingWritten.has(s))) later.push(append);
      else {
        for (const s of streams) this.streamsBeingWritten.add(s);
        batch.push(append);
      }
    }
    this.queued = later;
    if (batch.length === 0) return;
    this.running++;
    try {
      if (batch.length === 1) return await this.alone(batch[0]!);
      let rows: (AppendedRow & RefusedRow)[];
      try {
        rows = await this.writer.run(appendBatchParams(batch));
      } catch {
        // a stream created meanwhile, a duplicate event id or a deadlock fails the whole statement: each on its own
        await Promise.all(batch.map(a => this.alone(a)));
        return;
      }
      const last = lastRowPerStream(rows.filter(r => r.grp === null));
      if (last.size > 0) this.writer.written();
      const position = [...last.values()][0];
      const refusedByGroup = new Map<number, RefusedRow[]>();
      for (const r of rows) if (r.grp !== null) refusedByGroup.set(r.grp, (refusedByGroup.get(r.grp) ?? []).concat(r));
      await Promise.all(batch.map((append, g) => this.settle(append, refusedByGroup.get(g + 1) ?? [], last, position)));
    } finally {
      for (const append of batch) for (const w of append.writes) this.streamsBeingWritten.delete(w.streamId);
      this.running--;
      this.schedule();
    }
  }

  private alone(append: BatchedAppend): Promise<void> {
    return this.writer.appendAlone(append.writes).then(append.resolve, append.reject);
  }

  /** Answers one append of the batch: its results, or the refusal of its first refused write (unless it was a retry). */
  private async settle(
    append: BatchedAppend,
    refused: RefusedRow[],
    last: Map<string, AppendedRow>,
    any: AppendedRow | undefined,
  ) {
    try {
      if (refused.length === 0) {
        const own = append.writes.map(w => last.get(w.streamId)).find(r => r !== undefined) ?? any;
        const position = own ? resultOf(own).position : START;
        append.resolve(
          append.writes.map(w =>
            w.events.length > 0 ? resultOf(last.get(w.streamId)!) : { nextRevision: w.expected as number, position },
          ),
        );
        return;
      }
      const done = await this.writer.appendedBefore(append.writes);
      if (done) return append.resolve(done);
      const first = append.writes.find(w => refused.some(r => r.stream_id === w.streamId))!;
      append.reject(
        this.writer.refusal(
          first,
          refused.find(r => r.stream_id === first.streamId)!,
        ),
      );
    } catch (err) {
      append.reject(err);
    }
  }
}
