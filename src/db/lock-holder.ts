import pg from 'pg';
import { query } from './pool.ts';

/**
 * The session advisory locks of every subscriber of this process (projections, sagas, the audit's pass), held
 * on one dedicated connection outside the pool: an instance spends one connection on its locks, not one per subscriber.
 * A subscriber tries its lock now and then while it stands by and keeps it while it leads; when the connection drops,
 * PostgreSQL frees every lock on it, and each subscriber that held one is told so that it stops reading.
 */
export class SubscriberLocks {
  private client: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;
  /** The locks held on the current connection, each with whom to tell when the connection drops. */
  private readonly held = new Map<string, (err: unknown) => void>();
  /** Names whose try is in flight: session locks are re-entrant, so two subscribers of one name must not both try. */
  private readonly trying = new Set<string>();
  /** The statements on the connection, one after another (pg no longer queues them itself). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly config: pg.ClientConfig) {}

  /** The lock of `name` if nobody holds it (here or elsewhere); `lost` is told if the connection drops while it is held. */
  async tryLock(name: string, lost: (err: unknown) => void): Promise<boolean> {
    if (this.held.has(name) || this.trying.has(name)) return false; // another subscriber of this process by that name
    this.trying.add(name);
    try {
      const client = await this.connection();
      const result = await this.inTurn(() =>
        query<{ locked: boolean }>(client, 'TrySubscriberLock', `select pg_try_advisory_lock(${lockKey}) as locked`, [
          name,
        ]),
      );
      if (!result.rows[0]!.locked) return false;
      if (client !== this.client) throw new Error("the connection holding the subscribers' locks was lost"); // the lock with it
      this.held.set(name, lost);
      return true;
    } finally {
      this.trying.delete(name);
    }
  }

  /** Frees the lock of `name`; nothing to do when the connection that held it is gone already. */
  async unlock(name: string): Promise<void> {
    if (!this.held.delete(name)) return;
    const client = this.client;
    if (!client) return;
    // a connection that cannot unlock is broken: closing it frees the lock too (and tells the other holders)
    await this.inTurn(() =>
      query(client, 'ReleaseSubscriberLock', `select pg_advisory_unlock(${lockKey})`, [name]),
    ).catch(err => this.drop(client, err));
  }

  /** The server process of the connection holding the locks (tests and operators find it in pg_locks), null when none. */
  async backendPid(): Promise<number | null> {
    const client = this.client;
    if (!client) return null;
    return (
      await this.inTurn(() => query<{ pid: number }>(client, 'SubscriberLocksPid', 'select pg_backend_pid() as pid'))
    ).rows[0]!.pid;
  }

  private inTurn<T>(statement: () => Promise<T>): Promise<T> {
    const result = this.queue.then(statement);
    this.queue = result.catch(() => undefined);
    return result;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.held.clear();
    await this.connecting?.catch(() => undefined);
    await client?.end().catch(() => undefined);
  }

  private connection(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    return (this.connecting ??= this.connect().finally(() => (this.connecting = null)));
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client(this.config);
    client.on('error', err => this.drop(client, err));
    client.on('end', () => this.drop(client, new Error("the connection holding the subscribers' locks ended")));
    await client.connect();
    this.client = client;
    return client;
  }

  /** The connection is gone, and every lock with it: each subscriber that held one stops leading. */
  private drop(client: pg.Client, err: unknown): void {
    if (this.client !== client) return;
    this.client = null;
    void client.end().catch(() => undefined);
    const lost = [...this.held.values()];
    this.held.clear();
    for (const tell of lost) tell(err);
  }
}

/** The lock's key: the same as before the locks shared a session, so instances of either version exclude each other. */
const lockKey = `hashtextextended('subscriber:' || $1, 0)`;

/** A dedicated connection to the pool's database, named in pg_stat_activity. */
export function dedicatedConnection(pool: pg.Pool, applicationName: string): pg.ClientConfig {
  const { connectionString, host, port, user, password, database, ssl, connectionTimeoutMillis } = pool.options;
  return {
    connectionString,
    host,
    port,
    user,
    password,
    database,
    ssl,
    connectionTimeoutMillis,
    keepAlive: true,
    application_name: applicationName,
  };
}

/**
 * One thing per pool, shared by the subscribers that use it: made by the first, closed when the last lets go. Subscribers
 * are made where the pool is (src/background/work.ts, tests), so they find their shared sessions through it.
 */
export function sharedPerPool<T extends { close(): Promise<void> }>(make: (pool: pg.Pool) => T) {
  const shared = new WeakMap<pg.Pool, { value: T; users: number }>();
  return {
    acquire(pool: pg.Pool): T {
      const entry = shared.get(pool) ?? { value: make(pool), users: 0 };
      entry.users++;
      shared.set(pool, entry);
      return entry.value;
    },
    async release(pool: pg.Pool): Promise<void> {
      const entry = shared.get(pool);
      if (!entry || --entry.users > 0) return;
      shared.delete(pool);
      await entry.value.close();
    },
    peek: (pool: pg.Pool): T | null => shared.get(pool)?.value ?? null,
  };
}

/** The lock holder of each pool's subscribers. */
export const subscriberLocks = sharedPerPool(
  pool => new SubscriberLocks(dedicatedConnection(pool, 'payments:subscriber-locks')),
);
