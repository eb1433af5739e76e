import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { query, type Queryable } from '../db/pool.ts';
import type { AnyEvent } from '../events/all.ts';
import { parseRecorded, type StoredEvent } from '../events/event.ts';
import { comparePositions, START, type EventStore, type Position, type RecordedEvent } from '../store/event-store.ts';
import { positionText } from '../store/subscriber.ts';
import { findSubscriberFailure } from '../store/subscriber-failures.ts';
import { readCheckpoint } from '../store/checkpoints.ts';
import { applyEvents, handlesType, type Projection } from './projection.ts';

/**
 * What verify-read-models and rebuild-read-models share: a replay of history into a private schema of its own
 * (`verify_…`, `rebuild_…`), on a connection whose search_path points there, so that a projection's own DDL and
 * apply() build fresh tables beside the live ones while the service keeps serving from those.
 */

export const checkpointName = (p: Projection) => `projection:${p.name}`;

export const parsed = (events: RecordedEvent[]) =>
  events.map(parseRecorded).filter((e): e is StoredEvent => e !== null) as StoredEvent<AnyEvent>[];

/** How long a replay waits for something before giving up, and where it says what it waits for. */
export type Patience = { timeoutMs: number; waiting(what: string): void };
export const defaultPatience: Patience = { timeoutMs: 60_000, waiting: () => undefined };

/** A wait ran out of patience: the CLI says so and exits 2. */
export class GaveUpWaiting extends Error {}

export const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

/** A replay's own schema on a connection of its own; close() drops it and discards the connection (its search_path is changed). */
export class PrivateSchema {
  private constructor(
    readonly client: pg.PoolClient,
    readonly name: string,
  ) {}

  static async open(pool: pg.Pool, purpose: 'verify' | 'rebuild'): Promise<PrivateSchema> {
    const name = `${purpose}_${randomBytes(6).toString('hex')}`;
    const client = await pool.connect();
    try {
      await query(client, 'CreateReplaySchema', `create schema ${name}`);
      // only this schema: an apply() that strays outside its own tables fails instead of writing live ones
      await query(client, 'SetReplaySearchPath', `set search_path to ${name}`);
    } catch (err) {
      client.release(true);
      throw err;
    }
    return new PrivateSchema(client, name);
  }

  async close(): Promise<void> {
    await query(this.client, 'DropReplaySchema', `drop schema if exists ${this.name} cascade`).catch(() => undefined);
    // a rebuild's retired live tables, should their drop after the swap have failed
    await query(this.client, 'DropRetiredSchema', `drop schema if exists ${this.name}_retired cascade`).catch(
      () => undefined,
    );
    this.client.release(true);
  }
}

/** One projection replayed into a private schema: its position in "all" is kept here, not in subscriber_checkpoints. */
export class SchemaReplay {
  position: Position = START;
  applied = 0;

  constructor(
    private readonly schema: PrivateSchema,
    private readonly store: EventStore,
    readonly projection: Projection,
  ) {}

  async createTables(): Promise<void> {
    for (const [i, step] of this.projection.schema.entries())
      await query(this.schema.client, `CreateReadModel:${this.projection.name}:${i + 1}`, step);
  }

  /**
   * Applies the events after its position up to `target` (a position of an event): each batch in a transaction of its
   * own unless `inOpenTransaction` (a long one would hold every reader of "all" back). Events up to the target that are
   * not final yet (an older transaction still open) are waited for. Answers how many events it applied.
   */
  async replayTo(target: Position, patience: Patience, inOpenTransaction = false): Promise<number> {
    const db = this.schema.client;
    let count = 0;
    let waitedMs = 0;
    let said = false;
    while (comparePositions(this.position, target) < 0) {
      const read = await this.store.readAll(this.position, 1000);
      const batch = read.filter(e => comparePositions(e.position, target) <= 0);
      if (batch.length > 0) {
        if (!inOpenTransaction) await query(db, 'BeginReplayBatch', 'begin');
        try {
          // the types it handles only, as live (src/projections/runner.ts): a rebuild gives the rows the live run gives
          await applyEvents(db, this.projection, parsed(batch.filter(e => handlesType(this.projection, e.type))));
          if (!inOpenTransaction) await query(db, 'CommitReplayBatch', 'commit');
        } catch (err) {
          if (!inOpenTransaction) await query(db, 'RollbackReplayBatch', 'rollback').catch(() => undefined);
          throw err;
        }
        this.position = batch[batch.length - 1]!.position;
        count += batch.length;
      }
      if (batch.length < read.length) break; // read past the target: every event up to it is applied
      if (read.length > 0) continue;
      if (waitedMs >= patience.timeoutMs)
        throw new GaveUpWaiting(
          `gave up after ${patience.timeoutMs / 1000} s waiting for the events up to ${positionText(target)} to be committed`,
        );
      if (!said && waitedMs >= 1000) {
        said = true;
        patience.waiting(
          `older transactions to commit before the events up to ${positionText(target)} can be read (${this.projection.name})`,
        );
      }
      await sleep(50);
      waitedMs += 50;
    }
    this.applied += count;
    return count;
  }
}

/** Whether a live instance of this projection, in any process, holds its subscriber's advisory lock (looked up in pg_locks, neither taken nor waited for). */
export async function liveLockHeld(db: Queryable, projection: Projection): Promise<boolean> {
  const held = await query<{ held: boolean }>(
    db,
    'FindSubscriberLock',
    `select exists (
       select 1 from pg_locks
       where locktype = 'advisory' and granted and objsubid = 1
         and database = (select oid from pg_database where datname = current_database())
         and ((classid::int8 << 32) | objid::int8) = hashtextextended('subscriber:' || $1, 0)) as held`,
    [checkpointName(projection)],
  );
  return held.rows[0]!.held;
}

/** A live instance leads this projection and moves it on: it holds the lock and is not stuck at an event. */
export async function isLedLive(db: Queryable, projection: Projection): Promise<boolean> {
  return (await liveLockHeld(db, projection)) && (await findSubscriberFailure(db, checkpointName(projection))) === null;
}

/**
 * Replays into `replay` behind the live projection's checkpoint as it moves, never past it, until a round finds little
 * left to do and (given a `head`) the checkpoint is at or past it. Waiting for the live checkpoint to move (the replay
 * caught up, the head not reached) counts against the patience.
 */
export async function followLive(
  db: Queryable,
  replay: SchemaReplay,
  head: Position | null,
  patience: Patience,
): Promise<Position> {
  let waitedMs = 0;
  let said = false;
  for (;;) {
    const live = await readCheckpoint(db, checkpointName(replay.projection));
    const applied = await replay.replayTo(live, patience);
    if ((head === null || comparePositions(live, head) >= 0) && applied < 1000) return live;
    if (applied > 0) continue;
    const target = positionText(head!);
    if (waitedMs >= patience.timeoutMs)
      throw new GaveUpWaiting(
        `gave up after ${patience.timeoutMs / 1000} s waiting for the live projection ${replay.projection.name} (at ${positionText(live)}) to reach ${target}`,
      );
    if (!said && waitedMs >= 1000) {
      said = true;
      patience.waiting(
        `the live projection ${replay.projection.name} (at ${positionText(live)}) to reach the head of the log read at the start, ${target}`,
      );
    }
    await sleep(50);
    waitedMs += 50;
  }
}
