import type pg from 'pg';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { EventStore } from '../store/event-store.ts';
import type { FileFork } from './checkpoint-file.ts';
import { nextVerificationAt, verifyOwnLog } from './daily-verification.ts';
import type { LedgerCheckpoint } from './ledger-format.ts';
import { chainStateSource, ledgerIntegrity, malformedRow } from './ledger-integrity.ts';
import { acceptedByResets, latestReset, resetAccepts, resetInForce } from './ledger-resets.ts';
import { checkOwnHistory, continueFrom, type ProvenState } from './ledger-self-check.ts';
import type { LogPage, PageLeaves } from './log-leaves.ts';

/** A refused history is checked again this often (a check reads the newest checkpoint's range: up to a day of events). */
const recheckMs = 60_000;

const startUpCheck = 'start-up check';
const checkpointFile = 'checkpoint file';

const short = (hash: string) => `${hash.slice(0, 16)}…`;

export type HistoryGateDeps = { pool: pg.Pool; store: EventStore; log: Logger; clock: Clock };

/**
 * What the chain's leader must see before it signs, and what it tells of its history: the start-up check
 * (src/audit/ledger-self-check.ts) at each start and new leadership, and the findings held since (a change to the
 * chain's state, a malformed checkpoint row), passed or accepted by the operator's reset; the forks the checkpoint file
 * was given; the daily full verification. Findings go to the ledger's integrity holder
 * (src/audit/ledger-integrity.ts), which /ready reads and which sends them to the admins.
 */
export class LedgerHistoryGate {
  /** The last checkpoint this process sent out: a database rolled back under it no longer holds it. */
  private lastPublished: LedgerCheckpoint | null = null;
  private refused: { resetId: string | null; at: number; message: string } | null = null;
  private forkFindings: string[] = [];
  /**
   * Changes to the chain's state this process saw as its leader, each with how many resets were recorded then: held
   * until a later one accepts it, kept here too so that the role's credentials cannot wipe it from the table.
   */
  private stateFindings: { finding: string; after: number }[] = [];
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
      /** the leader stops signing now (its next look asks for admission again) */
      stopSigning: (reason: string) => void;
    },
  ) {}

  private get integrity() {
    return ledgerIntegrity(this.deps.pool);
  }

  /**
   * Whether the leader may sign, and from what: the log extends every checkpoint it can find and nothing held stops it,
   * or the operator's latest reset accepts every finding (then the chain's state starts again from the rows' newest
   * checkpoint if it does not hold); the state and position it then signs on from, or why not.
   */
  async admission(): Promise<{ proven: ProvenState } | { refusal: string }> {
    const { pool, store, log } = this.deps;
    const reset = await latestReset(store);
    const resetId = reset?.resetId ?? null;
    if (this.refused && this.refused.resetId === resetId && Date.now() - this.refused.at < recheckMs)
      return { refusal: this.refused.message };
    const check = await checkOwnHistory(
      { pool, store, leaves: this.options.leaves },
      { fileDir: this.options.fileDir, keyId: this.options.keyId(), published: this.lastPublished },
    );
    // one a reset recorded since accepted (while another instance led, maybe) is done with here too
    const resets = await acceptedByResets(store);
    this.stateFindings = this.stateFindings.filter(s => !resets.slice(s.after).some(r => r.includes(s.finding)));
    const mine = this.stateFindings.map(s => s.finding);
    const held = [...new Set([...mine, ...check.held])];
    const all = [...check.findings, ...held];
    if (all.length === 0) {
      this.refused = null;
      await this.integrity.report(startUpCheck, []);
      return { proven: check.proven! };
    }
    if (await resetAccepts(pool, reset, all)) {
      if (this.refused || !check.stateSound)
        log.warn(
          { findings: all, reason: reset!.reason },
          'ledger checkpoints: signing again, on from the newest checkpoint row, as the operator reset',
        );
      this.refused = null;
      await this.integrity.report(startUpCheck, check.findings, true);
      await this.integrity.acknowledge(held);
      this.stateFindings = [];
      this.forkFindings = [];
      await this.integrity.report(checkpointFile, []);
      return { proven: check.proven ?? (await continueFrom(pool, check.newest, check.day)) };
    }
    const message = `ledger checkpoints: ${check.findings.length > 0 ? 'the log does not extend the newest checkpoint' : 'findings held stop signing'}: ${all.join('; ')}; nothing is signed until an operator accepts it (npm run cli -- ledger-reset --reason "...")`;
    this.refused = { resetId, at: Date.now(), message };
    await this.integrity.report(startUpCheck, check.findings);
    return { refusal: message };
  }

  /**
   * The leader found the state row changed since it wrote it: held (in this process and the database) until an
   * operator's reset accepts it, so the leader's next look refuses.
   */
  async stateChanged(finding: string): Promise<void> {
    if (!this.stateFindings.some(s => s.finding === finding))
      this.stateFindings.push({ finding, after: (await acceptedByResets(this.deps.store)).length });
    this.refused = null;
    await this.integrity.report(
      chainStateSource,
      this.stateFindings.map(s => s.finding),
    );
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

  /**
   * `verify-log` over the whole log now; its result is in /ready's details, its problems are findings (those the reset
   * in force accepted, acknowledged). A malformed checkpoint row it finds stops signing until a reset accepts it.
   */
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
    const reset = await latestReset(this.deps.store);
    const accepted = (await resetInForce(this.deps.pool, reset)) ? reset!.findings : [];
    await this.integrity.verified(result, f => accepted.includes(f));
    const stopping = result.problems.filter(p => malformedRow(p) && !accepted.includes(p));
    if (stopping.length === 0) return;
    this.refused = null;
    this.options.stopSigning(`ledger checkpoints: the daily verification found ${stopping.join('; ')}`);
  }

  /** Waits for a verification under way (on stop). */
  async settle(): Promise<void> {
    await this.verifying;
  }
}
