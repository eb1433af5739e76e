import type pg from 'pg';
import { isUniqueViolation, preparedQuery } from '../db/pool.ts';
import {
  DuplicateEventId,
  START,
  StreamDeleted,
  WrongExpectedRevision,
  type AppendResult,
  expectationMet,
  type ExpectedRevision,
  type NewEvent,
  type Position,
  type StreamWrite,
} from './event-store.ts';
import { appendedMetadata, appendedMetadataRows, metadataValues } from './postgres-event-metadata.ts';
import { storedData } from './postgres-event-shapes.ts';
import { longIds, streamIdForms } from './postgres-stream-ids.ts';
import { appendedEventColumns, lockStream } from './postgres-schema.ts';
import {
  AppendBatcher,
  appendBatchParams,
  appendBatchSql,
  lastRowPerStream,
  resultOf,
  type AppendedRow,
  type RefusedRow,
} from './postgres-append-batch.ts';

/** An expected revision as appendSql takes it: the revision, or a code for the other expectations. */
const expectationCode = (expected: ExpectedRevision): number =>
  expected === 'no_stream' ? -1 : expected === 'any' ? -2 : expected === 'stream_exists' ? -3 : expected;

/**
 * One stream's append ($1 stream as kept, $2 how many events, $3 expectationCode, $4 short-lived, and after the
 * events its id in rows written before, streamIdForms): its revisions claimed by es_claim_revisions once the stream's
 * lock is taken (`stream_lock`, see lockStream), before the transaction has an id; nothing is written when the claim is
 * refused.
 */
function appendSql(firstParam: number): string {
  const p = (i: number) => `$${firstParam + i}`;
  return `with stream_lock as materialized (select count(*) = 1 as taken from (select ${lockStream('$1::text')}) l),
    claimed as materialized (select es_claim_revisions($1, ${p(5)}, $3, $2, $4) as revision from stream_lock where taken)
    insert into es_events (${appendedEventColumns.join(', ')})
    select $1, claimed.revision - $2 + e.ord, e.event_id, e.type, e.version, d.value, ${metadataValues('m')}
    from claimed, unnest(${p(0)}::uuid[], ${p(1)}::text[], ${p(2)}::int[]) with ordinality as e(event_id, type, version, ord)
    join json_array_elements(${p(3)}::json) with ordinality as d(value, k) on d.k = e.ord
    join ${appendedMetadataRows(p(4))} on m.k = e.ord
    where claimed.revision is not null
    returning stream_id, revision, position::text, transaction_id::text`;
}

type FoundEvent = {
  event_id: string;
  stream_id: string;
  revision: number;
  position: string;
  transaction_id: string;
  deleted: boolean;
};
type Write = { streamId: string; events: NewEvent[]; expected: ExpectedRevision };

/** A row PostgreSQL answered, given the stream id it was appended with (longIds) in place of the one it is kept under. */
function logicalRow<R extends { stream_id: string }>(row: R): R {
  row.stream_id = longIds(row.stream_id);
  return row;
}

/** The results of writes whose events were all found where these writes put them (a retry of a done append), else null. */
function sameAppend(writes: Write[], found: Map<string, FoundEvent>): AppendResult[] | null {
  if (found.size === 0) return null;
  const results: AppendResult[] = [];
  for (const w of writes) {
    const rows = w.events.map(e => found.get(e.metadata.eventId));
    const first = rows[0];
    if (!first) {
      if (w.events.length > 0) return null;
      results.push({ nextRevision: w.expected as number, position: START }); // a guard
      continue;
    }
    // a deleted stream's events are still in the log, but a retry to it is refused as before (StreamDeleted)
    if (
      !rows.every(
        (r, i) => r !== undefined && !r.deleted && r.stream_id === w.streamId && r.revision === first.revision + i,
      )
    )
      return null;
    results.push(resultOf(rows[rows.length - 1]!));
  }
  return results;
}

/** The first of these writes' event ids that the store holds elsewhere. */
const duplicateOf = (writes: Write[], found: Map<string, FoundEvent>) =>
  new DuplicateEventId(
    writes.flatMap(w => w.events.map(e => e.metadata.eventId)).find(id => found.has(id)) ??
      writes[0]!.events[0]!.metadata.eventId,
  );

/**
 * The write side of the PostgreSQL event store: exact-revision and no-stream appends, single or to several streams,
 * go in group-commit batches (AppendBatcher); 'any' and 'stream_exists' appends, and whatever a failed batch sends
 * back, go alone. A refusal is explained precisely: an idempotent retry answers the original result.
 */
export class PostgresAppends {
  private readonly batcher = new AppendBatcher({
    run: async params =>
      (await preparedQuery<AppendedRow & RefusedRow>(this.pool, 'AppendEventsBatch', appendBatchSql, params)).rows.map(
        logicalRow,
      ),
    appendAlone: writes => this.appendAlone(writes),
    appendedBefore: writes => this.appendedBefore(writes),
    refusal: (write, refused) =>
      refused.deleted
        ? new StreamDeleted(write.streamId)
        : new WrongExpectedRevision(write.streamId, write.expected, refused.actual ?? 'no_stream'),
    written: () => this.store.written(),
  });

  constructor(
    private readonly pool: pg.Pool,
    private readonly store: { written(): void; headPosition(): Promise<Position> },
  ) {}

  /** Exact revision and 'no_stream' appends go to PostgreSQL in batches (AppendBatcher); 'any' and 'stream_exists' alone. */
  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) return this.currentRevision(streamId, expected);
    if (expected === 'any' || expected === 'stream_exists') return this.appendOne(streamId, events, expected);
    return (await this.batcher.submit([{ streamId, events, expected }]))[0]!;
  }

  /** All or nothing, in a batch with other appends (AppendBatcher), or alone in es_append_streams. */
  appendToStreams(writes: StreamWrite[]): Promise<AppendResult[]> {
    return writes.length === 0 ? Promise.resolve([]) : this.batcher.submit(writes);
  }

  private async appendAlone(writes: StreamWrite[]): Promise<AppendResult[]> {
    const only = writes[0]!;
    if (writes.length === 1 && only.events.length > 0)
      return [await this.appendOne(only.streamId, only.events, only.expected, only.shortLived)];
    return this.appendAtomically(writes);
  }

  private async appendOne(
    streamId: string,
    events: NewEvent[],
    expected: ExpectedRevision,
    shortLived = false,
  ): Promise<AppendResult> {
    const { stored, legacy } = streamIdForms(streamId);
    const params = [
      stored,
      events.length,
      expectationCode(expected),
      shortLived,
      events.map(e => e.metadata.eventId),
      events.map(e => e.type),
      events.map(e => e.version),
      JSON.stringify(events.map(e => storedData(e, streamId))),
      JSON.stringify(events.map(e => appendedMetadata(e.metadata))),
      legacy,
    ];
    try {
      const result = await preparedQuery<AppendedRow>(this.pool, 'AppendEvents', appendSql(5), params);
      const last = lastRowPerStream(result.rows.map(logicalRow)).get(streamId);
      if (!last) return this.explainRefusal(streamId, events, expected, 'revision');
      this.store.written();
      return resultOf(last);
    } catch (err) {
      if (isUniqueViolation(err, 'es_events_event_id'))
        return this.explainRefusal(streamId, events, expected, 'event-id');
      throw err;
    }
  }

  /** All writes in one transaction (es_append_streams): the first refused one aborts them all. */
  private async appendAtomically(writes: StreamWrite[]): Promise<AppendResult[]> {
    const params = appendBatchParams([{ writes }]);
    params.splice(3, 1); // es_append_streams takes no group numbers
    try {
      const result = await preparedQuery<{ stream_id: string; revision: number; pos: string; xid: string }>(
        this.pool,
        'AppendToStreams',
        'select * from es_append_streams($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)',
        params,
      );
      const rows = result.rows.map(r => ({
        stream_id: longIds(r.stream_id),
        revision: r.revision,
        position: r.pos,
        transaction_id: r.xid,
      }));
      if (rows.length > 0) this.store.written();
      const last = lastRowPerStream(rows);
      const any = rows[rows.length - 1];
      const position = any ? resultOf(any).position : await this.store.headPosition();
      return writes.map(w =>
        w.events.length > 0 ? resultOf(last.get(w.streamId)!) : { nextRevision: w.expected as number, position },
      );
    } catch (err) {
      const e = err as { code?: string; detail?: string };
      if (e.code !== 'ES409' && !isUniqueViolation(err, 'es_events_event_id')) throw err;
      // every event there already, where this append puts it: a retry of an append that was done
      const found = await this.findAppended(writes);
      const done = sameAppend(writes, found);
      if (done) return done;
      if (e.code !== 'ES409') throw duplicateOf(writes, found);
      const refused = writes.find(w => w.streamId === longIds(e.detail!))!;
      throw await this.refusalOf(refused.streamId, refused.expected);
    }
  }

  /** The results of these writes when all their events were appended before, as they would put them; else null. */
  private async appendedBefore(writes: StreamWrite[]): Promise<AppendResult[] | null> {
    return sameAppend(writes, await this.findAppended(writes));
  }

  /**
   * Nothing was written: an idempotent retry (every event id already appended, to this stream, in this order),
   * or else a deleted stream, a wrong expected revision, or an event id that exists elsewhere.
   */
  private async explainRefusal(
    streamId: string,
    events: NewEvent[],
    expected: ExpectedRevision,
    refusedBy: 'revision' | 'event-id',
  ): Promise<AppendResult> {
    const write = [{ streamId, events, expected }];
    const found = await this.findAppended(write);
    const done = sameAppend(write, found);
    if (done) return done[0]!;
    if (refusedBy === 'event-id' && found.size > 0) throw duplicateOf(write, found);
    throw await this.refusalOf(streamId, expected);
  }

  /** The events of these writes that are in the store already, by event id. */
  private async findAppended(writes: Pick<StreamWrite, 'events'>[]): Promise<Map<string, FoundEvent>> {
    const ids = writes.flatMap(w => w.events.map(e => e.metadata.eventId));
    if (ids.length === 0) return new Map();
    const found = await preparedQuery<FoundEvent>(
      this.pool,
      'FindAppendedEvents',
      `select e.event_id::text, e.stream_id, e.revision, e.position::text, e.transaction_id::text, coalesce(s.deleted, false) as deleted
       from es_events e left join es_streams s on s.stream_id = e.stream_id where e.event_id = any($1::uuid[])`,
      [ids],
    );
    return new Map(found.rows.map(r => [r.event_id, logicalRow(r)]));
  }

  /** Why a write was refused: its stream is deleted, or at another revision than expected. */
  private async refusalOf(streamId: string, expected: ExpectedRevision): Promise<Error> {
    const stream = await this.streamRow(streamId);
    if (stream?.deleted) return new StreamDeleted(streamId);
    return new WrongExpectedRevision(streamId, expected, stream ? stream.revision : 'no_stream');
  }

  /** The stream's revision and tombstone; nothing for a stream that does not exist. */
  private async streamRow(streamId: string): Promise<{ revision: number; deleted: boolean } | undefined> {
    const { stored, legacy } = streamIdForms(streamId);
    const r = await preparedQuery<{ revision: number | null; deleted: boolean }>(
      this.pool,
      'ReadStreamRevision',
      // a stream without a row (short-lived) is at its last event's revision
      'select revision, deleted from es_stream_head($1, $2)',
      [stored, legacy],
    );
    const { revision, deleted } = r.rows[0]!;
    return revision === null && !deleted ? undefined : { revision: revision ?? -1, deleted };
  }

  private async currentRevision(streamId: string, expected: ExpectedRevision): Promise<AppendResult> {
    const stream = await this.streamRow(streamId);
    if (stream?.deleted) throw new StreamDeleted(streamId);
    const actual = stream ? stream.revision : 'no_stream';
    if (!expectationMet(expected, actual)) throw new WrongExpectedRevision(streamId, expected, actual);
    return { nextRevision: stream ? stream.revision : -1, position: await this.store.headPosition() };
  }
}
