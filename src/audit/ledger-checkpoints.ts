import { EventEmitter } from 'node:events';
import type pg from 'pg';
import type { Clock } from '../clock.ts';
import { checkpointMigration, migrate } from '../db/migrations.ts';
import { ledgerGuardMigration, registerLedgerKey } from '../db/ledger-guard.ts';
import { inTransaction, isDatabaseUnavailable, query } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import { readCheckpoint, saveCheckpoint } from '../store/checkpoints.ts';
import { clearSubscriberFailure } from '../store/subscriber-failures.ts';
import { comparePositions, type EventStore, type Position } from '../store/event-store.ts';
import { Leadership } from '../store/leadership.ts';
import type { SubscriberHealth } from '../store/subscriber.ts';
import { syncCheckpointFile } from './checkpoint-file.ts';
import { dailyDigestsMigration, digestPositionName, takeIntoDigests } from './digests.ts';
import {
  checkpointDue,
  checkpointEveryMs,
  cutCheckpoint,
  emptyChain,
  takeLeaves,
  type ChainState,
} from './ledger-chain.ts';
import type { LedgerCheckpoint } from './ledger-format.ts';
import type { LedgerSigner } from './ledger-key-file.ts';
import { LedgerHistoryGate } from './ledger-history-gate.ts';
import { ledgerIntegrityMigration } from './ledger-integrity.ts';
import { chainPositionName } from './ledger-self-check.ts';
import {
  ChainStateChanged,
  ledgerCheckpointsMigration,
  lockedState,
  newestLedgerCheckpoints,
  saveChain,
} from './ledger-checkpoint-rows.ts';
import { leafHasher } from './leaf-hashing.ts';
import { auditRead, readLogPage, type LeafKinds, type PageLeaves } from './log-leaves.ts';

const subscriberName = chainPositionName;

const noLeaves: PageLeaves = { hashes: new Uint8Array(0), digestHashes: new Uint8Array(0), runs: [] };

/**
 * How long the leader lets the log gather after catching up: nobody waits for a checkpoint (one a minute is due), so a
 * busy log is read in few, large pages instead of chased every few milliseconds (a waitFor cuts the pause short).
 */
const gatherMs = 2000;

/** Events per read of the log: a page is hashed off the event loop while the next one is read. */
const pageSize = 5000;

/** How often a standby looks whether it can lead. */
const standbyMs = 2000;

/** How often the leader looks whether the pending events are due for a checkpoint. */
const tickMs = 1000;

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

type Waiting = Extract<SubscriberHealth, { state: 'waiting' }>;

/**
 * The ledger's chain of signed checkpoints and the daily digests, in one pass: a reader of the whole log that
 * keeps the Merkle frontier of the events since the last checkpoint and signs a checkpoint of them at least once a
 * minute while events arrive and at each WIB day's end, and grows each WIB day's digest (src/audit/digests.ts), signed
 * when a later day begins. Checkpoints, chain state, digest rows and both positions (subscriber checkpoints) commit
 * together (exactly once); every checkpoint is then appended to a file outside the database (LEDGER_CHECKPOINT_DIR).
 * Across instances one leads as a subscriber does (src/store/leadership.ts), by the advisory locks of both subscribers'
 * names, so that an older version's digests subscriber and this never digest at once; the others stand by.
 */
export class LedgerCheckpoints {
  private timer: NodeJS.Timeout | null = null;
  /** When the pending events began, as this leader last wrote it: null for none, undefined when not known here. */
  private pendingSince: number | null | undefined = undefined;
  private looks = 0;
  private ticking: Promise<unknown> = Promise.resolve();
  private stopped = false;
  /**
   * The audit's two locks, held on the session of this process's subscribers' locks: an instance of an older version
   * (its chain, or its daily digests' subscriber) stands by for this one, and back. Both held: this process leads the
   * pass (once its history is checked, it signs).
   */
  private readonly leadership: Leadership;
  /** The history was checked under these locks: the leader reads and signs. */
  private signing = false;
  /**
   * The chain's state as this leader last wrote it (or proved it on taking the lead): the row is the service role's,
   * so it is held against this copy before anything is signed from it.
   */
  private written: ChainState = emptyChain;
  /** One transaction on the chain's state at a time here, so that `written` is the row's once each commits. */
  private writing: Promise<unknown> = Promise.resolve();
  /** The position of the last event chained, while leading. */
  private position: Position | null = null;
  /** The position of the last event digested, while leading: the chain's, but on a database from before the shared pass. */
  private digestPosition: Position | null = null;
  private digestsHeldElsewhere = false;
  private following: Promise<void> = Promise.resolve();
  private failure: Waiting | null = null;
  private waiters = 0;
  private resumeNow: () => void = () => undefined;
  private readonly progress = new EventEmitter();
  private readonly hasher = leafHasher();
  private readonly history: LedgerHistoryGate;

  constructor(
    private readonly deps: LedgerCheckpointsDeps,
    private readonly signer: LedgerSigner,
    private readonly fileDir: string,
  ) {
    this.progress.setMaxListeners(0);
    this.history = new LedgerHistoryGate(deps, {
      fileDir,
      keyId: () => signer.keyId,
      publicKey: () => signer.publicKey,
      leaves: page => this.hasher.leaves(page, { chain: true, digests: false }),
      stopSigning: reason => {
        if (this.leading) this.fail(new Error(reason));
      },
    });
    this.leadership = new Leadership({
      pool: deps.pool,
      names: [subscriberName, digestPositionName],
      standbyRetryMs: standbyMs,
      lead: () => this.lead(),
      stopLeading: () => this.stopReading(),
      failed: err => this.failed(err),
      retryDelayMs: () => Math.min(1000 * 2 ** (this.failure!.attempts - 1), 5000),
      looked: held => {
        const digestsHeldElsewhere = held.length === 1;
        if (digestsHeldElsewhere && !this.digestsHeldElsewhere)
          deps.log.info('ledger checkpoints stand by: an older instance digests the log; leading once it stops');
        this.digestsHeldElsewhere = digestsHeldElsewhere;
      },
    });
  }

  private get leading(): boolean {
    return this.leadership.holdsLocks && this.signing;
  }

  /** Holding both locks: checks the history, then reads on from where the chain stands. */
  private async lead(): Promise<void> {
    const { pool } = this.deps;
    try {
      // the key the chain is at, taken up from the key file after another instance (or a crash) rotated it
      await this.signer.follow?.(pool);
      // the log must still extend the newest checkpoint found (rows, file, published) before anything is signed
      const admission = await this.history.admission();
      if ('refusal' in admission) {
        this.refuse(admission.refusal);
        return;
      }
      // the state and position as proved from the rows and the log, never as read after
      this.written = admission.proven.chain;
      this.position = admission.proven.position;
      this.digestPosition = await readCheckpoint(pool, digestPositionName);
      // the digests' own subscriber (before the shared pass) may have recorded an event it was stuck at: read past now
      await clearSubscriberFailure(pool, digestPositionName);
    } catch (err) {
      this.fail(err);
      return;
    }
    this.signing = true;
    this.progress.emit('progress');
    this.following = this.follow();
  }

  /** Reads the log from where the chain stands, page after page, then lets it gather; until stopped or failed. */
  private async follow(): Promise<void> {
    try {
      while (this.leading && !this.stopped) {
        const more = await this.chainPages();
        if (this.failure) this.recovered();
        // someone waits for a position (events held back behind an open transaction): look again shortly
        if (!more && !this.stopped) await this.pause(this.waiters > 0 ? 10 : gatherMs);
      }
    } catch (err) {
      await this.stateChanged(err);
      this.fail(err);
    }
  }

  /** A change to the chain's state, seen under its lock, is held as a finding: nothing is signed until a reset. */
  private async stateChanged(err: unknown): Promise<void> {
    if (!(err instanceof ChainStateChanged)) return;
    await this.history
      .stateChanged(err.finding)
      .catch(e => this.deps.log.error({ err: e }, 'ledger checkpoints: the finding could not be recorded'));
  }

  private pause(ms: number): Promise<void> {
    return new Promise<void>(resolve => {
      const timer = setTimeout(done, ms);
      timer.unref();
      const self = this;
      function done() {
        clearTimeout(timer);
        self.resumeNow = () => undefined;
        resolve();
      }
      this.resumeNow = done;
    });
  }

  /**
   * Chains and digests the log up to where it is final now, a page at a time, each page read while the one before is
   * hashed; answers whether more may be there already (the last page was full, or one of the two caught up with the
   * other and both read on together).
   */
  private async chainPages(): Promise<boolean> {
    const { after, upTo, kinds } = auditRead(this.position!, this.digestPosition!);
    let page = await readLogPage(this.deps, after, pageSize, upTo);
    while (page.last && !this.stopped) {
      const hashing = this.hasher.leaves(page, kinds);
      const next = page.count === pageSize ? readLogPage(this.deps, page.last, pageSize, upTo) : null;
      next?.catch(() => undefined); // awaited below, or given up with this page's failure
      await this.takePage(page.last, await hashing, kinds);
      if (!next) break;
      page = await next;
    }
    if (this.stopped || !upTo) return page.count === pageSize;
    // caught up: events of the range that are gone from the log (verify-log names them) are not waited for
    if (comparePositions(kinds.chain ? this.position! : this.digestPosition!, upTo) < 0)
      await this.takePage(upTo, null, kinds);
    return true;
  }

  /** Takes a page's leaves (or none: the position alone moves) into the chain, the digests or both, in one transaction. */
  private async takePage(last: Position, leaves: PageLeaves | null, kinds: LeafKinds): Promise<void> {
    const [chained, digested] = [this.position!, this.digestPosition!];
    const taken = await this.serially(async () => {
      const chain = await inTransaction(this.deps.pool, tx => this.takeIn(tx, leaves, kinds, chained, digested, last));
      if (chain) this.written = chain.state;
      if (kinds.chain) this.position = last;
      return chain;
    });
    if (kinds.digests) this.digestPosition = last;
    this.progress.emit('progress');
    if (!taken) return;
    this.pendingSince = taken.state.since === null ? null : Date.parse(taken.state.since);
    if (taken.checkpoints.length > 0) await this.leaveTheServer(taken.checkpoints);
  }

  /** The page's transaction: the chain's state held against the one written, the leaves taken in, the positions moved. */
  private async takeIn(
    tx: pg.PoolClient,
    leaves: PageLeaves | null,
    kinds: LeafKinds,
    chained: Position,
    digested: Position,
    last: Position,
  ): Promise<ReturnType<typeof takeLeaves> | null> {
    // a page without a checkpoint is made again from the log after a crash, its digests too; one with a checkpoint
    // must be on disk before its line is written to the file
    let chain: ReturnType<typeof takeLeaves> | null = null;
    if (kinds.chain) {
      const before = await this.lockedState(tx, chained);
      chain = leaves ? takeLeaves(before, leaves, this.deps.clock.now(), this.signer) : null;
      if (chain) await saveChain(tx, chain.state, chain.checkpoints);
      await saveCheckpoint(tx, subscriberName, last);
    }
    if (!chain || chain.checkpoints.length === 0)
      await query(tx, 'LedgerAsyncCommit', 'set local synchronous_commit = off');
    if (kinds.digests) await takeIntoDigests(tx, this.signer, leaves ?? noLeaves, digested, last);
    return chain;
  }

  /**
   * The chain's state under its lock, once it is the one this leader wrote; only this leader moves the chain's
   * position, so one that moved from `chained` says this one lost its lock unnoticed and must not chain a range twice.
   */
  private lockedState(tx: pg.PoolClient, chained: Position): Promise<ChainState> {
    return lockedState(
      tx,
      this.written,
      async () => comparePositions(await readCheckpoint(tx, subscriberName), chained) !== 0,
    );
  }

  /** The page's and the minute's transactions, one after the other: each holds the row against `written` as it is now. */
  private serially<T>(work: () => Promise<T>): Promise<T> {
    const done = this.writing.then(work, work);
    this.writing = done.catch(() => undefined);
    return done;
  }

  /** Stops leading and tries again later: 1 s, then twice as long each time, at most 5 s. */
  private fail(err: unknown): void {
    this.leadership.fail(err);
  }

  private failed(err: unknown): void {
    const previous = this.failure;
    const attempts = previous ? previous.attempts + 1 : 1;
    this.failure = {
      state: 'waiting',
      error: err instanceof Error ? err.message : String(err),
      since: previous?.since ?? new Date(),
      attempts,
    };
    if (attempts === 1) {
      if (isDatabaseUnavailable(err))
        this.deps.log.debug({ subscriber: subscriberName }, 'ledger checkpoints wait for the database');
      else this.deps.log.warn({ err, subscriber: subscriberName }, 'ledger checkpoints failed; reading again shortly');
    }
    this.progress.emit('progress');
  }

  /** Stands by, saying why, and looks again shortly: the history gate decides how often it checks again. */
  private refuse(message: string): void {
    const previous = this.failure;
    this.failure = {
      state: 'waiting',
      error: message,
      since: previous?.since ?? new Date(),
      attempts: (previous?.attempts ?? 0) + 1,
    };
    this.progress.emit('progress');
    this.leadership.standBy(standbyMs);
  }

  private recovered(): void {
    this.deps.log.debug({ subscriber: subscriberName }, 'ledger checkpoints read again');
    this.failure = null;
  }

  /** Stops reading: the page in hand is committed first (the locks are freed after, by the leadership). */
  private async stopReading(): Promise<void> {
    this.resumeNow();
    this.signing = false;
    await this.following;
  }

  /** Cuts a checkpoint when the pending events are due (the leader only); answers it, or null. */
  async cutIfDue(): Promise<LedgerCheckpoint | null> {
    if (!this.leading) {
      this.pendingSince = undefined;
      return null;
    }
    const now = this.deps.clock.now();
    // the hint may lag a commit of the other path by a moment: every tenth look goes to the database anyway
    if (++this.looks % 10 === 0) this.pendingSince = undefined;
    if (
      this.pendingSince === null ||
      (this.pendingSince !== undefined && now.getTime() - this.pendingSince < checkpointEveryMs)
    )
      return null;
    let cut: { state: ChainState; checkpoint: LedgerCheckpoint | null };
    try {
      cut = await this.serially(() => this.cutNow(now));
    } catch (err) {
      // a commit that failed may have happened all the same: the next leadership proves the state again
      await this.stateChanged(err);
      this.fail(err);
      return null;
    }
    const { state, checkpoint } = cut;
    this.pendingSince = state.since === null ? null : Date.parse(state.since);
    if (checkpoint) await this.leaveTheServer([checkpoint]);
    return checkpoint;
  }

  /** Cuts the pending events if due, in a transaction of its own; `written` is the row's once it commits. */
  private async cutNow(now: Date): Promise<{ state: ChainState; checkpoint: LedgerCheckpoint | null }> {
    const cut = await inTransaction(this.deps.pool, async tx => {
      const pending = await this.lockedState(tx, this.position!);
      if (!checkpointDue(pending, now)) return { state: pending, checkpoint: null };
      const made = cutCheckpoint(pending, now, this.signer)!;
      await saveChain(tx, made.state, [made.checkpoint]);
      return made;
    });
    this.written = cut.state;
    return cut;
  }

  /** The file, then whoever else is sent checkpoints: after the commit, never holding it up. */
  private async leaveTheServer(checkpoints: LedgerCheckpoint[]): Promise<void> {
    this.signer.committed?.(checkpoints); // a rotation among them: the new key signs on
    await this.writeFile();
    this.history.published(checkpoints);
    try {
      await this.deps.published?.(checkpoints);
    } catch (err) {
      this.deps.log.error(
        { err, seq: checkpoints.map(c => c.seq) },
        'ledger checkpoints: sending them on failed; the next start sends the newest again',
      );
    }
  }

  private async writeFile(): Promise<void> {
    try {
      const { forks } = await syncCheckpointFile(this.deps.pool, this.fileDir);
      await this.history.forks(forks);
    } catch (err) {
      // the rows are committed; the next checkpoint or start writes the missing lines
      this.deps.log.error({ err, dir: this.fileDir }, 'ledger checkpoints: the checkpoint file could not be written');
    }
  }

  async start(): Promise<void> {
    // under the migrations' lock, as every start-up DDL (applied by the service's start already: one read then)
    await migrate(this.deps.pool, [
      checkpointMigration,
      dailyDigestsMigration,
      ledgerGuardMigration,
      ledgerCheckpointsMigration,
      ledgerIntegrityMigration,
    ]);
    // with DATABASE_URL the role may register it; in embedded mode the owner has (src/db/service-role.ts)
    await registerLedgerKey(this.deps.pool, this.signer, this.deps.log);
    await query(
      this.deps.pool,
      'CreateLedgerChainState',
      'insert into ledger_chain_state (state) values ($1) on conflict do nothing',
      [JSON.stringify(emptyChain)],
    );
    // lines and sends a crash kept from leaving after their commit
    await this.writeFile();
    const newest = this.deps.published ? await newestLedgerCheckpoints(this.deps.pool, republishedOnStart) : [];
    if (this.deps.published && newest.length > 0)
      await this.deps
        .published(newest)
        .catch(err => this.deps.log.error({ err }, 'ledger checkpoints: sending the newest again failed'));
    this.stopped = false;
    await this.leadership.start();
    this.timer = setInterval(() => {
      this.ticking = this.ticking
        .then(() => this.cutIfDue())
        .catch(err => this.deps.log.warn({ err }, 'ledger checkpoints: the minute checkpoint failed; trying again'));
      // the whole log verified once a day, by the leader alone
      if (this.leading) this.history.verifyIfDue();
    }, tickMs);
    this.timer.unref();
  }

  /** Finishes the page in hand (committed), then stops reading and frees the lead. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.leadership.halt();
    this.resumeNow();
    await this.following;
    await this.leadership.release();
    await this.ticking;
    await this.history.settle();
    await this.hasher.close();
    await this.leadership.close();
  }

  /**
   * Resolves once the chain and the digests have taken in every event up to `position` (cutting the leader's pause
   * short); false on timeout.
   */
  async waitFor(position: Position, timeoutMs = 5000): Promise<boolean> {
    const reached = () =>
      this.position !== null &&
      this.digestPosition !== null &&
      comparePositions(this.position, position) >= 0 &&
      comparePositions(this.digestPosition, position) >= 0;
    if (reached()) return true;
    if (!this.leading) return this.pollCheckpoint(position, timeoutMs);
    this.waiters++;
    this.resumeNow();
    try {
      return await new Promise<boolean>(resolve => {
        const timer = setTimeout(() => done(false), timeoutMs);
        const check = () => reached() && done(true);
        const done = (ok: boolean) => {
          clearTimeout(timer);
          this.progress.off('progress', check);
          resolve(ok);
        };
        this.progress.on('progress', check);
      });
    } finally {
      this.waiters--;
    }
  }

  /** Another process leads: watch the stored position instead. */
  private async pollCheckpoint(position: Position, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const [chained, digested] = await Promise.all(
        [subscriberName, digestPositionName].map(name => readCheckpoint(this.deps.pool, name)),
      );
      if (comparePositions(chained!, position) >= 0 && comparePositions(digested!, position) >= 0) return true;
      await new Promise(r => setTimeout(r, 20));
    }
    return false;
  }

  /** Runs the full verification of the log now, as the leader does once a day. */
  async verifyNow(): Promise<void> {
    await this.history.verifyNow();
  }

  health(): { subscriber: string; health: SubscriberHealth }[] {
    return [
      {
        subscriber: subscriberName,
        health: this.failure ?? (this.leading ? { state: 'leading' } : { state: 'standby' }),
      },
    ];
  }
}
