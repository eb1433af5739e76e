import { handleCommand, load } from '../commands/handle.ts';
import { payment, paymentStream } from '../commands/payment.ts';
import { matchCredit, receiving, receivingStream } from '../commands/receiving.ts';
import { sagaEventId } from '../ids.ts';
import type { SagaDeps } from './all.ts';
import type { Saga } from './runner.ts';

/** Completes the pending payment a synchronised credit pays, once, and frees its payable amount. */
export function paymentMatchingSaga(deps: SagaDeps): Saga {
  return {
    name: 'payment-matching',
    handles: ['MutationRecorded'],
    async handle(event) {
      if (event.type !== 'MutationRecorded' || event.data.type !== 'CREDIT') return;
      // a failed transfer's amount given back to the wallet is not a customer's payment
      if (event.data.providerTransactionId.startsWith('transfer-reversal:')) return;
      const credit = event.data;
      const held = (await load(deps, receivingStream(credit.accountId), receiving)).state;
      const match = matchCredit(held, credit);
      if (!match) return; // unmatched: kept as a mutation, reported by reconciliation
      const cause = `${event.streamId}@${event.revision}`;
      const context = { actor: 'system:payment-matching', now: deps.clock.now(), causationId: cause, correlationId: match.paymentId };
      const done = await handleCommand(deps, paymentStream(match.paymentId), payment, {
        type: 'CompletePayment', mutationId: credit.mutationId, paidAt: new Date(credit.occurredAt), now: deps.clock.now(),
      }, { ...context, eventId: i => sagaEventId('payment-matching', cause, i) });
      if (done.state.status === 'COMPLETED' && done.state.mutationId === credit.mutationId) {
        await handleCommand(deps, receivingStream(credit.accountId), receiving, { type: 'ReleasePayable', paymentId: match.paymentId, reason: 'completed', now: deps.clock.now() }, context);
      }
    },
  };
}
