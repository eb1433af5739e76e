import { createHash } from 'node:crypto';
import type { CommandDeps } from '../commands/deps.ts';
import { query, type Queryable } from '../db/pool.ts';
import {
  closeRefusal,
  gatewayPeriods,
  gatewayPeriodsStream,
  monthBounds,
  monthOfDays,
} from '../domain/gateway-periods.ts';
import { gatewayLedgerProjection } from '../projections/gateway-ledger.ts';
import { findClosedPeriod, gatewayPeriodsProjection } from '../projections/gateway-periods.ts';
import { checkpointName } from '../projections/replay.ts';
import { readCheckpoint } from '../store/checkpoints.ts';
import { handleCommand, load } from '../store/commands/handle.ts';
import { comparePositions, type Position } from '../store/event-store.ts';
import { refuse } from '../errors.ts';
import {
  gatewayReconciliation,
  reconciliationPeriod,
  type GatewayReconciliation,
  type ReconciliationPeriod,
  type ReconciliationSources,
} from './gateway-reconciliation.ts';
import { canonicalJson } from './merkle.ts';
import { ledgerClosingOf } from './gateway-period-balances.ts';

/**
 * Closing a month of the gateway's books: its reconciliation is frozen in the audited log (GatewayPeriodClosed carries
 * the report and its hash), and asked again it answers that; reopening is an admin's decision with its reason.
 */

export type PeriodDeps = CommandDeps & ReconciliationSources;

/** Who closed the month, when, and the sha256 of its report's canonical JSON; null: the report is computed live. */
export type ClosedMark = { at: string; by: string; hash: string } | null;
export type AnsweredReconciliation = GatewayReconciliation & { closed: ClosedMark };

/** The sha256 (hex) of a report's canonical JSON: keys sorted, the report as JSON has it. */
export const reportHash = (report: unknown): string => createHash('sha256').update(canonicalJson(report)).digest('hex');

/** A month YYYY-MM, checked as the path gives it (400 INVALID_PERIOD otherwise). */
export function bookMonthOf(value: string): string {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(value) || value < '2000-01' || value > '2100-12')
    throw refuse('INVALID_PERIOD', {
      message: 'A month is written YYYY-MM (years 2000 to 2100)',
      errors: [{ path: 'period', message: 'not a month' }],
    });
  return value;
}

/** The month's days as a reconciliation period (its 1st to its last WIB day). */
export function monthPeriod(period: string): ReconciliationPeriod {
  const { endsAt } = monthBounds(period);
  const last = new Date(endsAt.getTime() + 7 * 3_600_000 - 86_400_000).toISOString().slice(0, 10);
  return reconciliationPeriod(`${period}-01`, last);
}

const positionText = (p: Position) => ({ commit: String(p.commit), prepare: String(p.prepare) });
const ledgerCheckpoint = (db: Queryable) => readCheckpoint(db, checkpointName(gatewayLedgerProjection));

/**
 * The month's report with the last log position its postings count: the ledger read model's checkpoint before the
 * report, provided no posting after it was projected while the report was computed (else computed again), so a
 * posting recorded during a close is either in the frozen report or a prior-period item of the next month, never
 * both nor neither. The report's fold of the event log counts it as far as that position too (an entry appended but not
 * yet projected is the next month's, as the read models' figures have it), and so does the ledger closing recorded
 * beside it, where later folds start (ledger-fold-start.ts).
 */
async function reportThrough(deps: PeriodDeps, period: string) {
  for (let attempt = 1; ; attempt++) {
    const before = await ledgerCheckpoint(deps.pool);
    const report = await gatewayReconciliation(deps, monthPeriod(period), { through: before });
    const after = await ledgerCheckpoint(deps.pool);
    const moved =
      comparePositions(before, after) !== 0 &&
      (
        await query<{ moved: boolean }>(
          deps.pool,
          'FindPostingsDuringClose',
          `select exists (select 1 from gateway_postings where (position_commit, position_prepare) > ($1::bigint, $2::bigint)
             and (position_commit, position_prepare) <= ($3::bigint, $4::bigint)) as moved`,
          [String(before.commit), String(before.prepare), String(after.commit), String(after.prepare)],
        )
      ).rows[0]!.moved;
    if (!moved) return { report, through: before, ledger: await ledgerClosingOf(deps, monthBounds(period), before) };
    if (attempt >= 5) throw refuse('BUSY', { message: 'The ledger kept moving while the report was computed' });
  }
}

// the read models a close or a reopening changes: its own, and the ledger's, which places the postings it moves
const placing = [gatewayPeriodsProjection, gatewayLedgerProjection];

/**
 * An admin closes a month that has ended (WIB): its report computed once every read model has caught up with the
 * log, stored in GatewayPeriodClosed with its hash. Refused before the report is computed when the month cannot close.
 */
export async function closeGatewayPeriod(deps: PeriodDeps, adminId: string, period: string) {
  const now = deps.clock.now();
  const refused = closeRefusal((await load(deps, gatewayPeriodsStream, gatewayPeriods)).state, period, now);
  if (refused) throw refused;
  await deps.readModels.waitFor(await deps.store.headPosition(), 20_000);
  const { report, through, ledger } = await reportThrough(deps, period);
  const frozen = JSON.parse(JSON.stringify(report)) as Record<string, unknown>;
  const command = {
    type: 'ClosePeriod' as const,
    period,
    report: frozen,
    reportHash: reportHash(frozen),
    through: positionText(through),
    ledger,
    closedBy: adminId,
    now,
  };
  const done = await handleCommand(deps, gatewayPeriodsStream, gatewayPeriods, command, {
    actor: `admin:${adminId}`,
    now,
  });
  await deps.readModels.waitFor(done.position, undefined, placing);
}

/** An admin reopens the latest closed month with a reason: its report is live again, the reopening recorded. */
export async function reopenGatewayPeriod(deps: PeriodDeps, adminId: string, period: string, reason: string) {
  const now = deps.clock.now();
  const done = await handleCommand(
    deps,
    gatewayPeriodsStream,
    gatewayPeriods,
    { type: 'ReopenPeriod', period, reason, reopenedBy: adminId, now },
    { actor: `admin:${adminId}`, now },
  );
  await deps.readModels.waitFor(done.position, undefined, placing);
}

/** A frozen report as the CSV tables read it: the suspense items' times as instants again (JSON wrote them as text). */
function revived(report: Record<string, unknown>): GatewayReconciliation {
  const r = report as unknown as GatewayReconciliation;
  const items = r.suspense.items.map(i => ({
    ...i,
    receivedAt: new Date(i.receivedAt),
    resolvedAt: i.resolvedAt === null ? null : new Date(i.resolvedAt),
  }));
  return { ...r, suspense: { ...r.suspense, items } };
}

/**
 * The reconciliation of a period: for exactly a closed month, its frozen report and who closed it; else computed now.
 * The JSON route, its CSV and the console's page all ask here.
 */
export async function reconciliationOf(
  deps: ReconciliationSources,
  period: ReconciliationPeriod,
): Promise<AnsweredReconciliation> {
  const month = monthOfDays(period.from, period.to);
  const closed = month ? await findClosedPeriod(deps.pool, month) : null;
  if (closed)
    return { ...revived(closed.report), closed: { at: closed.closedAt, by: closed.closedBy, hash: closed.reportHash } };
  return { ...(await gatewayReconciliation(deps, period)), closed: null };
}
