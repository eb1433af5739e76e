import { describe, it } from 'vitest';
import { gatewayLedger, gatewayLedgerStream } from '../../src/domain/gateway-ledger.ts';
import { paymentStream } from '../../src/domain/payments.ts';
import { PaymentCompleted } from '../../src/events/payments.ts';
import { gatewayLedgerCredits } from '../../src/sagas/gateway-ledger.ts';
import { command } from '../../src/sagas/reaction.ts';
import { reactionSpecification, stored, t0 } from './reaction-specification.ts';

const merchantId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
const holdingAccountId = '3c1d2b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const paymentId = '6a0c1d2e-3f40-4152-8364-758697a8b9c0';
const completedAt = '2026-03-02T02:59:00.000Z';
// the provider's time of the credit, before the service saw it
const paidAt = '2026-03-02T02:58:40.000Z';
const completion = (gateway: { fee: number } | null) =>
  stored(
    PaymentCompleted({
      paymentId,
      ownerId: merchantId,
      orderId: 'INV-1',
      type: 'QRIS-DYNAMIC',
      amount: 100_000,
      totalAmount: 100_123,
      receivingAccountId: holdingAccountId,
      mutationId: '7b1d2e3f-4051-4263-9475-8697a8b9c0d1',
      paidAt,
      completedAt,
      gateway,
    }),
    { streamId: paymentStream(paymentId), revision: 1 },
  );
const cause = `${paymentStream(paymentId)}@1`;

describe('gateway ledger reaction', () => {
  const { given } = reactionSpecification(gatewayLedgerCredits);

  it('books a completed gateway payment into its merchant ledger, what the buyer paid above its amount as its unique code, when its money moved, with event ids derived from the completion', () =>
    given([])
      .when(completion({ fee: 900 }))
      .then([
        command(
          gatewayLedgerStream(merchantId),
          gatewayLedger,
          {
            type: 'CreditGatewayPayment',
            merchantId,
            paymentId,
            holdingAccountId,
            totalAmount: 100_123,
            fee: 900,
            uniqueCode: 123,
            completedAt: new Date(completedAt),
            paidAt: new Date(paidAt),
            now: t0,
          },
          {
            actor: 'system:gateway-ledger',
            now: t0,
            causationId: cause,
            correlationId: paymentId,
            eventIds: { saga: 'gateway-ledger', cause },
          },
        ),
      ]));

  it('books nothing for an ordinary payment (no gateway fee)', () => given([]).when(completion(null)).then([]));

  it('reads nothing: the completion says all', () =>
    given([])
      .when(completion({ fee: 900 }))
      .reads(undefined));
});
