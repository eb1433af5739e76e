import { preparedQuery, query, type Queryable } from '../db/pool.ts';
import { projection } from './projection.ts';

export const apiKeysProjection = projection({
  name: 'api-keys',
  tables: ['api_keys'],
  schema: [
    `
    create table if not exists api_keys (
      id uuid primary key,
      user_id uuid not null,
      name text not null,
      prefix text not null,
      key_hash text not null unique,
      created_at timestamptz not null,
      last_used_at timestamptz,
      revoked_at timestamptz
    );
    create index if not exists api_keys_user on api_keys (user_id);`,
  ],
  on: {
    async ApiKeyCreated(tx, { data: d }) {
      await query(
        tx,
        'ProjectApiKeyCreated',
        `insert into api_keys (id, user_id, name, prefix, key_hash, created_at) values ($1, $2, $3, $4, $5, $6)
         on conflict do nothing`,
        [d.keyId, d.userId, d.name, d.prefix, d.keyHash, d.createdAt],
      );
    },
    async ApiKeyUsed(tx, { data: d }) {
      await query(
        tx,
        'ProjectApiKeyUsed',
        'update api_keys set last_used_at = greatest(last_used_at, $2) where id = $1',
        [d.keyId, d.at],
      );
    },
    async ApiKeyRevoked(tx, { data: d }) {
      await query(tx, 'ProjectApiKeyRevoked', 'update api_keys set revoked_at = $2 where id = $1', [
        d.keyId,
        d.revokedAt,
      ]);
    },
  },
});

export type ApiKeyRow = {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
};

export async function findActiveKeyByHash(db: Queryable, keyHash: string): Promise<ApiKeyRow | null> {
  const r = await preparedQuery<ApiKeyRow>(
    db,
    'FindActiveApiKey',
    'select id, user_id, name, prefix, created_at, last_used_at, revoked_at from api_keys where key_hash = $1 and revoked_at is null',
    [keyHash],
  );
  return r.rows[0] ?? null;
}

export async function listApiKeys(db: Queryable, userId: string): Promise<ApiKeyRow[]> {
  const r = await query<ApiKeyRow>(
    db,
    'ListApiKeys',
    'select id, user_id, name, prefix, created_at, last_used_at, revoked_at from api_keys where user_id = $1 order by created_at desc, id',
    [userId],
  );
  return r.rows;
}
