import type { Migration } from '../db/migrations.ts';
import { appendedMetadataRows, metadataColumns, metadataValues } from './postgres-event-metadata.ts';

/**
 * The transaction-scoped lock an append takes on each stream it writes, before anything that gives its transaction an
 * id. Readers of "all" order events by transaction id: a transaction that got its id first and then waited for a
 * stream that another one (with a later id) was writing would put its events, with the later revisions, before the
 * other's. Taking every stream's lock first means the one that waited gets its id after the other committed. Two keys
 * (a namespace and the stream's hash): apart from the subscribers' one-key locks; a hash shared by two streams only
 * makes their appends wait for each other. Taken in key order, so appends to several streams cannot deadlock on them.
 */
const streamLockNamespace = 0x45530001;
export const lockStream = (streamIdSql: string) =>
  `pg_advisory_xact_lock(${streamLockNamespace}, hashtext(${streamIdSql}))`;

/** Tables that only ever grow: the event log, and the audit's ledger checkpoints once src/audit creates them. */
export const appendOnlyTables = ['es_events', 'ledger_checkpoints'] as const;

/**
 * The columns of es_events an append names: `position` (its identity) and `transaction_id` (its default) are the
 * database's alone, so a role granted INSERT on these columns only cannot choose them (no `OVERRIDING SYSTEM VALUE`,
 * no transaction id of the past or the future that would hide an event from readers of "all").
 */
export const appendedEventColumns = [
  'stream_id',
  'revision',
  'event_id',
  'type',
  'version',
  'data',
  ...metadataColumns,
] as const;

/** The trigger es_protect_append_only puts on a table; switching it off is what an insider has to do first. */
export const appendOnlyTrigger = 'es_append_only';

// one process at a time (create or replace function is not safe against itself), also against a version of the service
// from before src/db/migrations.ts
const schemaLock = `select pg_advisory_xact_lock(hashtextextended('es-schema', 0));`;

/**
 * The event log and what keeps it append-only, run by the table's owner (the superuser in embedded mode, never the
 * service's role there). Events are never updated; a deleted stream keeps its events and a tombstone in es_streams.
 */
const eventLogDefinition = `
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
-- every role, superusers included, is refused: history is only added to (SQLSTATE ES403)
create or replace function es_refuse_rewrite() returns trigger language plpgsql as $$
begin
  raise exception '% is append-only', tg_table_name using errcode = 'ES403',
    hint = 'rows are only ever added; an UPDATE, DELETE or TRUNCATE needs the trigger ${appendOnlyTrigger} disabled by the owner first';
end $$;
-- Makes a table append-only: its owner becomes this function's owner (the role that runs migrations), the role that
-- owned it keeps SELECT and INSERT only, nobody else may UPDATE, DELETE or TRUNCATE it, and the trigger refuses even the
-- owner. Security definer, so that the service's role can protect a table it has just created.
create or replace function es_protect_append_only(target regclass) returns void
language plpgsql security definer set search_path = pg_catalog, pg_temp as $$
declare
  t record;
  holder oid;
begin
  select c.relowner, n.nspname into t from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where c.oid = target and c.relkind in ('r', 'p') and n.nspname not in ('pg_catalog', 'information_schema');
  if not found then raise exception '% is not a table of ours', target; end if;
  if t.relowner <> current_user::regrole then
    execute format('alter table %s owner to %I', target, current_user);
    execute format('grant select, insert on %s to %s', target, t.relowner::regrole);
  end if;
  for holder in select distinct a.grantee from pg_class c, aclexplode(c.relacl) a
                 where c.oid = target and a.privilege_type in ('UPDATE', 'DELETE', 'TRUNCATE', 'TRIGGER') and a.grantee <> c.relowner loop
    execute format('revoke update, delete, truncate, trigger on %s from %s', target, case when holder = 0 then 'public' else holder::regrole::text end);
  end loop;
  execute format('create or replace trigger ${appendOnlyTrigger} before update or delete or truncate on %s for each statement execute function %I.es_refuse_rewrite()', target, t.nspname);
end $$;
select es_protect_append_only(to_regclass(t)) from unnest(array['${appendOnlyTables.join("', '")}']) t where to_regclass(t) is not null;
`;

/** The streams' revisions and tombstones, and the multi-stream append: the service's role owns these. */
const eventStreamsDefinition = `
create table if not exists es_streams (
  stream_id text primary key,
  revision bigint not null,
  deleted boolean not null default false
);
-- readers skip the events of deleted streams: a probe of this (small) index per event read
create index if not exists es_streams_deleted on es_streams (stream_id) where deleted;
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

/**
 * Streams without a row in es_streams: a short-lived stream (a payment, a bill's claim, an order id) keeps nothing
 * there beside its events, and its revision is its last event's. One claim of revisions (es_claim_revisions) for the
 * appends alone and es_append_streams; the batch statement reads heads through es_stream_head.
 */
const shortLivedStreamsDefinition = `
-- A stream's head as committed now: its row's revision and tombstone, or, for a stream without a row (short-lived),
-- its last event's revision. Volatile, so that a statement that took the stream's lock after its snapshot (an append
-- in one statement) sees what whoever held the lock before it wrote.
create or replace function es_stream_head(stream text, out revision bigint, out has_row boolean, out deleted boolean)
language plpgsql volatile as $$
begin
  select s.revision, true, s.deleted into revision, has_row, deleted from es_streams s where s.stream_id = stream;
  if not found then
    revision := (select max(e.revision) from es_events e where e.stream_id = stream);
    has_row := false;
    deleted := false;
  end if;
end $$;
-- Claims the next n revisions of a stream whose lock this transaction holds: expected is a revision, -1 (no stream),
-- -2 (any) or -3 (the stream exists); n = 0 only checks (a guard, its row not locked). Answers the last revision
-- claimed (the head, for a guard), or null when refused. A new stream gets a row unless it is short-lived.
create or replace function es_claim_revisions(stream text, expected bigint, n int, short_lived boolean)
returns bigint language plpgsql volatile as $$
declare
  head record;
  r bigint;
begin
  if n > 0 then perform 1 from es_streams s where s.stream_id = stream for update; end if;
  select * into head from es_stream_head(stream);
  if head.deleted or not (expected = -2 or coalesce(head.revision, -1) = expected or (expected = -3 and head.revision is not null)) then
    return null;
  end if;
  if n = 0 then return coalesce(head.revision, -1); end if;
  if head.has_row then
    update es_streams s set revision = s.revision + n where s.stream_id = stream returning s.revision into r;
  elsif head.revision is null and not short_lived then
    insert into es_streams as s (stream_id, revision) values (stream, n - 1)
    on conflict on constraint es_streams_pkey do nothing returning s.revision into r;
  else
    r := coalesce(head.revision, -1) + n;
  end if;
  return r;
end $$;
-- Appends to several streams at once, all or nothing: each write claims its stream's next revisions at the expected
-- one (-1: the stream must not exist; es_claim_revisions); a write of no events only checks its stream (guard). The
-- first refused write aborts everything with SQLSTATE ES409 and the stream in DETAIL. The written streams are locked
-- first (lockStream), before the transaction has an id.
-- (event data and metadata come as two JSON arrays, one element per event, instead of arrays of jsonb)
drop function if exists es_append_streams(text[], bigint[], int[], int[], int[], uuid[], text[], int[], json, json);
create or replace function es_append_streams(
  stream_ids text[], expected bigint[], counts int[],
  event_write int[], event_ord int[], event_ids uuid[], types text[], versions int[], datas json, metas json,
  short_lived bool[]
) returns table (stream_id text, revision bigint, pos text, xid text) language plpgsql as $$
declare
  claimed bigint[] := array_fill(null::bigint, array[cardinality(stream_ids)]);
begin
  perform ${lockStream('l.s')} from (select distinct w.s, hashtext(w.s) from unnest(stream_ids, counts) as w(s, n) where w.n > 0 order by 2) l;
  for i in 1 .. cardinality(stream_ids) loop
    claimed[i] := es_claim_revisions(stream_ids[i], expected[i], counts[i], short_lived[i]);
    if claimed[i] is null then
      raise exception 'wrong expected revision' using errcode = 'ES409', detail = stream_ids[i];
    end if;
  end loop;
  return query
    insert into es_events as e (${appendedEventColumns.join(', ')})
    select stream_ids[x.w], claimed[x.w] - counts[x.w] + x.ord, x.id, x.type, x.version, d.value, ${metadataValues('m')}
    from unnest(event_write, event_ord, event_ids, types, versions) with ordinality as x(w, ord, id, type, version, k)
    join json_array_elements(datas) with ordinality as d(value, k) on d.k = x.k
    join ${appendedMetadataRows('metas')} on m.k = x.k
    returning e.stream_id, e.revision, e.position::text, e.transaction_id::text;
end $$;
`;

/**
 * Short stream ids (postgres-stream-ids.ts): a stream's events and row are kept under its short id, and rows written
 * before short ids under its long one (legacy, null when the two are the same). A stream's head is the two forms'
 * together; only a deleted stream has a row under each (deleteStream marks both, so that readers pass by its events of
 * either form). Appends lock a stream by the id it is kept under.
 */
const shortStreamIdsDefinition = `
drop function if exists es_append_streams(text[], bigint[], int[], int[], int[], uuid[], text[], int[], json, json, bool[]);
drop function if exists es_claim_revisions(text, bigint, int, boolean);
drop function if exists es_stream_head(text);
create or replace function es_stream_head(stream text, legacy text, out revision bigint, out has_row boolean, out deleted boolean)
language plpgsql volatile as $$
begin
  select max(s.revision), count(*) > 0, coalesce(bool_or(s.deleted), false) into revision, has_row, deleted
    from es_streams s where s.stream_id = stream or s.stream_id = legacy;
  if not has_row then
    revision := greatest((select max(e.revision) from es_events e where e.stream_id = stream),
                         (select max(e.revision) from es_events e where e.stream_id = legacy));
  end if;
end $$;
create or replace function es_claim_revisions(stream text, legacy text, expected bigint, n int, short_lived boolean)
returns bigint language plpgsql volatile as $$
declare
  head record;
  r bigint;
begin
  if n > 0 then perform 1 from es_streams s where s.stream_id = stream or s.stream_id = legacy for update; end if;
  select * into head from es_stream_head(stream, legacy);
  if head.deleted or not (expected = -2 or coalesce(head.revision, -1) = expected or (expected = -3 and head.revision is not null)) then
    return null;
  end if;
  if n = 0 then return coalesce(head.revision, -1); end if;
  if head.has_row then
    update es_streams s set revision = s.revision + n where s.stream_id = stream or s.stream_id = legacy returning s.revision into r;
  elsif head.revision is null and not short_lived then
    insert into es_streams as s (stream_id, revision) values (stream, n - 1)
    on conflict on constraint es_streams_pkey do nothing returning s.revision into r;
  else
    r := coalesce(head.revision, -1) + n;
  end if;
  return r;
end $$;
create or replace function es_append_streams(
  stream_ids text[], expected bigint[], counts int[],
  event_write int[], event_ord int[], event_ids uuid[], types text[], versions int[], datas json, metas json,
  short_lived bool[], legacies text[]
) returns table (stream_id text, revision bigint, pos text, xid text) language plpgsql as $$
declare
  claimed bigint[] := array_fill(null::bigint, array[cardinality(stream_ids)]);
begin
  perform ${lockStream('l.s')} from (select distinct w.s, hashtext(w.s) from unnest(stream_ids, counts) as w(s, n) where w.n > 0 order by 2) l;
  for i in 1 .. cardinality(stream_ids) loop
    claimed[i] := es_claim_revisions(stream_ids[i], legacies[i], expected[i], counts[i], short_lived[i]);
    if claimed[i] is null then
      raise exception 'wrong expected revision' using errcode = 'ES409', detail = stream_ids[i];
    end if;
  end loop;
  return query
    insert into es_events as e (${appendedEventColumns.join(', ')})
    select stream_ids[x.w], claimed[x.w] - counts[x.w] + x.ord, x.id, x.type, x.version, d.value, ${metadataValues('m')}
    from unnest(event_write, event_ord, event_ids, types, versions) with ordinality as x(w, ord, id, type, version, k)
    join json_array_elements(datas) with ordinality as d(value, k) on d.k = x.k
    join ${appendedMetadataRows('metas')} on m.k = x.k
    returning e.stream_id, e.revision, e.position::text, e.transaction_id::text;
end $$;
`;

/**
 * An event's metadata in typed columns, the JSON null (postgres-event-metadata.ts appendedMetadata decides which):
 * about half the bytes of the JSON, on every event the log keeps for ever. Rows written before the columns keep their
 * JSON; a row holds one form or the other.
 */
const typedMetadata = `
alter table es_events
  alter column metadata drop not null,
  add column if not exists correlation_id uuid,
  add column if not exists causation_id text,
  add column if not exists actor text,
  add column if not exists occurred_at timestamptz;
`;

/** The event log's part, for its owner alone (the superuser's connection in embedded mode). */
export const eventLogMigration: Migration = {
  name: 'event-log',
  steps: [`${schemaLock}\n${eventLogDefinition}`, typedMetadata],
};

/** The part the service's role may (re)create without owning the log. */
export const eventStreamsMigration: Migration = {
  name: 'event-streams',
  steps: [
    `${schemaLock}\n${eventStreamsDefinition}`,
    `${schemaLock}\n${shortLivedStreamsDefinition}`,
    `${schemaLock}\n${shortStreamIdsDefinition}`,
  ],
};
