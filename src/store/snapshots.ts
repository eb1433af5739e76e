import type pg from 'pg';
import { migrate, type Migration } from '../db/migrations.ts';
import { query } from '../db/pool.ts';

/**
 * Snapshots of decider states, so that a long stream (an account synchronised every few minutes) is not read
 * from its start by every command. They live in PostgreSQL beside the read models, whatever the event store,
 * and are only a cache: dropping them changes nothing but speed.
 */
export type Snapshot = { revision: number; state: unknown };

export interface SnapshotStore {
  read(streamId: string, name: string, version: number): Promise<Snapshot | null>;
  write(streamId: string, name: string, version: number, snapshot: Snapshot): Promise<void>;
  /** With the stream: a snapshot may hold personal data. */
  delete(streamId: string): Promise<void>;
}

export const snapshotSchema = `
create table if not exists stream_snapshots (
  stream_id text not null,
  name text not null,
  version int not null,
  revision bigint not null,
  state jsonb not null,
  primary key (stream_id, name)
);
`;

export const snapshotMigration: Migration = { name: 'stream-snapshots', steps: [snapshotSchema] };

export async function postgresSnapshots(db: pg.Pool): Promise<SnapshotStore> {
  await migrate(db, [snapshotMigration]);
  return {
    async read(streamId, name, version) {
      const r = await query<{ revision: number; state: unknown }>(
        db,
        'ReadSnapshot',
        'select revision, state from stream_snapshots where stream_id = $1 and name = $2 and version = $3',
        [streamId, name, version],
      );
      return r.rows[0] ?? null;
    },
    async write(streamId, name, version, snapshot) {
      await query(
        db,
        'WriteSnapshot',
        `insert into stream_snapshots (stream_id, name, version, revision, state) values ($1, $2, $3, $4, $5)
         on conflict (stream_id, name) do update set version = excluded.version, revision = excluded.revision, state = excluded.state
         where stream_snapshots.revision < excluded.revision or stream_snapshots.version <> excluded.version`,
        [streamId, name, version, snapshot.revision, JSON.stringify(snapshot.state)],
      );
    },
    async delete(streamId) {
      await query(db, 'DeleteSnapshots', 'delete from stream_snapshots where stream_id = $1', [streamId]);
    },
  };
}
