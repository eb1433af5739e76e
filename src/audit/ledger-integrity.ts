import { createHash } from 'node:crypto';
import type { Logger } from '../logger.ts';

/**
 * A finding about the ledger's own history: who found it (the start-up check, the checkpoint file, the daily
 * verification), what, and whether an operator's recorded reset accepted it (then it stops nothing and is only told).
 */
export type IntegrityFinding = { source: string; finding: string; acknowledged: boolean };

/** The last full verification of the log (src/audit/verify-log.ts) the service ran on itself. */
export type VerificationResult = {
  at: string;
  clean: boolean;
  events: number;
  checkpoints: number;
  problems: string[];
};

/** Sends a finding on (the `ledger.integrity` webhook to admins); its id derives from the finding's text. */
export type FindingPublisher = (finding: IntegrityFinding & { id: string; at: string }) => Promise<unknown>;

/** A finding's identity: the same text found again (after a restart) is the same finding, published once. */
export const findingId = (finding: string): string => createHash('sha256').update(finding, 'utf8').digest('hex');

/**
 * What this process knows is wrong with the ledger's history, for /ready and the health details: each source's
 * findings replace that source's earlier ones. A finding not held before is logged (error, or warn when acknowledged)
 * and published; one still held is not told again.
 */
export class LedgerIntegrity {
  private readonly held = new Map<string, IntegrityFinding[]>();
  private readonly notices: IntegrityFinding[] = [];
  private log: Logger | null = null;
  private publisher: FindingPublisher | null = null;
  private clock: () => Date = () => new Date();
  private last: VerificationResult | null = null;

  /** Where findings go besides this holder: the log and the admins' webhooks (the service's start sets them). */
  attach(options: { log: Logger; publish?: FindingPublisher; now?: () => Date }): void {
    this.log = options.log;
    this.publisher = options.publish ?? null;
    if (options.now) this.clock = options.now;
  }

  /** Replaces what `source` finds now (an empty list: nothing any more); answers once the new ones are sent on. */
  async report(source: string, findings: string[], acknowledged = false): Promise<void> {
    const before = new Set((this.held.get(source) ?? []).map(f => `${f.acknowledged}:${f.finding}`));
    const now = findings.map(finding => ({ source, finding, acknowledged }));
    if (now.length === 0) this.held.delete(source);
    else this.held.set(source, now);
    for (const f of now) if (!before.has(`${f.acknowledged}:${f.finding}`)) await this.tell(f);
  }

  /** A finding that stops nothing (an acknowledged fork): told once, and listed from then on. */
  async notice(source: string, finding: string): Promise<void> {
    if (this.notices.some(f => f.finding === finding)) return;
    const f = { source, finding, acknowledged: true };
    this.notices.push(f);
    await this.tell(f);
  }

  private async tell(f: IntegrityFinding): Promise<void> {
    if (f.acknowledged) this.log?.warn({ source: f.source }, `ledger integrity (acknowledged): ${f.finding}`);
    else this.log?.error({ source: f.source }, `ledger integrity: ${f.finding}`);
    try {
      await this.publisher?.({ ...f, id: findingId(f.finding), at: this.clock().toISOString() });
    } catch (err) {
      this.log?.error({ err }, 'ledger integrity: the finding could not be sent to the admins; it stays in /ready');
    }
  }

  /** Every finding held, acknowledged ones included. */
  findings(): IntegrityFinding[] {
    return [...[...this.held.values()].flat(), ...this.notices];
  }

  /** Whether anything not acknowledged is held: then the ledger is not ready. */
  sound(): boolean {
    return this.findings().every(f => f.acknowledged);
  }

  /** Records the daily verification's result; its problems are findings of their own source. */
  async verified(result: VerificationResult): Promise<void> {
    this.last = result;
    await this.report('daily verification', result.problems);
  }

  /** What /ready's details say: the findings and the last full verification. */
  details(): { findings: IntegrityFinding[]; lastVerification: VerificationResult | null } {
    return { findings: this.findings(), lastVerification: this.last };
  }
}

const holders = new WeakMap<object, LedgerIntegrity>();

/**
 * The holder of one database's ledger (keyed by its pool: a process serves one, tests start several): the leader and
 * the daily verification write it, /ready reads it, anyone else with a finding about the ledger reports it here.
 */
export function ledgerIntegrity(pool: object): LedgerIntegrity {
  let holder = holders.get(pool);
  if (!holder) {
    holder = new LedgerIntegrity();
    holders.set(pool, holder);
  }
  return holder;
}
