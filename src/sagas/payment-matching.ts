import { receiveSuspenseCredit } from '../commands/gateway-suspense.ts';
import { handleCommand, load } from '../commands/handle.ts';
import { holdingAccounts, holdingAccountsStream } from '../commands/holding-accounts.ts';
import { payment, paymentStream } from '../commands/payment.ts';
import { matchPayable, releasePayable } from '../commands/payable-claims.ts';
import type { EventOf } from '../events/event.ts';
import type { MutationRecorded } from '../events/account.ts';
import { sagaEventId } from '../ids.ts';
import type { SagaDeps } from './all.ts';
import type { Saga } from './runner.ts';

/** A credit into a holding account that paid no payment: the platform's suspense, for an admin to allocate or refund. */
async function toSuspense(deps: SagaDeps, credit: EventOf<typeof MutationRecorded>['data'], cause: string) {
  const holding = (await load(deps, holdingAccountsStream, holdingAccounts)).state.accounts.find(a => a.accountId === credit.accountId);
  // not the gateway's: the owner's own unmatched credit (or the account's history from before it held the gateway's money)
  if (!holding || Date.parse(credit.occurredAt) < Date.parse(holding.markedAt)) return;
  const { mutationId, accountId, amount, senderName, reference } = credit;
  await receiveSuspenseCredit(
    deps,
    { mutationId, accountId, providerCode: holding.providerCode, amount, senderName, reference, receivedAt: new Date(credit.occurredAt) },
    { actor: 'system:payment-matching', now: deps.clock.now(), causationId: cause, correlationId: mutationId, eventId: i => sagaEventId('payment-matching-suspense', cause, i) },
  );
}

/**
 * Completes the pending payment a synchronised credit pays, once, and frees its payable amount. A credit into a
 * holding account that completes nothing (no payable, or its payment expired or paid meanwhile) goes to suspense.
 */
export function paymentMatchingSaga(deps: SagaDeps): Saga {
  return {
    name: 'payment-matching',
    handles: ['MutationRecorded'],
    async handle(event) {
      if (event.type !== 'MutationRecorded' || event.data.type !== 'CREDIT') return;
      // a failed transfer's amount given back to the wallet is not a customer's payment
      if (event.data.providerTransactionId.startsWith('transfer-reversal:')) return;
      const credit = event.data;
      const cause = `${event.streamId}@${event.revision}`;
      const matched = await matchPayable(deps, credit.accountId, credit);
      if (!matched) return toSuspense(deps, credit, cause); // unmatched: kept as a mutation (and in suspense, if a holding account's)
      const match = matched.payable;
      const context = { actor: 'system:payment-matching', now: deps.clock.now(), causationId: cause, correlationId: match.paymentId };
      const done = await handleCommand(deps, paymentStream(match.paymentId), payment, {
        type: 'CompletePayment', mutationId: credit.mutationId, paidAt: new Date(credit.occurredAt), now: deps.clock.now(),
      }, { ...context, eventId: i => sagaEventId('payment-matching', cause, i) });
      if (done.state.status === 'COMPLETED' && done.state.mutationId === credit.mutationId) {
        const ended = { accountId: credit.accountId, paymentId: match.paymentId, totalAmount: match.totalAmount, claimed: matched.claimed };
        await releasePayable(deps, { ...ended, reason: 'completed', now: deps.clock.now() }, context);
      } else await toSuspense(deps, credit, cause); // the payment expired or was paid by another credit meanwhile
    },
  };
}
