import { query, type Queryable } from '../db/pool.ts';
import type { Position } from './event-store.ts';

/** The event a subscriber could not handle: where it is in its stream and in "all". */
export type FailedEvent = { streamId: string; revision: number; type: string; position: Position };

/** A subscriber stopped at an event it cannot handle; kept in PostgreSQL so that every process and the CLI see it. */
export type SubscriberFailure = {
  subscriber: string;
  event: FailedEvent;
  error: string;
  since: Date;
  attempts: number;
};

export const subscriberFailureSchema = `
create table if not exists subscriber_failures (
  name text primary key,
  stream_id text not null,
  revision bigint not null,
  event_type text not null,
  commit_position numeric(20, 0) not null,
  prepare_position numeric(20, 0) not null,
  error text not null,
  since timestamptz not null,
  attempts int not null
);
`;

export async function recordSubscriberFailure(db: Queryable, failure: SubscriberFailure): Promise<void> {
  const { subscriber, event, error, since, attempts } = failure;
  await query(
    db,
    'RecordSubscriberFailure',
    `insert into subscriber_failures (name, stream_id, revision, event_type, commit_position, prepare_position, error, since, attempts)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     on conflict (name) do update set stream_id = excluded.stream_id, revision = excluded.revision, event_type = excluded.event_type,
       commit_position = excluded.commit_position, prepare_position = excluded.prepare_position, error = excluded.error,
       since = excluded.since, attempts = excluded.attempts`,
    [
      subscriber,
      event.streamId,
      event.revision,
      event.type,
      event.position.commit.toString(),
      event.position.prepare.toString(),
      error,
      since,
      attempts,
    ],
  );
}

export async function clearSubscriberFailure(db: Queryable, subscriber: string): Promise<void> {
  await query(db, 'ClearSubscriberFailure', 'delete from subscriber_failures where name = $1', [subscriber]);
}

type FailureRow = {
  name: string;
  stream_id: string;
  revision: number;
  event_type: string;
  commit_position: string;
  prepare_position: string;
  error: string;
  since: Date;
  attempts: number;
};

const selectFailures =
  'select name, stream_id, revision, event_type, commit_position::text, prepare_position::text, error, since, attempts from subscriber_failures';

export async function findSubscriberFailure(db: Queryable, subscriber: string): Promise<SubscriberFailure | null> {
  const result = await query<FailureRow>(db, 'FindSubscriberFailure', `${selectFailures} where name = $1`, [
    subscriber,
  ]);
  return result.rows.map(fromRow)[0] ?? null;
}

export async function listSubscriberFailures(db: Queryable): Promise<SubscriberFailure[]> {
  const result = await query<FailureRow>(db, 'ListSubscriberFailures', `${selectFailures} order by name`);
  return result.rows.map(fromRow);
}

function fromRow(r: FailureRow): SubscriberFailure {
  return {
    subscriber: r.name,
    event: {
      streamId: r.stream_id,
      revision: r.revision,
      type: r.event_type,
      position: { commit: BigInt(r.commit_position), prepare: BigInt(r.prepare_position) },
    },
    error: r.error,
    since: r.since,
    attempts: r.attempts,
  };
}
