import { preparedQuery, query, type Queryable } from '../db/pool.ts';
import { projection } from './projection.ts';

/** The auditors' tokens by hash, for the auditor surface (/api/audit): a revoked one is refused at once. */
export const auditorsProjection = projection({
  name: 'auditors',
  tables: ['auditor_tokens'],
  schema: [
    `
    create table if not exists auditor_tokens (
      id uuid primary key,
      name text not null,
      prefix text not null,
      key_hash text not null unique,
      created_at timestamptz not null,
      revoked_at timestamptz
    );`,
  ],
  on: {
    async AuditorCreated(tx, { data: d }) {
      await query(
        tx,
        'ProjectAuditorCreated',
        `insert into auditor_tokens (id, name, prefix, key_hash, created_at) values ($1, $2, $3, $4, $5)
         on conflict do nothing`,
        [d.auditorId, d.name, d.prefix, d.keyHash, d.createdAt],
      );
    },
    async AuditorRevoked(tx, { data: d }) {
      await query(tx, 'ProjectAuditorRevoked', 'update auditor_tokens set revoked_at = $2 where id = $1', [
        d.auditorId,
        d.revokedAt,
      ]);
    },
  },
});

export type AuditorRow = { id: string; name: string; prefix: string; created_at: Date; revoked_at: Date | null };

export async function findActiveAuditorByHash(db: Queryable, keyHash: string): Promise<AuditorRow | null> {
  const r = await preparedQuery<AuditorRow>(
    db,
    'FindActiveAuditor',
    'select id, name, prefix, created_at, revoked_at from auditor_tokens where key_hash = $1 and revoked_at is null',
    [keyHash],
  );
  return r.rows[0] ?? null;
}

export async function listAuditors(db: Queryable): Promise<AuditorRow[]> {
  const r = await query<AuditorRow>(
    db,
    'ListAuditors',
    'select id, name, prefix, created_at, revoked_at from auditor_tokens order by created_at, id',
  );
  return r.rows;
}
