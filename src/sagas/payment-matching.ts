import { suspense, suspenseStream } from '../domain/gateway-suspense.ts';
import type { Handled } from '../store/commands/handle.ts';
import { holdingAccounts, holdingAccountsStream, type HoldingAccounts } from '../domain/holding-accounts.ts';
import { payment, paymentStream, type Payment } from '../domain/payment.ts';
import type { MutationRecorded } from '../events/account.ts';
import type { EventOf } from '../events/event.ts';
import type { PaymentEvent } from '../events/payment.ts';
import {
  causeOf,
  command,
  followUp,
  next,
  reaction,
  readPayable,
  readStream,
  releasePayable,
  type MatchedPayable,
  type Step,
  type Stored,
} from './reaction.ts';
import { sagaOf, type ReactionDeps, type Saga } from './runner.ts';

const actor = 'system:payment-matching';

/** A synchronised credit and the event that recorded it (`<stream>@<revision>`). */
export type Credited = { credit: EventOf<typeof MutationRecorded>['data']; cause: string };

/** A credit into a holding account that paid no payment: the platform's suspense, for an admin to allocate or refund. */
export const unclaimed: Step<Credited, HoldingAccounts> = {
  reads: () => readStream(holdingAccountsStream, holdingAccounts),
  decide({ credit, cause }, state, now) {
    const holding = state.accounts.find(a => a.accountId === credit.accountId);
    // not the gateway's: the owner's own unmatched credit (or the account's history from before it held the gateway's money)
    if (!holding || Date.parse(credit.occurredAt) < Date.parse(holding.markedAt)) return [];
    const { mutationId, accountId, amount, senderName, reference } = credit;
    // receiveSuspenseCredit's command (src/commands/gateway-suspense.ts)
    return [
      command(
        suspenseStream,
        suspense,
        {
          type: 'ReceiveSuspenseCredit',
          mutationId,
          accountId,
          providerCode: holding.providerCode,
          amount,
          senderName,
          reference,
          receivedAt: new Date(credit.occurredAt),
        },
        {
          actor,
          now,
          causationId: cause,
          correlationId: mutationId,
          eventIds: { saga: 'payment-matching-suspense', cause },
        },
      ),
    ];
  },
};

/** What completing the payment came to: completed by this credit frees its payable; otherwise the credit is unclaimed. */
export const completion: Step<Credited & { matched: MatchedPayable; outcome: Handled<Payment, PaymentEvent> }> = {
  decide({ credit, cause, matched, outcome }, _, now) {
    const { state } = outcome;
    // the payment expired or was paid by another credit meanwhile
    if (state.status !== 'COMPLETED' || state.mutationId !== credit.mutationId)
      return [next(unclaimed, { credit, cause })];
    const { paymentId, totalAmount } = matched.payable;
    return [
      releasePayable(
        { accountId: credit.accountId, paymentId, totalAmount, claimed: matched.claimed, reason: 'completed', now },
        { actor, now, causationId: cause, correlationId: paymentId },
      ),
    ];
  },
};

/** The payable the credit pays completes its payment, with event ids derived from the credit; none: unclaimed. */
export const credited: Step<Credited, MatchedPayable | null> = {
  reads: ({ credit }) => readPayable(credit.accountId, credit),
  decide({ credit, cause }, matched, now) {
    // unmatched: kept as a mutation (and in suspense, if a holding account's)
    if (!matched) return [next(unclaimed, { credit, cause })];
    const { paymentId } = matched.payable;
    return [
      command(
        paymentStream(paymentId),
        payment,
        { type: 'CompletePayment', mutationId: credit.mutationId, paidAt: new Date(credit.occurredAt), now },
        { actor, now, causationId: cause, correlationId: paymentId, eventIds: { saga: 'payment-matching', cause } },
        followUp(completion, { credit, cause, matched }),
      ),
    ];
  },
};

const recorded: Step<Stored<'MutationRecorded'>> = {
  decide(event) {
    if (event.data.type !== 'CREDIT') return [];
    // a failed transfer's amount given back to the wallet is not a customer's payment
    if (event.data.providerTransactionId.startsWith('transfer-reversal:')) return [];
    return [next(credited, { credit: event.data, cause: causeOf(event) })];
  },
};

/**
 * Completes the pending payment a synchronised credit pays, once, and frees its payable amount. A credit into a
 * holding account that completes nothing (no payable, or its payment expired or paid meanwhile) goes to suspense.
 */
export const paymentMatching = reaction('payment-matching', { MutationRecorded: recorded });

/** The reaction as the runner runs it. */
export const paymentMatchingSaga = (deps: ReactionDeps): Saga => sagaOf(paymentMatching, deps);
