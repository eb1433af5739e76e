import { handleCommand, load } from '../commands/handle.ts';
import { payment, paymentStream } from '../commands/payment.ts';
import { payablesOf, receiving, receivingStream, type Payable, type Receiving } from '../commands/receiving.ts';
import { indexOf } from '../commands/receiving-index.ts';
import { sagaEventId } from './event-id.ts';
import type { SagaDeps } from './all.ts';
import type { Saga } from './runner.ts';

/**
 * The payable a credit pays: for a virtual account, the one whose number the credit's reference carries and whose
 * total it equals; otherwise the pending bill of exactly that total on that account. Payables still held when
 * the money was booked come first, then the earliest reserved. Looked up by total and by number, not by a pass over
 * every payable of a busy account.
 */
export function matchCredit(state: Receiving, credit: { amount: number; reference: string | null; occurredAt: string }): Payable | null {
  const index = indexOf(state.chunks);
  const reference = credit.reference ?? '';
  const numbers: string[] = [];
  if (reference !== '') for (const number of index.vaNumbers.keys()) if (reference.includes(number)) numbers.push(number);
  // two numbers in one reference: their payables in reservation order, as one pass would meet them
  const carried = numbers.length <= 1
    ? numbers.flatMap(n => index.vaNumbers.get(n)!)
    : payablesOf(state).filter(p => p.vaNumber !== null && numbers.includes(p.vaNumber));
  const byNumber = carried.filter(p => p.totalAmount === credit.amount);
  const byTotal = index.totals.get(credit.amount) ?? [];
  const held = (p: Payable) => p.expiresAt >= credit.occurredAt;
  return byNumber.find(held) ?? byNumber.find(p => !held(p)) ?? byTotal.find(held) ?? byTotal.find(p => !held(p)) ?? null;
}

/** Completes the pending payment a synchronised credit pays, once, and frees its payable amount. */
export function paymentMatchingSaga(deps: SagaDeps): Saga {
  return {
    name: 'payment-matching',
    handles: ['MutationRecorded'],
    async handle(event) {
      if (event.type !== 'MutationRecorded' || event.data.type !== 'CREDIT') return;
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
