import type pg from 'pg';
import type { Clock } from '../clock.ts';
import { inTransaction, query, type Queryable } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import { checkpointSchema, readCheckpoint, saveCheckpoint } from '../store/checkpoints.ts';
import type { EventStore, Position, RecordedEvent } from '../store/event-store.ts';
import { Subscriber, type SubscriberHealth } from '../store/subscriber.ts';
import { syncCheckpointFile } from './checkpoint-file.ts';
import { chainState, checkpointDue, checkpointEveryMs, cutCheckpoint, emptyChain, takeEvents, type ChainSigner, type ChainState } from './ledger-chain.ts';
import { ledgerCheckpoint, type LedgerCheckpoint } from './ledger-format.ts';
import { wholeLogUpTo } from './stream-pages.ts';

/**
 * The signed checkpoints (seq, the checkpoint as its JSON line) and where the chain stands (one row). The service only
 * ever inserts checkpoints; the state row is its working memory, rebuilt by nobody but checked by `verify-log`.
 */
export const ledgerSchema = `
  create table if not exists ledger_checkpoints (
    seq bigint primary key,
    checkpoint json not null
  );
  create table if not exists ledger_chain_state (
    id boolean primary key default true check (id),
    state jsonb not null
  );`;

const subscriberName = 'ledger:checkpoints';

/** The pause after each batch, so a busy log is chained in few, large batches. */
const pauseMs = 500;

/** A batch this large means the log is ahead: no pause after it. */
const pauseBelow = 200;

/** How often the leader looks whether the pending events are due for a checkpoint. */
const tickMs = 1000;

/** A checkpoint as its JSON line: the keys in the format's order. */
export const checkpointLine = (c: LedgerCheckpoint): string =>
  JSON.stringify({ v: c.v, seq: c.seq, from: c.from, to: c.to, events: c.events, root: c.root, prev: c.prev, at: c.at, lastPosition: c.lastPosition, keyId: c.keyId, signature: c.signature });

/** Every stored checkpoint, in seq order (an older database without the table has none). */
export async function listLedgerCheckpoints(db: Queryable): Promise<LedgerCheckpoint[]> {
  if (!(await ledgerTableExists(db))) return [];
  const r = await query<{ checkpoint: unknown }>(db, 'ListLedgerCheckpoints', 'select checkpoint from ledger_checkpoints order by seq');
  return r.rows.map(row => ledgerCheckpoint.parse(row.checkpoint));
}

/** The newest `n` stored checkpoints, oldest first. */
export async function newestLedgerCheckpoints(db: Queryable, n: number): Promise<LedgerCheckpoint[]> {
  if (!(await ledgerTableExists(db))) return [];
  const r = await query<{ checkpoint: unknown }>(db, 'NewestLedgerCheckpoints', 'select checkpoint from ledger_checkpoints order by seq desc limit $1', [n]);
  return r.rows.map(row => ledgerCheckpoint.parse(row.checkpoint)).reverse();
}

/** The newest stored checkpoint, or null before the first. */
export async function latestLedgerCheckpoint(db: Queryable): Promise<LedgerCheckpoint | null> {
  return (await newestLedgerCheckpoints(db, 1))[0] ?? null;
}

async function ledgerTableExists(db: Queryable): Promise<boolean> {
  const r = await query<{ exists: boolean }>(db, 'LedgerTableExists', `select to_regclass('ledger_checkpoints') is not null as exists`);
  return r.rows[0]!.exists;
}

async function lockedState(tx: pg.PoolClient): Promise<ChainState> {
  const r = await query<{ state: unknown }>(tx, 'LockLedgerChainState', 'select state from ledger_chain_state where id for update');
  return r.rows[0] ? chainState.parse(r.rows[0].state) : emptyChain;
}

async function saveChain(tx: pg.PoolClient, state: ChainState, checkpoints: LedgerCheckpoint[]): Promise<void> {
  if (checkpoints.length > 0)
    await query(
      tx,
      'InsertLedgerCheckpoints',
      'insert into ledger_checkpoints (seq, checkpoint) select seq, line::json from unnest($1::bigint[], $2::text[]) as c(seq, line)',
      [checkpoints.map(c => c.seq), checkpoints.map(checkpointLine)],
    );
  await query(tx, 'SaveLedgerChainState', 'update ledger_chain_state set state = $1 where id', [JSON.stringify(state)]);
}

export type LedgerCheckpointsDeps = {
  pool: pg.Pool;
  store: EventStore;
  log: Logger;
  clock: Clock;
  /**
   * Sends checkpoints on after their commit (the `ledger.checkpoint` webhook); called again on start with the newest
   * few, in case a crash came between a commit and the send, so it must make a second send of one a no-op.
   */
  published?: (checkpoints: LedgerCheckpoint[]) => Promise<unknown>;
};

/** How many of the newest checkpoints are handed to `published` again on start. */
const republishedOnStart = 3;

/**
 * The ledger's chain of signed checkpoints (issue 24): a subscriber of the whole log that keeps the Merkle frontier of
 * the events since the last checkpoint and signs a checkpoint of them at least once a minute while events arrive and at
 * each WIB day's end. Checkpoints, chain state and the subscriber's checkpoint commit together (exactly once); every
 * checkpoint is then appended to a file outside the database (LEDGER_CHECKPOINT_DIR).
 */
export class LedgerCheckpoints {
  private readonly subscriber: Subscriber;
  private timer: NodeJS.Timeout | null = null;
  /** When the pending events began, as this leader last wrote it: null for none, undefined when not known here. */
  private pendingSince: number | null | undefined = undefined;
  private looks = 0;
  private ticking: Promise<unknown> = Promise.resolve();
  private resumeNow: () => void = () => undefined;

  constructor(
    private readonly deps: LedgerCheckpointsDeps,
    private readonly signer: ChainSigner,
    private readonly fileDir: string,
  ) {
    this.subscriber = new Subscriber({
      name: subscriberName,
      pool: deps.pool,
      store: deps.store,
      log: deps.log,
      handleBatch: async (events, last) => {
        await this.chainBatch(events, last);
        // nobody waits for a checkpoint: a pause lets a trickle gather, while a backlog is taken without one
        if (events.length >= pauseBelow) return true;
        await new Promise<void>(resolve => {
          this.resumeNow = resolve;
          setTimeout(resolve, pauseMs).unref();
        });
        return true;
      },
    });
  }

  private async chainBatch(given: RecordedEvent[], last: Position): Promise<void> {
    // this subscriber alone moves its checkpoint, always with its batch: it is where the batch begins
    const events = await wholeLogUpTo(this.deps, await readCheckpoint(this.deps.pool, subscriberName), last, given);
    const { state, checkpoints } = await inTransaction(this.deps.pool, async tx => {
      const before = await lockedState(tx);
      const { state, checkpoints } = takeEvents(before, events, this.deps.clock.now(), this.signer);
      // a batch without a checkpoint is made again from the log after a crash; one with a checkpoint must be on disk
      // before its line is written to the file
      if (checkpoints.length === 0) await query(tx, 'LedgerAsyncCommit', 'set local synchronous_commit = off');
      await saveChain(tx, state, checkpoints);
      await saveCheckpoint(tx, subscriberName, last);
      return { state, checkpoints };
    });
    this.pendingSince = state.since === null ? null : Date.parse(state.since);
    if (checkpoints.length > 0) await this.leaveTheServer(checkpoints);
  }

  /** Cuts a checkpoint when the pending events are due (the leader only); answers it, or null. */
  async cutIfDue(): Promise<LedgerCheckpoint | null> {
    if (!this.subscriber.isActive) {
      this.pendingSince = undefined;
      return null;
    }
    const now = this.deps.clock.now();
    // the hint may lag a commit of the other path by a moment: every tenth look goes to the database anyway
    if (++this.looks % 10 === 0) this.pendingSince = undefined;
    if (this.pendingSince === null || (this.pendingSince !== undefined && now.getTime() - this.pendingSince < checkpointEveryMs)) return null;
    const { state, checkpoint } = await inTransaction(this.deps.pool, async tx => {
      const pending = await lockedState(tx);
      if (!checkpointDue(pending, now)) return { state: pending, checkpoint: null };
      const cut = cutCheckpoint(pending, now, this.signer)!;
      await saveChain(tx, cut.state, [cut.checkpoint]);
      return cut;
    });
    this.pendingSince = state.since === null ? null : Date.parse(state.since);
    if (checkpoint) await this.leaveTheServer([checkpoint]);
    return checkpoint;
  }

  /** The file, then whoever else is sent checkpoints: after the commit, never holding it up. */
  private async leaveTheServer(checkpoints: LedgerCheckpoint[]): Promise<void> {
    await this.writeFile();
    try {
      await this.deps.published?.(checkpoints);
    } catch (err) {
      this.deps.log.error({ err, seq: checkpoints.map(c => c.seq) }, 'ledger checkpoints: sending them on failed; the next start sends the newest again');
    }
  }

  private async writeFile(): Promise<void> {
    try {
      await syncCheckpointFile(this.deps.pool, this.fileDir);
    } catch (err) {
      // the rows are committed; the next checkpoint or start writes the missing lines
      this.deps.log.error({ err, dir: this.fileDir }, 'ledger checkpoints: the checkpoint file could not be written');
    }
  }

  async start(): Promise<void> {
    await query(this.deps.pool, 'CreateCheckpointTable', checkpointSchema);
    await query(this.deps.pool, 'CreateLedgerCheckpoints', ledgerSchema);
    // append-only like the log (src/store/postgres-schema.ts), where the event store defines the guard
    await query(
      this.deps.pool,
      'ProtectLedgerCheckpoints',
      `select es_protect_append_only('ledger_checkpoints'::regclass)
        where to_regproc('es_protect_append_only') is not null
          and not exists (select 1 from pg_trigger where tgrelid = 'ledger_checkpoints'::regclass and tgname = 'es_append_only')`,
    );
    await query(this.deps.pool, 'CreateLedgerChainState', 'insert into ledger_chain_state (state) values ($1) on conflict do nothing', [JSON.stringify(emptyChain)]);
    // lines and sends a crash kept from leaving after their commit
    await this.writeFile();
    const newest = this.deps.published ? await newestLedgerCheckpoints(this.deps.pool, republishedOnStart) : [];
    if (this.deps.published && newest.length > 0) await this.deps.published(newest).catch(err => this.deps.log.error({ err }, 'ledger checkpoints: sending the newest again failed'));
    await this.subscriber.start();
    this.timer = setInterval(() => {
      this.ticking = this.ticking.then(() => this.cutIfDue()).catch(err => this.deps.log.warn({ err }, 'ledger checkpoints: the minute checkpoint failed; trying again'));
    }, tickMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const stopping = this.subscriber.stop();
    this.resumeNow();
    await stopping;
    await this.ticking;
  }

  waitFor(position: Position, timeoutMs?: number): Promise<boolean> {
    return this.subscriber.waitFor(position, timeoutMs);
  }

  health(): { subscriber: string; health: SubscriberHealth }[] {
    return [{ subscriber: subscriberName, health: this.subscriber.health }];
  }
}
