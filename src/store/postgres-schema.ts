/**
 * The transaction-scoped lock an append takes on each stream it writes, before anything that gives its transaction an
 * id. Readers of "all" order events by transaction id: a transaction that got its id first and then waited for a
 * stream that another one (with a later id) was writing would put its events, with the later revisions, before the
 * other's. Taking every stream's lock first means the one that waited gets its id after the other committed. Two keys
 * (a namespace and the stream's hash): apart from the subscribers' one-key locks; a hash shared by two streams only
 * makes their appends wait for each other. Taken in key order, so appends to several streams cannot deadlock on them.
 */
const streamLockNamespace = 0x45530001;
export const lockStream = (streamIdSql: string) => `pg_advisory_xact_lock(${streamLockNamespace}, hashtext(${streamIdSql}))`;

/** Tables of the PostgreSQL event store. Events are never updated; a deleted stream keeps a tombstone row. */
export const eventStoreSchema = `
-- one process at a time (create or replace function is not safe against itself)
select pg_advisory_xact_lock(hashtextextended('es-schema', 0));
create table if not exists es_streams (
  stream_id text primary key,
  revision bigint not null,
  deleted boolean not null default false
);
create table if not exists es_events (
  position bigint generated always as identity,
  transaction_id xid8 not null default pg_current_xact_id(),
  stream_id text not null,
  revision bigint not null,
  event_id uuid not null,
  type text not null,
  version int not null,
  data json not null,
  metadata json not null,
  constraint es_events_stream_revision unique (stream_id, revision),
  constraint es_events_event_id unique (event_id)
);
create index if not exists es_events_global_order on es_events (transaction_id, position);
-- Event data is kept as the JSON text it was written as (json, not jsonb): nothing queries inside it, and json is
-- cheaper both to take in (checked, not rebuilt) and to hand back (no re-rendering). Stores made with jsonb move once.
do $$ begin
  if exists (select 1 from information_schema.columns
             where table_schema = current_schema() and table_name = 'es_events' and column_name = 'data' and data_type = 'jsonb') then
    alter table es_events alter column data type json using data::json, alter column metadata type json using metadata::json;
  end if;
end $$;
-- Appends to several streams at once, all or nothing: each write claims its stream's next revisions at the expected
-- one (-1: the stream must not exist); a write of no events only checks its stream (guard) as of the statement's
-- snapshot, without locking it: a write to it committing meanwhile is ordered after this append.
-- The first refused write aborts everything with SQLSTATE ES409 and the stream in DETAIL. The written streams are
-- locked first (lockStream), before the transaction has an id.
-- (event data and metadata come as two JSON arrays, one element per event, instead of arrays of jsonb)
drop function if exists es_append_streams(text[], bigint[], int[], int[], int[], uuid[], text[], int[], jsonb[], jsonb[]);
drop function if exists es_append_streams(text[], bigint[], int[], int[], int[], uuid[], text[], int[], jsonb, jsonb);
create or replace function es_append_streams(
  stream_ids text[], expected bigint[], counts int[],
  event_write int[], event_ord int[], event_ids uuid[], types text[], versions int[], datas json, metas json
) returns table (stream_id text, revision bigint, pos text, xid text) language plpgsql as $$
declare
  claimed bigint[] := array_fill(null::bigint, array[cardinality(stream_ids)]);
  r bigint;
begin
  perform ${lockStream('l.s')} from (select distinct w.s, hashtext(w.s) from unnest(stream_ids, counts) as w(s, n) where w.n > 0 order by 2) l;
  for i in 1 .. cardinality(stream_ids) loop
    r := null;
    if counts[i] = 0 then
      select s.revision into r from es_streams s
       where s.stream_id = stream_ids[i] and s.revision = expected[i] and not s.deleted;
    elsif expected[i] = -1 then
      insert into es_streams as s (stream_id, revision) values (stream_ids[i], counts[i] - 1)
      on conflict on constraint es_streams_pkey do nothing returning s.revision into r;
    else
      update es_streams s set revision = s.revision + counts[i]
       where s.stream_id = stream_ids[i] and s.revision = expected[i] and not s.deleted returning s.revision into r;
    end if;
    if r is null then
      raise exception 'wrong expected revision' using errcode = 'ES409', detail = stream_ids[i];
    end if;
    claimed[i] := r;
  end loop;
  return query
    insert into es_events as e (stream_id, revision, event_id, type, version, data, metadata)
    select stream_ids[x.w], claimed[x.w] - counts[x.w] + x.ord, x.id, x.type, x.version, d.value, m.value
    from unnest(event_write, event_ord, event_ids, types, versions) with ordinality as x(w, ord, id, type, version, k)
    join json_array_elements(datas) with ordinality as d(value, k) on d.k = x.k
    join json_array_elements(metas) with ordinality as m(value, k) on m.k = x.k
    returning e.stream_id, e.revision, e.position::text, e.transaction_id::text;
end $$;
`;
