import { createHash } from 'node:crypto';
import pg from 'pg';

// int8 (rupiah, counts, revisions) is read as a number: every value we store stays far below 2^53.
// Global positions are read as text and turned into bigint by the event store itself.
pg.types.setTypeParser(pg.types.builtins.INT8, v => Number(v));

export type Queryable = pg.Pool | pg.PoolClient | pg.Client;
export type Row = Record<string, unknown>;

/** One parameterised statement, named for logs and benchmarks. */
export type Statement = { name: string; sql: string; params: unknown[] };

/** Every SQL statement goes through here with a name, for logs, metrics and benchmarks. */
export async function query<R extends Row = Row>(
  db: Queryable,
  name: string,
  sql: string,
  params: unknown[] = [],
): Promise<pg.QueryResult<R>> {
  try {
    return await db.query<R>({ text: sql, values: params });
  } catch (err) {
    if (err instanceof Error) (err as Error & { queryName?: string }).queryName = name;
    throw err;
  }
}

/**
 * The same, sent as a named prepared statement: PostgreSQL parses and plans it once per connection instead of on
 * every call (on the append path that was more than half of the server's work). The prepared name carries a hash of
 * the text, so a query whose text varies (optional filters) gets one prepared statement per variant.
 * Not for text holding several statements, nor behind a transaction-mode connection pooler.
 */
export async function preparedQuery<R extends Row = Row>(
  db: Queryable,
  name: string,
  sql: string,
  params: unknown[] = [],
  types?: pg.CustomTypesConfig,
): Promise<pg.QueryResult<R>> {
  let prepared = preparedNames.get(sql);
  if (!prepared) {
    prepared = `${name}:${createHash('sha1').update(sql).digest('hex').slice(0, 12)}`;
    preparedNames.set(sql, prepared);
  }
  try {
    return await db.query<R>(
      types ? { name: prepared, text: sql, values: params, types } : { name: prepared, text: sql, values: params },
    );
  } catch (err) {
    if (err instanceof Error) (err as Error & { queryName?: string }).queryName = name;
    throw err;
  }
}

const preparedNames = new Map<string, string>();

/**
 * Type parsers that answer json columns as the text PostgreSQL sent, for a caller that parses them when (and if) it
 * needs them; selecting the json itself spares PostgreSQL a cast to text per value.
 */
export const jsonAsText: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.JSON
      ? (value: string) => value
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * How long a connection may stay idle in the pool before it is closed. A new one costs both sides: a backend forked,
 * the password exchange (SCRAM: thousands of hash rounds), the catalog caches warmed and every prepared statement
 * parsed and planned again; pg's default of 10 s made a service that paused between bursts pay that for its whole
 * pool at each burst. The pool still never holds more than its size (DATABASE_POOL_MAX).
 */
const idleConnectionMs = 10 * 60_000;

export function createPool(connectionString: string, max = 10): pg.Pool {
  // a database that does not answer at all (not merely refusing) fails a call in 10 s instead of holding it for ever
  const pool = new pg.Pool({
    connectionString,
    max,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: idleConnectionMs,
  });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => undefined);
  // Nor one checked out (the pool listens only to idle ones): a client that loses its connection between two queries
  // of a transaction (the server killed meanwhile) emits 'error' with nobody listening, which would end the process;
  // its next query fails instead, as a database that is unavailable.
  pool.on('connect', client => client.on('error', () => undefined));
  return pool;
}

export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  begin = 'BEGIN',
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** Reads in one snapshot: every statement of `work` sees the database as it was at its first, whatever commits meanwhile. */
export const inSnapshot = <T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> =>
  inTransaction(pool, work, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');

export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

// SQLSTATE classes and codes that mean the server is gone or not taking connections, not that a statement was wrong
const unavailableCodes = new Set(['57P01', '57P02', '57P03', '53300']);
const unavailableErrnos = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
]);
const unavailableMessages =
  /Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Cannot use a pool after calling end|Client was closed|connection is closed|terminating connection|ECONNREFUSED|ECONNRESET|the database system is (starting up|shutting down|in recovery mode)/i;

/** The database cannot be reached (down, restarting, refusing connections): worth waiting for, not a bug. */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const { code } = err as { code?: unknown };
  if (typeof code === 'string' && (code.startsWith('08') || unavailableCodes.has(code) || unavailableErrnos.has(code)))
    return true;
  if (err instanceof AggregateError) return err.errors.some(isDatabaseUnavailable);
  return unavailableMessages.test(err.message);
}
