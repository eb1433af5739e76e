import { isGatewayMethod, type PaymentType } from '../domain/payment-methods.ts';
import { refuse } from '../errors.ts';
import { findProvider } from '../providers/catalogue.ts';
import { account, accountStream, type Account } from '../domain/account.ts';
import type { CommandDeps } from './deps.ts';
import { handleCommand } from '../store/commands/handle.ts';
import { handleStreams, streamRead } from '../store/commands/handle-streams.ts';
import { holdingAccountsStream, holdingAccounts } from '../domain/holding-accounts.ts';
import { gatewayAccessProjection } from '../projections/gateway-access.ts';

/** The gateway methods an account can serve: its provider's payment types the gateway takes (QRIS-DYNAMIC, VA). */
export function gatewayMethodsOf(providerCode: string): PaymentType[] {
  return (findProvider(providerCode)?.paymentTypes ?? []).filter(isGatewayMethod);
}

/** The admin's own linked account, as it is now; another owner's or an unknown one: 404. */
function adminsAccount(state: Account, adminId: string) {
  if (state.status !== 'linked' || state.ownerId !== adminId) throw refuse('ACCOUNT_NOT_FOUND');
  return state;
}

/**
 * Marks one of the admin's linked accounts as a holding account: the platform's accounts are the admins' own (linked
 * with the ordinary /api/v1/accounts flows). An account whose provider serves no gateway method is refused (400).
 */
export async function markHoldingAccount(deps: CommandDeps, adminId: string, accountId: string) {
  const now = deps.clock.now();
  const reads = {
    account: streamRead(accountStream(accountId), account),
    holding: streamRead(holdingAccountsStream, holdingAccounts),
  };
  const done = await handleStreams(
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
      return { append: { holding: marked }, guard: ['account'], result: null };
    },
    { actor: `admin:${adminId}`, now },
  );
  await deps.readModels.waitFor(done.position, undefined, [gatewayAccessProjection]); // the admin reads the list next
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
