import { gatewayLedger as ledger, gatewayLedgerStream } from '../domain/gateway-ledger.ts';
import { causeOf, command, reaction, type Step, type Stored } from './reaction.ts';
import { sagaOf, type ReactionDeps, type Saga } from './runner.ts';

/**
 * A completed gateway payment, booked: the holding account, the merchant's pending balance, the platform's fee and the
 * unique code.
 */
const completed: Step<Stored<'PaymentCompleted'>> = {
  decide(event, _, now) {
    if (event.data.gateway === null) return [];
    const { ownerId, paymentId, receivingAccountId, amount, totalAmount, completedAt, paidAt, gateway } = event.data;
    const cause = causeOf(event);
    const context = {
      actor: 'system:gateway-ledger',
      now,
      causationId: cause,
      correlationId: paymentId,
      eventIds: { saga: 'gateway-ledger', cause },
    };
    const credit = {
      merchantId: ownerId,
      paymentId,
      holdingAccountId: receivingAccountId,
      totalAmount,
      fee: gateway.fee,
      // the bill is amount (its fee on it); what the buyer paid on top is the unique code
      uniqueCode: totalAmount - amount,
      completedAt: new Date(completedAt),
      // booked when the money moved, not when the service noticed it (a provider out of reach past midnight)
      paidAt: new Date(paidAt),
    };
    // creditGatewayPayment's command (src/commands/gateway-ledger.ts)
    return [command(gatewayLedgerStream(ownerId), ledger, { type: 'CreditGatewayPayment', ...credit, now }, context)];
  },
};

/**
 * Books a completed gateway payment into its merchant's ledger (`gateway-<merchantId>`): the whole amount into the
 * holding account it was paid to, the bill's amount less its fee to the merchant's pending balance, the fee and the
 * unique code to the platform. Once: the event ids derive from the completion, and the ledger credits a payment only
 * once.
 */
export const gatewayLedgerCredits = reaction('gateway-ledger', { PaymentCompleted: completed });

/** The reaction as the runner runs it (tests hand it events directly). */
export const gatewayLedgerSaga = (deps: ReactionDeps): Saga => sagaOf(gatewayLedgerCredits, deps);
