import { describe, it } from 'vitest';
import { payment, paymentStream } from '../../src/domain/payments.ts';
import { PaymentCreated, PaymentExpired } from '../../src/events/payments.ts';
import { deterministicUuid } from '../../src/ids.ts';
import { paymentWebhooks } from '../../src/sagas/payment-webhooks.ts';
import { publishWebhook } from '../../src/sagas/reaction.ts';
import { readStream } from '../../src/sagas/reads.ts';
import { reactionSpecification, stored } from './reaction-specification.ts';
import {
  accountId,
  mutationId,
  ownerId,
  paymentCompleted,
  paymentDetails,
  paymentId,
} from '../support/payment-fixtures.ts';

const baseUrl = 'https://pay.example';
const details = paymentDetails();
const created = PaymentCreated(details);
const completed = paymentCompleted({ paidAt: '2026-03-02T03:10:00.000Z', completedAt: '2026-03-02T03:11:00.000Z' });
const expired = PaymentExpired({
  paymentId,
  ownerId,
  receivingAccountId: accountId,
  expiredAt: '2026-03-02T04:00:05.000Z',
});
const at = { streamId: paymentStream(paymentId), revision: 1 };

/** The payment as the status query shows it (the interface's Payment resource). */
const shown = {
  id: paymentId,
  orderId: 'INV-1',
  walletAccountId: accountId,
  type: 'QRIS-DYNAMIC',
  amount: 50_000,
  uniqueCode: 7,
  totalAmount: 50_007,
  qrisImage: `${baseUrl}/pay/${paymentId}/qris.png`,
  qrString: 'qr',
  paymentUrl: `${baseUrl}/pay/${paymentId}`,
  redirectUrl: 'https://shop.example/done',
  expiresAt: '2026-03-02T04:00:00.000Z',
  createdAt: '2026-03-02T03:00:00.000Z',
};

describe('payment webhooks reaction', () => {
  const { given } = reactionSpecification(paymentWebhooks(baseUrl));

  it('reads the payment from its stream', () =>
    given([])
      .when(stored(completed, at))
      .reads(readStream(paymentStream(paymentId), payment)));

  it('publishes payment.completed with the payment as the status query shows it, under an id derived from the payment', () =>
    given([created, completed])
      .when(stored(completed, at))
      .then([
        publishWebhook({
          ownerId,
          eventId: deterministicUuid(`webhook:${paymentId}:payment.completed`),
          type: 'payment.completed',
          createdAt: '2026-03-02T03:11:00.000Z',
          data: {
            ...shown,
            status: 'COMPLETED',
            paidAt: '2026-03-02T03:10:00.000Z',
            completedAt: '2026-03-02T03:11:00.000Z',
          },
        }),
      ]));

  it('publishes payment.expired at the expiry', () =>
    given([created, expired])
      .when(stored(expired, at))
      .then([
        publishWebhook({
          ownerId,
          eventId: deterministicUuid(`webhook:${paymentId}:payment.expired`),
          type: 'payment.expired',
          createdAt: '2026-03-02T04:00:05.000Z',
          data: { ...shown, status: 'EXPIRED', expiredAt: '2026-03-02T04:00:05.000Z' },
        }),
      ]));

  it('publishes nothing for a payment whose stream is gone', () => given([]).when(stored(completed, at)).then([]));
});
