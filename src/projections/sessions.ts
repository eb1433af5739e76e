import type pg from 'pg';
import { preparedQuery, query, type Queryable } from '../db/pool.ts';
import { projection } from './projection.ts';

/**
 * When a session is over: its end or its expiry, whichever came first (least() passes over a null end). Both are the
 * wall clock's, as every reader's check is; the retention deletes a row some time after this.
 */
const overAt = 'least(ended_at, expires_at)';

export const sessionsProjection = projection({
  name: 'sessions',
  tables: ['user_sessions'],
  prunable: { user_sessions: `${overAt} <= $1` },
  schema: [
    `
    create table if not exists user_sessions (
      id uuid primary key,
      user_id uuid not null,
      user_agent text,
      ip text,
      created_at timestamptz not null,
      last_seen_at timestamptz not null,
      expires_at timestamptz not null,
      ended_at timestamptz
    );
    create index if not exists user_sessions_user on user_sessions (user_id);`,
    `create index if not exists user_sessions_over on user_sessions ((${overAt}));`,
  ],
  on: {
    async SessionStarted(tx, { data: d }) {
      await query(
        tx,
        'ProjectSessionStarted',
        `insert into user_sessions (id, user_id, user_agent, ip, created_at, last_seen_at, expires_at)
         values ($1, $2, $3, $4, $5, $5, $6) on conflict do nothing`,
        [d.sessionId, d.userId, d.userAgent, d.ip, d.startedAt, d.expiresAt],
      );
    },
    async SessionSeen(tx, { data: d }) {
      await query(
        tx,
        'ProjectSessionSeen',
        'update user_sessions set last_seen_at = greatest(last_seen_at, $2) where id = $1',
        [d.sessionId, d.at],
      );
    },
    async SessionEnded(tx, { data: d }) {
      await query(tx, 'ProjectSessionEnded', 'update user_sessions set ended_at = $2 where id = $1', [
        d.sessionId,
        d.endedAt,
      ]);
    },
  },
});

export type SessionRow = {
  id: string;
  user_id: string;
  user_agent: string | null;
  ip: string | null;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
};

/** A session that is not ended nor expired, and the user's own (whether it was idle too long is the caller's to say). */
export async function findLiveSession(
  db: Queryable,
  sessionId: string,
  userId: string,
  now: Date,
): Promise<SessionRow | null> {
  const r = await preparedQuery<SessionRow>(
    db,
    'FindLiveSession',
    'select * from user_sessions where id = $1 and user_id = $2 and ended_at is null and expires_at > $3',
    [sessionId, userId, now],
  );
  return r.rows[0] ?? null;
}

/** The user's sessions that can still be used: not ended, not expired, used within `idleMs`. */
export async function listLiveSessions(
  db: Queryable,
  userId: string,
  now: Date,
  idleMs: number,
): Promise<SessionRow[]> {
  const r = await query<SessionRow>(
    db,
    'ListLiveSessions',
    `select * from user_sessions where user_id = $1 and ended_at is null and expires_at > $2 and last_seen_at > $3
     order by created_at desc, id`,
    [userId, now, new Date(now.getTime() - idleMs)],
  );
  return r.rows;
}

/** The ids of the user's sessions that are not ended nor expired, idle ones included: those a password change ends. */
export async function openSessionIdsOf(db: Queryable, userId: string, now: Date): Promise<string[]> {
  const r = await query<{ id: string }>(
    db,
    'ListOpenSessionIds',
    'select id from user_sessions where user_id = $1 and ended_at is null and expires_at > $2',
    [userId, now],
  );
  return r.rows.map(row => row.id);
}

/**
 * Rows of sessions over (ended or expired) before `before`, at most `batch` of them, rows locked by a projection's
 * update skipped: for the retention's pass (src/background/retention.ts). No reader tells such a row from none: every
 * one asks for sessions that are neither ended nor expired. The session's events stay in the log.
 */
export async function pruneOverSessions(pool: pg.Pool, before: Date, batch: number): Promise<number> {
  const r = await query(
    pool,
    'PruneOverSessions',
    `delete from user_sessions where id in (
       select id from user_sessions where ${overAt} <= $1 order by ${overAt} limit $2 for update skip locked)`,
    [before, batch],
  );
  return r.rowCount ?? 0;
}
