import { matchPayable } from '../commands/payments.ts';
import type { Decider } from '../domain/decider.ts';
import type { Credit } from '../domain/payments-payables.ts';
import type { Payable } from '../domain/payments-receiving.ts';
import type { DomainEvent } from '../events/event.ts';
import { findGatewayWithdrawal, type GatewayWithdrawalRow } from '../projections/gateway-ledger.ts';
import { creditsNamed, type CreditsNamed } from '../projections/gateway-settlements.ts';
import { load } from '../store/commands/handle.ts';
import type { Read } from './reaction.ts';

/**
 * What steps read, each a typed function with what it reads described beside it: the runner calls `run`, tests compare
 * `what`. A new kind of read is a builder here; the runner does not change.
 */

/** A stream's state through its decider (the state cache and snapshots as a command would). */
export const readStream = <S, C, E extends DomainEvent>(streamId: string, decider: Decider<S, C, E>): Read<S> => ({
  what: { read: 'stream', streamId, decider },
  run: async deps => (await load(deps, streamId, decider)).state,
});

/** The payable a synchronised credit pays on the account (the payments capability's matchPayable). */
export const readPayable = (accountId: string, credit: Credit): Read<Payable | null> => ({
  what: { read: 'payable', accountId, credit },
  run: deps => matchPayable(deps, accountId, credit),
});

/** A withdrawal as the gateway ledger's read model holds it. */
export const readWithdrawal = (withdrawalId: string): Read<GatewayWithdrawalRow | null> => ({
  what: { read: 'withdrawal', withdrawalId },
  run: deps => findGatewayWithdrawal(deps.pool, withdrawalId),
});

/** A merchant's credits by id, the first `limit` of them, as the settlements' read model holds them. */
export const readCredits = (merchantId: string, creditIds: readonly string[], limit: number): Read<CreditsNamed> => ({
  what: { read: 'credits', merchantId, creditIds, limit },
  run: deps => creditsNamed(deps.pool, merchantId, creditIds, limit),
});
