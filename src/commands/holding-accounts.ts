import { refuse } from '../errors.ts';
import { gatewayMethodsOf } from '../providers/catalogue.ts';

export { gatewayMethodsOf };
import { account, accountStream, type Account } from '../domain/account.ts';
import type pg from 'pg';
import type { CommandDeps } from './deps.ts';
import { handleCommand } from '../store/commands/handle.ts';
import { handleStreams, streamRead } from '../store/commands/handle-streams.ts';
import { holdingAccountsStream, holdingAccounts } from '../domain/holding-accounts.ts';
import { gatewayAccessProjection } from '../projections/gateway-access.ts';
import { findHoldingCash, gatewayLedgerProjection } from '../projections/gateway-ledger.ts';
import { ledgerAdjustmentsProjection } from '../projections/ledger-adjustments.ts';
import { ledgerAdjustments, ledgerAdjustmentsStream } from '../domain/ledger-adjustments.ts';
import { deterministicUuid } from '../ids.ts';
import { spendingCash } from './holding-cash.ts';
import { syncedBalance, syncedForOpening } from './ledger-adjustments.ts';
import { load } from '../store/commands/handle.ts';

/** The admin's own linked account, as it is now; another owner's or an unknown one: 404. */
function adminsAccount(state: Account, adminId: string) {
  if (state.status !== 'linked' || state.ownerId !== adminId) throw refuse('ACCOUNT_NOT_FOUND');
  return state;
}

/**
 * Marks one of the admin's linked accounts as a holding account: the platform's accounts are the admins' own (linked
 * with the ordinary /api/v1/accounts flows). An account whose provider serves no gateway method is refused (400).
 * The account is synchronised first, and the marking books, in the same append, an opening on the ledger: the
 * provider's balance less what the ledger holds of the account already (HoldingOpeningBooked against platform:equity),
 * so the account ties to its provider from the moment it is the gateway's. Under the account's cash lock, so no payout
 * moves the ledger's cash meanwhile.
 */
export async function markHoldingAccount(deps: CommandDeps & { pool: pg.Pool }, adminId: string, accountId: string) {
  const before = (await load(deps, accountStream(accountId), account)).state;
  if (before.status === 'linked' && before.ownerId === adminId) await syncedForOpening(deps, accountId);
  const done = await spendingCash(deps, accountId, async () => {
    const now = deps.clock.now();
    const synced = await syncedBalance(deps.pool, accountId);
    const ledgerCash = await findHoldingCash(deps.pool, accountId);
    const reads = {
      account: streamRead(accountStream(accountId), account),
      holding: streamRead(holdingAccountsStream, holdingAccounts),
      adjustments: streamRead(ledgerAdjustmentsStream, ledgerAdjustments),
    };
    return handleStreams(
      deps,
      reads,
      loaded => {
        const linked = adminsAccount(loaded.account.state, adminId);
        const methods = gatewayMethodsOf(linked.providerCode);
        if (methods.length === 0)
          throw refuse('HOLDING_ACCOUNT_CANNOT_SERVE', {
            message: `${linked.providerCode} accounts cannot serve a gateway method (QRIS-DYNAMIC or a virtual account)`,
          });
        const marked = holdingAccounts.decide(loaded.holding.state, {
          type: 'MarkHoldingAccount',
          accountId,
          providerCode: linked.providerCode,
          methods,
          adminId,
          now,
        });
        // never synchronised: nothing known to book (an admin's dated entry books it)
        const opening =
          marked.length > 0 && synced
            ? ledgerAdjustments.decide(loaded.adjustments.state, {
                type: 'BookHoldingOpening',
                entryId: deterministicUuid(`holding-opening:${accountId}:${now.toISOString()}`),
                accountId,
                providerBalance: synced.balance,
                providerBalanceAt: synced.at,
                ledgerCash,
                adminId,
                now,
              })
            : [];
        return { append: { holding: marked, adjustments: opening }, guard: ['account'], result: null };
      },
      { actor: `admin:${adminId}`, now },
    );
  });
  // the admin reads the list next, and the reconciliation the opening
  await deps.readModels.waitFor(done.position, undefined, [
    gatewayAccessProjection,
    gatewayLedgerProjection,
    ledgerAdjustmentsProjection,
  ]);
  return done;
}

export async function unmarkHoldingAccount(deps: CommandDeps, adminId: string, accountId: string) {
  const now = deps.clock.now();
  const done = await handleCommand(
    deps,
    holdingAccountsStream,
    holdingAccounts,
    { type: 'UnmarkHoldingAccount', accountId, adminId, now },
    { actor: `admin:${adminId}`, now },
  );
  await deps.readModels.waitFor(done.position, undefined, [gatewayAccessProjection]);
  return done;
}
