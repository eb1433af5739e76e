import type pg from 'pg';
import { query } from '../db/pool.ts';
import { refuse } from '../errors.ts';
import { findHoldingCash, gatewayLedgerProjection } from '../projections/gateway-ledger.ts';
import type { CommandDeps } from './deps.ts';

export type CashCheck = {
  /** Refuses (409 HOLDING_CASH_SHORT) when the account's cash in the ledger is less than `amount`. */
  cover(amount: number): Promise<void>;
};

/**
 * Money out of a platform account (a payout, a suspense refund), one at a time per account across instances: a session
 * advisory lock on the account, then the ledger's read model caught up with every event appended so far (so it shows
 * every earlier payout and refund; credits not yet shown only make the check stricter), then `spend`, which checks the
 * cash it takes (`cover`) and appends before the lock is let go. No platform account goes below zero (docs/decisions.md,
 * "The ledger holds the cash").
 */
export async function spendingCash<T>(
  deps: CommandDeps & { pool: pg.Pool },
  accountId: string,
  spend: (cash: CashCheck) => Promise<T>,
): Promise<T> {
  const key = `holding-cash:${accountId}`;
  const client = await deps.pool.connect();
  let locked = false;
  try {
    await query(client, 'LockHoldingCash', 'select pg_advisory_lock(hashtextextended($1, 0))', [key]);
    locked = true;
    if (!(await deps.readModels.waitFor(await deps.store.headPosition(), 10_000, [gatewayLedgerProjection]))) {
      throw refuse('BUSY', { message: 'The ledger is catching up; try again in a moment' });
    }
    return await spend({
      async cover(amount) {
        const cash = await findHoldingCash(deps.pool, accountId);
        if (cash < amount)
          throw refuse('HOLDING_CASH_SHORT', {
            message: `The platform account's cash in the ledger (${cash}) does not cover ${amount}`,
          });
      },
    });
  } finally {
    // a failed unlock: the connection is dropped rather than handed back holding the lock
    const unlocked =
      !locked ||
      (await query(client, 'UnlockHoldingCash', 'select pg_advisory_unlock(hashtextextended($1, 0))', [key]).then(
        () => true,
        () => false,
      ));
    client.release(!unlocked);
  }
}
