import pg from 'pg';
import { comparePositions, type Position } from '../store/event-store.ts';
import { dedicatedConnection, sharedPerPool } from './lock-holder.ts';
import { query } from './pool.ts';

/**
 * How a process that waits for a subscriber another process leads learns that it got there, without polling the
 * checkpoint (which a subscriber that events pass by stores only about once a second). The waiter says on
 * `subscriber_waits` which position it waits for; the leading process answers on `subscriber_positions` with the
 * position it has reached (in memory, every write before it committed) once that is as far, and only then: nobody
 * waiting, nothing sent. Every process LISTENs to both on one dedicated connection, which reconnects when it drops.
 * A waiter repeats its wish now and then (a leader taking over, or a wish sent while a connection was down) and reads
 * the stored checkpoint with it, so a wait still ends when nobody leads and the checkpoint is there.
 * The same connection hears `read_model_changes`: a read model naming a row that changed (a payment that ended), for
 * whoever watches that row in this process (the payment page's event streams) — one listener per process, whatever
 * the number of watchers.
 */
export class CheckpointNotifications {
  private client: pg.Client | null = null;
  private listening: Promise<void> | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private failures = 0;
  private closed = false;
  /** Who waits here for a subscriber led elsewhere. */
  private readonly waiters = new Map<string, Set<Waiter>>();
  /** The subscribers this process leads, with the positions waited for elsewhere that they have not reached yet. */
  private readonly leaders = new Map<string, Leader>();
  /** Who watches here for a change of a read model's row, by `name key`. */
  private readonly watchers = new Map<string, Set<() => void>>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly config: pg.ClientConfig,
    private readonly timing = { rewantMs: 500 },
  ) {}

  /** Listens from now on, not from the first wait: the first waiter need not wait for the connection. */
  open(): void {
    void this.listen().catch(() => undefined); // the waiters try again
  }

  /**
   * This process leads `name`, which has reached `position()` (every write up to it committed, null while it does not
   * read): a process waiting for a position up to there is told so, at once or when `moved()` says it got there.
   */
  lead(name: string, position: () => Position | null): Leading {
    const leader: Leader = { position, wanted: [] };
    this.leaders.set(name, leader);
    this.open();
    return {
      moved: () => this.answer(name, leader),
      stop: () => {
        if (this.leaders.get(name) === leader) this.leaders.delete(name);
      },
    };
  }

  private wanted(name: string, position: Position): void {
    const leader = this.leaders.get(name);
    if (!leader || leader.wanted.some(p => comparePositions(p, position) === 0)) return; // asked again
    // a position never delivered (another program's event) is asked for until its waiter times out: keep the newest
    if (leader.wanted.length >= maxWanted) leader.wanted.shift();
    leader.wanted.push(position);
    this.answer(name, leader);
  }

  /** One NOTIFY for all the waits a move satisfies; nothing while nobody waits. */
  private answer(name: string, leader: Leader): void {
    const position = leader.position();
    if (!position || leader.wanted.length === 0) return;
    const waiting = leader.wanted.filter(p => comparePositions(p, position) > 0);
    if (waiting.length === leader.wanted.length) return;
    leader.wanted = waiting;
    query(this.pool, 'NotifySubscriberPosition', `select pg_notify('${positionsChannel}', $1)`, [
      payload(name, position),
    ]).catch(() => undefined); // asked again
  }

  /**
   * Calls `changed` whenever the read model `name` says its row `key` changed, and once more each time the connection
   * is made again (a change may have been said while it was down); answers how to stop watching. The watcher looks at
   * the row itself: a call says only that it may have changed.
   */
  watch(name: string, key: string, changed: () => void): () => void {
    const id = payloadOfChange(name, key);
    const watching = this.watchers.get(id) ?? new Set<() => void>();
    this.watchers.set(id, watching);
    watching.add(changed);
    this.open();
    return () => {
      watching.delete(changed);
      if (watching.size === 0 && this.watchers.get(id) === watching) this.watchers.delete(id);
    };
  }

  /** Resolves once this process listens: a row read after it cannot change unheard. */
  ready(): Promise<void> {
    return this.listen();
  }

  /** Resolves true once the process leading `name` says it has reached `position` (or its checkpoint has); false on timeout. */
  wait(name: string, position: Position, timeoutMs: number): Promise<boolean> {
    return new Promise(resolve => {
      const waiter: Waiter = { position, done: ok => finish(ok) };
      const waiting = this.waiters.get(name) ?? new Set<Waiter>();
      this.waiters.set(name, waiting);
      waiting.add(waiter);
      let ended = false;
      let rewant: NodeJS.Timeout | null = null;
      const finish = (ok: boolean) => {
        if (ended) return;
        ended = true;
        clearTimeout(deadline);
        if (rewant) clearTimeout(rewant);
        waiting.delete(waiter);
        if (waiting.size === 0 && this.waiters.get(name) === waiting) this.waiters.delete(name);
        resolve(ok);
      };
      const deadline = setTimeout(() => finish(false), timeoutMs);
      const ask = async () => {
        try {
          await this.listen(); // before asking, so the answer is not missed
          if (ended) return;
          const checkpoint = await this.want(name, position);
          if (checkpoint && comparePositions(checkpoint, position) >= 0) finish(true);
        } catch {
          // the database is away: asked again below, until the deadline
        }
        if (!ended) rewant = setTimeout(() => void ask(), this.timing.rewantMs);
      };
      void ask();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = null;
    await this.listening?.catch(() => undefined);
    await client?.end().catch(() => undefined);
  }

  /** Says which position is waited for, and reads the stored checkpoint, in one round trip. */
  private async want(name: string, position: Position): Promise<Position | null> {
    const result = await query<{ commit_position: string | null; prepare_position: string | null }>(
      this.pool,
      'WantSubscriberPosition',
      `select pg_notify('${waitsChannel}', $1),
              (select commit_position::text from subscriber_checkpoints where name = $2) as commit_position,
              (select prepare_position::text from subscriber_checkpoints where name = $2) as prepare_position`,
      [payload(name, position), name],
    );
    const row = result.rows[0]!;
    return row.commit_position === null || row.prepare_position === null
      ? null
      : { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) };
  }

  /** The LISTEN connection, made on first use and again after it drops. */
  private listen(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('checkpoint notifications closed'));
    return (this.listening ??= this.connect().catch(err => {
      this.listening = null;
      throw err;
    }));
  }

  private async connect(): Promise<void> {
    const client = new pg.Client(this.config);
    client.on('error', () => this.dropped(client));
    client.on('end', () => this.dropped(client));
    client.on('notification', message => this.notified(message.channel, message.payload ?? ''));
    try {
      await client.connect();
      await client.query(`listen ${positionsChannel}; listen ${waitsChannel}; listen ${changesChannel}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.failures = 0;
    // a change said while nobody listened is not said again: every watcher looks once more
    for (const watching of [...this.watchers.values()]) for (const changed of [...watching]) changed();
  }

  /** Listens again shortly: 1 s, then longer, at most 5 s between attempts; the waiters ask again meanwhile. */
  private dropped(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    this.listening = null;
    void client.end().catch(() => undefined);
    if (this.closed || this.reconnectTimer) return;
    const retry = () => {
      this.reconnectTimer = null;
      if (this.closed || this.listening) return;
      this.listen().catch(() => {
        this.failures++;
        this.reconnectTimer = setTimeout(retry, Math.min(1000 * this.failures, 5000));
      });
    };
    this.reconnectTimer = setTimeout(retry, 1000);
  }

  private notified(channel: string, text: string): void {
    if (channel === changesChannel) {
      for (const changed of [...(this.watchers.get(text) ?? [])]) changed();
      return;
    }
    const parsed = parsePayload(text);
    if (!parsed) return;
    if (channel === waitsChannel) {
      this.wanted(parsed.name, parsed.position);
      return;
    }
    for (const waiter of [...(this.waiters.get(parsed.name) ?? [])])
      if (comparePositions(parsed.position, waiter.position) >= 0) waiter.done(true);
  }
}

type Waiter = { position: Position; done(ok: boolean): void };
type Leader = { position(): Position | null; wanted: Position[] };
export type Leading = { moved(): void; stop(): void };

/** Positions waited for elsewhere that a leading subscriber keeps in mind at most. */
const maxWanted = 1000;

const positionsChannel = 'subscriber_positions';
const waitsChannel = 'subscriber_waits';
const changesChannel = 'read_model_changes';

/** `name key`: a read model's name (no space in it) and the key of its row. */
const payloadOfChange = (name: string, key: string) => `${name} ${key}`;

/**
 * Says that these rows of the read model `name` changed, to every process watching them (one statement, after the
 * change committed, so that a watcher reading the row sees it). Best effort: a watcher also looks by other means.
 */
export async function announceChanges(pool: pg.Pool, name: string, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await query(
    pool,
    'NotifyReadModelChanges',
    `select pg_notify('${changesChannel}', $1 || ' ' || k) from unnest($2::text[]) k`,
    [name, [...new Set(keys)]],
  );
}

/** `commit/prepare name`: the name last, since it may hold anything but a newline. */
const payload = (name: string, p: Position) => `${p.commit}/${p.prepare} ${name}`;

function parsePayload(text: string): { name: string; position: Position } | null {
  const match = /^(-?\d+)\/(-?\d+) (.+)$/s.exec(text);
  return match ? { name: match[3]!, position: { commit: BigInt(match[1]!), prepare: BigInt(match[2]!) } } : null;
}

/** The notifications of each pool's subscribers: one LISTEN connection per process. */
export const checkpointNotifications = sharedPerPool(
  pool => new CheckpointNotifications(pool, dedicatedConnection(pool, 'payments:subscriber-positions')),
);
