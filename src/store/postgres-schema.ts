/** Tables of the PostgreSQL event store. Events are never updated; a deleted stream keeps a tombstone row. */
export const eventStoreSchema = `
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
  data jsonb not null,
  metadata jsonb not null,
  constraint es_events_stream_revision unique (stream_id, revision),
  constraint es_events_event_id unique (event_id)
);
create index if not exists es_events_global_order on es_events (transaction_id, position);
`;
