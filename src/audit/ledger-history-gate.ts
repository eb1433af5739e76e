import type pg from 'pg';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { EventStore } from '../store/event-store.ts';
import type { FileFork } from './checkpoint-file.ts';
import { nextVerificationAt, verifyOwnLog } from './daily-verification.ts';
import type { LedgerCheckpoint } from './ledger-format.ts';
import { ledgerIntegrity } from './ledger-integrity.ts';
import { checkOwnHistory, continueFrom, latestReset, resetAccepts, resetInForce } from './ledger-self-check.ts';
import type { LogPage, PageLeaves } from './log-leaves.ts';

/** A refused history is checked again this often (a check reads the newest checkpoint's range: up to a day of events). */
const recheckMs = 60_000;

const startUpCheck = 'start-up check';
const checkpointFile = 'checkpoint file';

const short = (hash: string) => `${hash.slice(0, 16)}…`;

export type HistoryGateDeps = { pool: pg.Pool; store: EventStore; log: Logger; clock: Clock };

/**
 * What the chain's leader must see before it signs, and what it tells of its history: the start-up check
 * (src/audit/ledger-self-check.ts) at each start and new leadership, passed or accepted by the operator's reset; the
 * forks the checkpoint file was given; the daily full verification. Findings go to the ledger's integrity holder
 * (src/audit/ledger-integrity.ts), which /ready reads and which sends them to the admins.
 */
export class LedgerHistoryGate {
  /** The last checkpoint this process sent out: a database rolled back under it no longer holds it. */
  private lastPublished: LedgerCheckpoint | null = null;
  private refused: { resetId: string | null; at: number; message: string } | null = null;
  private forkFindings: string[] = [];
  private nextVerification: Date | null = null;
  private verifying: Promise<void> | null = null;

  constructor(
    private readonly deps: HistoryGateDeps,
    private readonly options: {
      fileDir: string;
      /** the signer's key now (a rotation changes it) */
      keyId: () => string;
      /** the key the daily verification checks signatures with when the chain's first key is not registered */
      publicKey: () => string;
      leaves: (page: LogPage) => Promise<PageLeaves>;
    },
  ) {}

  private get integrity() {
    return ledgerIntegrity(this.deps.pool);
  }

  /**
   * Null when the leader may sign: the log extends every checkpoint it can find, or the operator's latest reset accepts
   * every finding (then the chain's state starts again from the rows' newest checkpoint if it does not hold); else why not.
   */
  async refusal(): Promise<string | null> {
    const { pool, store, log } = this.deps;
    const reset = await latestReset(store);
    const resetId = reset?.resetId ?? null;
    if (this.refused && this.refused.resetId === resetId && Date.now() - this.refused.at < recheckMs)
      return this.refused.message;
    const check = await checkOwnHistory(
      { pool, store, leaves: this.options.leaves },
      { fileDir: this.options.fileDir, keyId: this.options.keyId(), published: this.lastPublished },
    );
    if (check.findings.length === 0) {
      this.refused = null;
      await this.integrity.report(startUpCheck, []);
      return null;
    }
    if (await resetAccepts(pool, reset, check.findings)) {
      if (this.refused || !check.stateSound)
        log.warn(
          { findings: check.findings, reason: reset!.reason },
          'ledger checkpoints: signing again, on from the newest checkpoint row, as the operator reset',
        );
      this.refused = null;
      await this.integrity.report(startUpCheck, check.findings, true);
      this.forkFindings = [];
      await this.integrity.report(checkpointFile, []);
      if (!check.stateSound) await continueFrom(pool, check.newest, check.day);
      return null;
    }
    const message = `ledger checkpoints: the log does not extend the newest checkpoint: ${check.findings.join('; ')}; nothing is signed until an operator accepts it (npm run cli -- ledger-reset --reason "...")`;
    this.refused = { resetId, at: Date.now(), message };
    await this.integrity.report(startUpCheck, check.findings);
    return message;
  }

  /** Checkpoints that left the server (the file, the webhook). */
  published(checkpoints: LedgerCheckpoint[]): void {
    this.lastPublished = checkpoints.at(-1) ?? this.lastPublished;
  }

  /**
   * Checkpoints the file held another of for their seq: acknowledged when signed after a reset in force (its
   * continuation's seq before theirs), a finding until the operator's next reset otherwise.
   */
  async forks(forks: FileFork[]): Promise<void> {
    if (forks.length === 0) return;
    const reset = await latestReset(this.deps.store);
    const inForce = await resetInForce(this.deps.pool, reset);
    for (const fork of forks) {
      const finding = `checkpoint ${fork.seq} was signed again (${short(fork.hash)}) while the checkpoint file holds ${fork.fileHash ? short(fork.fileHash) : 'another'} for it: a fork, appended to the file`;
      if (inForce && fork.seq > (reset!.continuesFrom?.seq ?? -1)) await this.integrity.notice(checkpointFile, finding);
      else this.forkFindings.push(finding);
    }
    await this.integrity.report(checkpointFile, this.forkFindings);
  }

  /** Starts the daily full verification when its hour has come (the leader's tick); never two at once. */
  verifyIfDue(): void {
    if (this.verifying) return;
    const now = this.deps.clock.now();
    if (!this.nextVerification) this.nextVerification = nextVerificationAt(now);
    if (now < this.nextVerification) return;
    this.nextVerification = nextVerificationAt(now);
    this.verifying = this.verifyNow()
      .catch(err => this.deps.log.error({ err }, 'ledger checkpoints: the daily verification failed to run'))
      .finally(() => {
        this.verifying = null;
      });
  }

  /** `verify-log` over the whole log now; its result is in /ready's details, its problems are findings. */
  async verifyNow(): Promise<void> {
    const result = await verifyOwnLog(this.deps, {
      publicKey: this.options.publicKey(),
      fileDir: this.options.fileDir,
      published: this.lastPublished,
      now: () => this.deps.clock.now(),
    });
    this.deps.log.info(
      { clean: result.clean, events: result.events, checkpoints: result.checkpoints },
      'ledger checkpoints: the daily verification of the whole log ran',
    );
    await this.integrity.verified(result);
  }

  /** Waits for a verification under way (on stop). */
  async settle(): Promise<void> {
    await this.verifying;
  }
}
