import { createHash } from 'node:crypto';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type pg from 'pg';
import { migrate, type Migration } from './migrations.ts';
import { preparedQuery, query } from './pool.ts';

/**
 * Attempt limits counted in PostgreSQL, so every instance on the database enforces the same limit.
 * One row per key: a fixed window that starts with the first attempt after the previous window ended (as
 * @fastify/rate-limit's own store counts), and how many attempts it holds. Times are the database's, so the clocks of
 * several processes never disagree. Ended windows are deleted on the fly, at most once a minute per process.
 */
const attemptCountsSchema = `
  create table if not exists attempt_counts (
    key text primary key,
    window_start timestamptz not null,
    window_end timestamptz not null,
    count int not null
  );
  create index if not exists attempt_counts_window_end on attempt_counts (window_end);`;

/** The table's unit of start-up DDL (src/db/migrations.ts). */
export const attemptCountsMigration: Migration = { name: 'attempt-counts', steps: [attemptCountsSchema] };

const ready = new WeakMap<pg.Pool, Promise<void>>();

/** The table, brought up to date once per pool under the migrations' lock. */
export function ensureAttemptCounts(pool: pg.Pool): Promise<void> {
  let done = ready.get(pool);
  if (!done) {
    done = migrate(pool, [attemptCountsMigration]).then(() => undefined);
    ready.set(pool, done);
    done.catch(() => ready.delete(pool));
  }
  return done;
}

/**
 * The row's key: a hash of the counter's key, which holds what the client sent (an email, an address) — any text, NUL
 * and lone surrogates included, which PostgreSQL's text refuses — and need not be kept in clear.
 */
const storedKey = (key: string) => createHash('sha256').update(key).digest('base64url');

/** A key's window as counted: attempts in it, and milliseconds until it ends (0 when none is open). */
export type AttemptWindow = { count: number; ttlMs: number };

const cleanedAt = new WeakMap<pg.Pool, number>();
const cleanEveryMs = 60_000;

function cleanUpNowAndThen(pool: pg.Pool): void {
  const now = Date.now();
  if (now - (cleanedAt.get(pool) ?? 0) < cleanEveryMs) return;
  cleanedAt.set(pool, now);
  // nobody waits for it: a failed clean-up is tried again a minute later
  void query(pool, 'DeleteEndedAttemptWindows', 'delete from attempt_counts where window_end <= now()').catch(
    () => undefined,
  );
}

/**
 * Ended windows nobody counts under again (a quiet service does not clean up as it counts): at most `batch` of them, on
 * the database's clock, rows locked by a count skipped. For the retention's pass (src/background/retention.ts).
 */
export async function pruneEndedAttemptWindows(pool: pg.Pool, batch: number): Promise<number> {
  const r = await query(
    pool,
    'PruneEndedAttemptWindows',
    `delete from attempt_counts where key in (
       select key from attempt_counts where window_end <= now() order by window_end limit $1 for update skip locked)`,
    [batch],
  );
  return r.rowCount ?? 0;
}

/**
 * Counts one attempt under `key` in one statement: a window that ended starts again at 1 with this attempt, else its
 * count goes up by one. The row is locked by the update, so concurrent attempts from any instance count one by one.
 */
export async function countAttempt(pool: pg.Pool, key: string, windowMs: number): Promise<AttemptWindow> {
  await ensureAttemptCounts(pool);
  cleanUpNowAndThen(pool);
  const r = await preparedQuery<{ count: number; ttl_ms: number }>(
    pool,
    'CountAttempt',
    `insert into attempt_counts as a (key, window_start, window_end, count)
     values ($1, now(), now() + $2::float8 * interval '1 millisecond', 1)
     on conflict (key) do update set
       count = case when a.window_end <= now() then 1 else a.count + 1 end,
       window_start = case when a.window_end <= now() then excluded.window_start else a.window_start end,
       window_end = case when a.window_end <= now() then excluded.window_end else a.window_end end
     returning count, ceil(extract(epoch from window_end - now()) * 1000)::float8 as ttl_ms`,
    [storedKey(key), windowMs],
  );
  const row = r.rows[0]!;
  return { count: row.count, ttlMs: Math.max(row.ttl_ms, 0) };
}

/** The window of `key` as it stands, without counting an attempt. */
export async function readAttempts(pool: pg.Pool, key: string): Promise<AttemptWindow> {
  await ensureAttemptCounts(pool);
  const r = await preparedQuery<{ count: number; ttl_ms: number }>(
    pool,
    'ReadAttempts',
    `select count, ceil(extract(epoch from window_end - now()) * 1000)::float8 as ttl_ms
       from attempt_counts where key = $1 and window_end > now()`,
    [storedKey(key)],
  );
  const row = r.rows[0];
  return row ? { count: row.count, ttlMs: Math.max(row.ttl_ms, 0) } : { count: 0, ttlMs: 0 };
}

/** How wrong passwords slow one account down: free attempts, the cap of the doubling delay, and how long a streak is kept. */
export type SlowDown = { after: number; maxSeconds: number; windowMs: number };

/**
 * Takes an attempt under a slow-down `key` in one statement, or answers how long it is held back. The row counts the
 * attempts let through since the streak began (a success forgets it: forgetAttempts); its window starts again at each
 * one, so a streak ends `windowMs` after its last attempt. Once `after` attempts are counted, the next one waits
 * 1 s after the last, then 2 s, 4 s... up to `maxSeconds`. The row is locked while decided, so attempts from every
 * instance at once are let through one by one. Answers the milliseconds to wait, 0 when this attempt was taken.
 */
export async function takeSlowedAttempt(pool: pg.Pool, key: string, slowDown: SlowDown): Promise<number> {
  await ensureAttemptCounts(pool);
  cleanUpNowAndThen(pool);
  const r = await preparedQuery<{ wait_ms: number }>(
    pool,
    'TakeSlowedAttempt',
    `with before as (
       select count, window_start from attempt_counts where key = $1 and window_end > now() for update
     ), held as (
       -- the exponent is capped before power(): a streak of thousands must not overflow a double
       select ceil(extract(epoch from window_start
                + least(power(2, least(count - $3::int, 30)), $4::float8) * interval '1 second' - now()) * 1000)::float8
                as wait_ms
         from before where count >= $3::int
     ), taken as (
       insert into attempt_counts as a (key, window_start, window_end, count)
       values ($1, now(), now() + $2::float8 * interval '1 millisecond', 1)
       on conflict (key) do update set
         count = case when a.window_end <= now() then 1 else a.count + 1 end,
         window_start = now(),
         window_end = excluded.window_end
       where not exists (select 1 from held where wait_ms > 0)
       returning count
     )
     select coalesce((select wait_ms from held where not exists (select 1 from taken)), 0)::float8 as wait_ms`,
    [storedKey(key), slowDown.windowMs, slowDown.after, slowDown.maxSeconds],
  );
  return Math.max(r.rows[0]!.wait_ms, 0);
}

/** Forgets the attempts counted under `key` (a slow-down's streak, ended by a success). */
export async function forgetAttempts(pool: pg.Pool, key: string): Promise<void> {
  await ensureAttemptCounts(pool);
  await preparedQuery(pool, 'ForgetAttempts', 'delete from attempt_counts where key = $1', [storedKey(key)]);
}

/** What @fastify/rate-limit hands a child store: the route's options, with the route when made for one. */
type ChildOptions = { routeInfo?: { method?: unknown; url?: unknown } };

class AttemptCountStore implements FastifyRateLimitStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly prefix: string,
  ) {}

  incr(
    key: string,
    callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
    timeWindow: number,
  ): void {
    countAttempt(this.pool, this.prefix + key, timeWindow).then(
      w => callback(null, { current: w.count, ttl: w.ttlMs }),
      (err: Error) => callback(err),
    );
  }

  /** Without counting: the limiter's `{ increment: false }`. */
  read(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void): void {
    readAttempts(this.pool, this.prefix + key).then(
      w => callback(null, { current: w.count, ttl: w.ttlMs }),
      (err: Error) => callback(err),
    );
  }

  child(routeOptions: unknown): FastifyRateLimitStore {
    const route = (routeOptions as ChildOptions).routeInfo;
    const forRoute = typeof route?.method === 'string' && typeof route.url === 'string';
    return new AttemptCountStore(this.pool, forRoute ? `route:${route.method} ${route.url}:` : this.prefix);
  }
}

/**
 * @fastify/rate-limit's store on the attempt_counts table (its `store` option), in place of its per-process store.
 * A route's limit (`config.rateLimit`) counts under its method and URL; a limiter made with createRateLimit counts
 * under the keys its key generator makes (attemptCounter names them: src/api/attempt-limits.ts).
 */
export function attemptCountStore(pool: pg.Pool): FastifyRateLimitStoreCtor {
  return class extends AttemptCountStore {
    constructor() {
      super(pool, '');
    }
  };
}
