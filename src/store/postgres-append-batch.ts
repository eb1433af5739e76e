import type { AppendResult, NewEvent } from './event-store.ts';

/** One append waiting for the next batch: exact revision or no stream (-1), the modes commands use. */
export type BatchedAppend = {
  streamId: string;
  expected: number | 'no_stream';
  events: NewEvent[];
  resolve: (result: AppendResult) => void;
  reject: (err: unknown) => void;
};

/** The last event an append wrote, or nothing when its expected revision was refused. */
export type AppendedRow = { stream_id: string; revision: number; position: string; transaction_id: string };

/**
 * Many appends to distinct streams in one statement (group commit): each claims its stream's next revisions
 * independently of the others (the update or insert of its es_streams row), and only claimed appends write events.
 * A refused append writes nothing and does not affect the others; an error (a duplicate event id, a deadlock)
 * fails the whole statement, and the caller then appends each on its own.
 */
export const appendBatchSql = `
  with input as (
    select * from unnest($1::text[], $2::bigint[], $3::int[]) with ordinality as i(stream_id, expected, n, idx)
  ),
  bumped as (
    update es_streams s set revision = s.revision + i.n
    from input i
    where i.expected >= 0 and s.stream_id = i.stream_id and s.revision = i.expected and not s.deleted
    returning i.idx, s.revision
  ),
  fresh as (
    insert into es_streams (stream_id, revision)
    select stream_id, n - 1 from input where expected = -1
    on conflict (stream_id) do nothing
    returning stream_id, revision
  ),
  claimed as (
    select idx, revision from bumped
    union all
    select i.idx, f.revision from fresh f join input i on i.stream_id = f.stream_id and i.expected = -1
  )
  insert into es_events (stream_id, revision, event_id, type, version, data, metadata)
  select i.stream_id, c.revision - i.n + e.ord, e.event_id, e.type, e.version, e.data, e.metadata
  from unnest($4::int[], $5::int[], $6::uuid[], $7::text[], $8::int[], $9::jsonb[], $10::jsonb[])
         as e(idx, ord, event_id, type, version, data, metadata)
  join claimed c on c.idx = e.idx
  join input i on i.idx = e.idx
  returning stream_id, revision, position::text, transaction_id::text`;

/** The parameters of appendBatchSql and es_append_streams: one row per append, one per event (numbered from 1). */
export function appendBatchParams(batch: Pick<BatchedAppend, 'streamId' | 'expected' | 'events'>[]): unknown[] {
  const idx: number[] = [];
  const ord: number[] = [];
  const ids: string[] = [];
  const types: string[] = [];
  const versions: number[] = [];
  const data: string[] = [];
  const metadata: string[] = [];
  batch.forEach((append, i) =>
    append.events.forEach((e, j) => {
      idx.push(i + 1);
      ord.push(j + 1);
      ids.push(e.metadata.eventId);
      types.push(e.type);
      versions.push(e.version);
      data.push(JSON.stringify(e.data));
      metadata.push(JSON.stringify(e.metadata));
    }),
  );
  return [
    batch.map(a => a.streamId),
    batch.map(a => (a.expected === 'no_stream' ? -1 : a.expected)),
    batch.map(a => a.events.length),
    idx, ord, ids, types, versions, data, metadata,
  ];
}

/** The last row each stream got in the batch. */
export function lastRowPerStream(rows: AppendedRow[]): Map<string, AppendedRow> {
  const last = new Map<string, AppendedRow>();
  for (const row of rows) {
    const seen = last.get(row.stream_id);
    if (!seen || row.revision > seen.revision) last.set(row.stream_id, row);
  }
  return last;
}
