import { suspense, suspenseStream } from '../domain/gateway-suspense.ts';
import type { Handled } from '../store/commands/handle.ts';
import {
  holdingAccounts,
  holdingAccountsStream,
  type HoldingAccount,
  type HoldingAccounts,
} from '../domain/holding-accounts.ts';
import {
  holdingTransfers,
  holdingTransfersStream,
  waitingFor,
  type HoldingTransfers,
  type SeenMutation,
} from '../domain/holding-transfers.ts';
import { payment, paymentStream, type Payment } from '../domain/payments.ts';
import type { MutationRecorded } from '../events/account.ts';
import type { EventOf } from '../events/event.ts';
import type { PaymentEvent } from '../events/payments.ts';
import { payableClaim } from '../domain/payments-payable-claims.ts';
import { billRelease, receiving, type Payable } from '../domain/payments-receiving.ts';
import { causeOf, command, followUp, next, reaction, type Step, type Stored } from './reaction.ts';
import { readPayable, readStream } from './reads.ts';
import { sagaOf, type ReactionDeps, type Saga } from './runner.ts';

const actor = 'system:payment-matching';
const ownTransfer = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A synchronised credit and the event that recorded it (`<stream>@<revision>`). */
export type Credited = { credit: EventOf<typeof MutationRecorded>['data']; cause: string };

/** A synchronised mutation as a hand transfer's side would be. */
const seen = (m: Credited['credit']): SeenMutation => ({
  mutationId: m.mutationId,
  accountId: m.accountId,
  side: m.type,
  amount: m.amount,
  occurredAt: m.occurredAt,
});
const matchSide = (credit: Credited['credit'], cause: string, now: Date) =>
  command(
    holdingTransfersStream,
    holdingTransfers,
    { type: 'MatchHoldingTransferMutation', mutation: seen(credit) },
    {
      actor,
      now,
      causationId: cause,
      correlationId: credit.mutationId,
      eventIds: { saga: 'payment-matching-transfer', cause },
    },
  );

/**
 * A credit that paid no payment: the CREDIT side of a hand transfer waiting for it (the ledger booked the money when the
 * admin recorded the transfer; the payout account may be its destination, marked or not), else, into a holding account
 * (`holding`), the platform's suspense, for an admin to allocate or refund; else the owner's own.
 */
export const transferCredit: Step<Credited & { holding: HoldingAccount | null }, HoldingTransfers> = {
  reads: () => readStream(holdingTransfersStream, holdingTransfers),
  decide({ credit, cause, holding }, state, now) {
    if (waitingFor(state, seen(credit))) return [matchSide(credit, cause, now)];
    if (!holding) return [];
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

/** A credit that paid no payment: a hand transfer's side, or suspense when into a holding account. */
export const unclaimed: Step<Credited, HoldingAccounts> = {
  reads: () => readStream(holdingAccountsStream, holdingAccounts),
  decide({ credit, cause }, state) {
    const marked = state.accounts.find(a => a.accountId === credit.accountId);
    // not the gateway's: the owner's own unmatched credit (or the account's history from before it held the gateway's money)
    const holding = marked && Date.parse(credit.occurredAt) >= Date.parse(marked.markedAt) ? marked : null;
    return [next(transferCredit, { credit, cause, holding })];
  },
};

/** A DEBIT of a holding account: the source side of a hand transfer waiting for it (the others are payouts and refunds). */
export const transferDebit: Step<Credited, HoldingTransfers> = {
  reads: () => readStream(holdingTransfersStream, holdingTransfers),
  decide({ credit, cause }, state, now) {
    return waitingFor(state, seen(credit)) ? [matchSide(credit, cause, now)] : [];
  },
};

/** What completing the payment came to: completed by this credit frees its payable; otherwise the credit is unclaimed. */
export const completion: Step<Credited & { matched: Payable; outcome: Handled<Payment, PaymentEvent> }> = {
  decide({ credit, cause, matched, outcome }, _, now) {
    const { state } = outcome;
    // the payment expired or was paid by another credit meanwhile
    if (state.status !== 'COMPLETED' || state.mutationId !== credit.mutationId)
      return [next(unclaimed, { credit, cause })];
    const { paymentId } = matched;
    const release = billRelease({ accountId: credit.accountId, ...matched }, 'completed', now);
    const context = { actor, now, causationId: cause, correlationId: paymentId };
    return [
      release.on === 'claim'
        ? command(release.streamId, payableClaim, release.command, context)
        : command(release.streamId, receiving, release.command, context),
    ];
  },
};

/** The payable the credit pays completes its payment, with event ids derived from the credit; none: unclaimed. */
export const credited: Step<Credited, Payable | null> = {
  reads: ({ credit }) => readPayable(credit.accountId, credit),
  decide({ credit, cause }, matched, now) {
    // unmatched: kept as a mutation (and in suspense, if a holding account's)
    if (!matched) return [next(unclaimed, { credit, cause })];
    const { paymentId } = matched;
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
    // the service's own transfers reference their transfer (a UUID): never a hand transfer's side
    if (event.data.type === 'DEBIT')
      return ownTransfer.test(event.data.reference ?? '')
        ? []
        : [next(transferDebit, { credit: event.data, cause: causeOf(event) })];
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
