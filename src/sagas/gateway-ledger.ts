import { creditGatewayPayment } from '../commands/gateway-ledger.ts';
import { sagaEventId } from '../ids.ts';
import type { SagaDeps } from './all.ts';
import type { Saga } from './runner.ts';

/**
 * Books a completed gateway payment into its merchant's ledger (`gateway-<merchantId>`): the whole amount into the
 * holding account it was paid to, the net to the merchant's pending balance, the fee to the platform. Once: the event
 * ids derive from the completion, and the ledger credits a payment only once.
 */
export function gatewayLedgerSaga(deps: SagaDeps): Saga {
  return {
    name: 'gateway-ledger',
    handles: ['PaymentCompleted'],
    async handle(event) {
      if (event.type !== 'PaymentCompleted' || event.data.gateway === null) return;
      const { ownerId, paymentId, receivingAccountId, totalAmount, completedAt, gateway } = event.data;
      const cause = `${event.streamId}@${event.revision}`;
      await creditGatewayPayment(
        deps,
        { merchantId: ownerId, paymentId, holdingAccountId: receivingAccountId, totalAmount, fee: gateway.fee, completedAt: new Date(completedAt) },
        { actor: 'system:gateway-ledger', now: deps.clock.now(), causationId: cause, correlationId: paymentId, eventId: i => sagaEventId('gateway-ledger', cause, i) },
      );
    },
  };
}
