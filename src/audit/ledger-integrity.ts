import { createHash } from 'node:crypto';
import type pg from 'pg';
import { migrate, type Migration } from '../db/migrations.ts';
import { inTransaction, query } from '../db/pool.ts';
import type { Logger } from '../logger.ts';

/**
 * A finding about the ledger's own history: who found it (the start-up check, the checkpoint file, the daily
 * verification), what, and whether an operator's recorded reset accepted it (then it stops nothing and is only told).
 */
export type IntegrityFinding = { source: string; finding: string; acknowledged: boolean };

/** Who found a change to the chain's state: its leader, against the state it last wrote. */
export const chainStateSource = 'chain state';
export const dailyVerificationSource = 'daily verification';

/** A daily verification's problem that is a malformed checkpoint row (src/audit/verify-log.ts words it so). */
export const malformedRow = (finding: string): boolean =>
  /^checkpoint row \d+: checkpoint row \d+ is malformed: /.test(finding);

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
 * The findings held and the last verification, in the database: the chain's leader writes them, every instance's
 * /ready reads them (a standby shows what the leader found). A notice is an acknowledged finding kept once told; the
 * others are what their source finds now, replaced by its next report.
 */
export const ledgerIntegrityMigration: Migration = {
  name: 'ledger-integrity',
  steps: [
    `create table if not exists ledger_integrity_findings (
      source text not null,
      finding text not null,
      acknowledged boolean not null,
      notice boolean not null,
      found_at timestamptz not null,
      primary key (source, notice, finding)
    );
    create table if not exists ledger_integrity_verification (
      id boolean primary key default true check (id),
      result jsonb not null
    );`,
  ],
};

type FindingRow = IntegrityFinding & { notice: boolean };

/**
 * What is known to be wrong with the ledger's history, for /ready and the health details: each source's findings
 * replace that source's earlier ones. A finding this process has not told is logged (error, or warn when acknowledged)
 * and published; one it still holds is not told again.
 */
export class LedgerIntegrity {
  private log: Logger | null = null;
  private publisher: FindingPublisher | null = null;
  private clock: () => Date = () => new Date();
  private tables: Promise<unknown> | null = null;
  /**
   * What this process has told (logged and published) of each source's findings and of the notices: a start tells
   * again what it finds, in its own log (the webhook's id makes a second send of one a no-op).
   */
  private readonly told = new Map<string, Set<string>>();
  private readonly noticed = new Set<string>();

  constructor(private readonly pool: pg.Pool) {}

  /** Where findings go besides the table: the log and the admins' webhooks (the service's start sets them). */
  attach(options: { log: Logger; publish?: FindingPublisher; now?: () => Date }): void {
    this.log = options.log;
    this.publisher = options.publish ?? null;
    if (options.now) this.clock = options.now;
  }

  /** The tables, brought up to date once per pool (the service's start has done it: one read then). */
  private ready(): Promise<unknown> {
    this.tables ??= migrate(this.pool, [ledgerIntegrityMigration]).catch(err => {
      this.tables = null;
      throw err;
    });
    return this.tables;
  }

  /**
   * Replaces what `source` finds now (an empty list: nothing any more); answers once the new ones are sent on.
   * `acknowledged` says it of all of them, or of each (those an operator's reset accepted).
   */
  async report(
    source: string,
    findings: string[],
    acknowledged: boolean | ((finding: string) => boolean) = false,
  ): Promise<void> {
    await this.ready();
    const now = [...new Set(findings)];
    const flags = now.map(typeof acknowledged === 'function' ? acknowledged : () => acknowledged);
    await inTransaction(this.pool, async tx => {
      await query(
        tx,
        'DropIntegrityFindings',
        'delete from ledger_integrity_findings where source = $1 and not notice',
        [source],
      );
      if (now.length > 0)
        await query(
          tx,
          'HoldIntegrityFindings',
          `insert into ledger_integrity_findings (source, finding, acknowledged, notice, found_at)
           select $1, f, a, false, $4 from unnest($2::text[], $3::boolean[]) as t(f, a)`,
          [source, now, flags, this.clock()],
        );
    });
    const before = this.told.get(source) ?? new Set();
    const held = now.map((finding, i) => ({ finding, acknowledged: flags[i]! }));
    this.told.set(source, new Set(held.map(f => `${f.acknowledged}:${f.finding}`)));
    for (const f of held) if (!before.has(`${f.acknowledged}:${f.finding}`)) await this.tell({ source, ...f });
  }

  /**
   * The findings held that stop the chain's leader unless the operator's latest reset accepts them, besides what its
   * start-up check finds again each time: a change to the chain's state the leader saw, until a reset accepts it; a
   * malformed checkpoint row the daily verification found, for as long as it finds it (so every later reset names it
   * again, as it names what the start-up check still finds). Read by every process, so that `ledger-reset` accepts
   * what the leader holds.
   */
  async stopping(): Promise<string[]> {
    await this.ready();
    const rows = await query<FindingRow>(
      this.pool,
      'StoppingIntegrityFindings',
      `select source, finding, acknowledged, notice from ledger_integrity_findings
        where not notice and source = any($1) order by found_at, finding`,
      [[chainStateSource, dailyVerificationSource]],
    );
    return rows.rows
      .filter(r => (r.source === chainStateSource ? !r.acknowledged : malformedRow(r.finding)))
      .map(r => r.finding);
  }

  /** Findings an operator's reset accepted: they stop nothing from now on and are listed as acknowledged. */
  async acknowledge(findings: string[]): Promise<void> {
    if (findings.length === 0) return;
    await this.ready();
    await query(
      this.pool,
      'AcknowledgeIntegrityFindings',
      'update ledger_integrity_findings set acknowledged = true where not notice and finding = any($1)',
      [findings],
    );
  }

  /** A finding that stops nothing (an acknowledged fork): told once, and listed from then on. */
  async notice(source: string, finding: string): Promise<void> {
    await this.ready();
    await query(
      this.pool,
      'NoticeIntegrityFinding',
      `insert into ledger_integrity_findings (source, finding, acknowledged, notice, found_at)
       select $1, $2, true, true, $3
        where not exists (select 1 from ledger_integrity_findings where notice and finding = $2)
       on conflict do nothing`,
      [source, finding, this.clock()],
    );
    if (this.noticed.has(finding)) return;
    this.noticed.add(finding);
    await this.tell({ source, finding, acknowledged: true });
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

  /** Every finding held, acknowledged ones included: the sources' own first, then the notices, each as found. */
  async findings(): Promise<IntegrityFinding[]> {
    await this.ready();
    const rows = await query<FindingRow>(
      this.pool,
      'ListIntegrityFindings',
      `select source, finding, acknowledged, notice from ledger_integrity_findings order by notice, found_at, source, finding`,
    );
    return rows.rows.map(({ source, finding, acknowledged }) => ({ source, finding, acknowledged }));
  }

  /** Whether anything not acknowledged is held: then the ledger is not ready. */
  async sound(): Promise<boolean> {
    await this.ready();
    const r = await query(
      this.pool,
      'UnacknowledgedFinding',
      `select 1 from ledger_integrity_findings where not acknowledged limit 1`,
    );
    return r.rowCount === 0;
  }

  /** The daily verification's result recorded; its problems are findings of their own source (`accepted` ones acknowledged). */
  async verified(result: VerificationResult, accepted: (finding: string) => boolean = () => false): Promise<void> {
    await this.ready();
    await query(
      this.pool,
      'SaveLastVerification',
      `insert into ledger_integrity_verification (result) values ($1) on conflict (id) do update set result = excluded.result`,
      [JSON.stringify(result)],
    );
    await this.report(dailyVerificationSource, result.problems, accepted);
  }

  /** What /ready's details say: the findings and the last full verification. */
  async details(): Promise<{ findings: IntegrityFinding[]; lastVerification: VerificationResult | null }> {
    const findings = await this.findings();
    const last = await query<{ result: VerificationResult }>(
      this.pool,
      'LastVerification',
      'select result from ledger_integrity_verification',
    );
    return { findings, lastVerification: last.rows[0]?.result ?? null };
  }
}

const holders = new WeakMap<pg.Pool, LedgerIntegrity>();

/**
 * The findings of one database's ledger (keyed by its pool: where the log and the admins' webhooks go is set once per
 * process): the leader and the daily verification write them, /ready reads them, anyone else with a finding about the
 * ledger reports it here.
 */
export function ledgerIntegrity(pool: pg.Pool): LedgerIntegrity {
  let holder = holders.get(pool);
  if (!holder) {
    holder = new LedgerIntegrity(pool);
    holders.set(pool, holder);
  }
  return holder;
}
