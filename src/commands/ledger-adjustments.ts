import type pg from 'pg';
import { query, type Queryable } from '../db/pool.ts';
import { deterministicUuid } from '../ids.ts';
import { holdingAccounts, holdingAccountsStream } from '../domain/holding-accounts.ts';
import { ledgerAdjustments, ledgerAdjustmentsStream } from '../domain/ledger-adjustments.ts';
import { findHoldingCash, gatewayLedgerProjection } from '../projections/gateway-ledger.ts';
import { ledgerAdjustmentsProjection } from '../projections/ledger-adjustments.ts';
import { handleCommand, load } from '../store/commands/handle.ts';
import type { CommandDeps } from './deps.ts';
import { spendingCash } from './holding-cash.ts';
import { currentPayoutAccount } from './payout-account.ts';
import { syncAccount } from './sync-account.ts';

export type LedgerAdjustmentRequest = { holdingAccountId: string; amount: number; effectiveAt: Date; reason: string };

/** The provider's balance of an account as last synchronised (less the service's own transfers since), and when. */
export async function syncedBalance(db: Queryable, accountId: string) {
  const r = await query<{ balance: number; last_sync: Date | null }>(
    db,
    'FindSyncedBalance',
    'select balance, last_sync from accounts where id = $1',
    [accountId],
  );
  const row = r.rows[0];
  return row?.last_sync ? { balance: row.balance, at: row.last_sync } : null;
}

/**
 * Synchronises an account before its opening is booked, so the opening is the provider's balance now: as a payment
 * check does (no point charged, no schedule moved). A provider that does not answer leaves the last synchronised
 * balance, and its time, to be booked.
 */
export async function syncedForOpening(deps: CommandDeps, accountId: string) {
  try {
    await syncAccount(deps, accountId, null, { paymentCheck: true, waitForReadModels: true });
  } catch (err) {
    deps.log.warn({ accountId, err }, 'sync before an opening balance failed: the last synchronised balance is booked');
  }
}

/**
 * An admin's dated opening or correcting entry for one of the platform's holding accounts (marked now, or the payout
 * account): `holding:<id>` debited with `amount` (credited when negative) against `platform:equity`, under the account's
 * cash lock, so a negative entry never takes the account below zero (409 HOLDING_CASH_SHORT). The id follows from the
 * account, amount, date and reason, so the same request again books nothing.
 */
export async function bookLedgerAdjustment(
  deps: CommandDeps & { pool: pg.Pool },
  adminId: string,
  request: LedgerAdjustmentRequest,
) {
  const { holdingAccountId, amount, effectiveAt, reason } = request;
  const entryId = deterministicUuid(
    `ledger-adjustment:${holdingAccountId}:${amount}:${effectiveAt.toISOString()}:${reason}`,
  );
  return spendingCash(deps, holdingAccountId, async () => {
    const now = deps.clock.now();
    const marked = (await load(deps, holdingAccountsStream, holdingAccounts)).state.accounts;
    const payout = await currentPayoutAccount(deps);
    const command = {
      type: 'BookLedgerAdjustment' as const,
      entryId,
      accountId: holdingAccountId,
      amount,
      effectiveAt,
      reason,
      holdingAccountIds: [...marked.map(a => a.accountId), ...(payout ? [payout.accountId] : [])],
      ledgerCash: await findHoldingCash(deps.pool, holdingAccountId),
      adminId,
      now,
    };
    const done = await handleCommand(deps, ledgerAdjustmentsStream, ledgerAdjustments, command, {
      actor: `admin:${adminId}`,
      now,
      correlationId: entryId,
    });
    await deps.readModels.waitFor(done.position, undefined, [gatewayLedgerProjection, ledgerAdjustmentsProjection]);
    return entryId;
  });
}
