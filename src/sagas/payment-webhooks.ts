import type pg from 'pg';
import { load } from '../commands/handle.ts';
import { payment, paymentStream } from '../commands/payment.ts';
import { presentPayment, rowOfPayment } from '../projections/payment-presenter.ts';
import { enqueueWebhookEvent } from '../webhooks/outbox.ts';
import { deterministicUuid } from '../ids.ts';
import type { SagaDeps } from './all.ts';
import type { Saga } from './runner.ts';

/**
 * `payment.completed` and `payment.expired` for every endpoint of the payment's owner. The webhook event id is
 * derived from the payment and the kind, so the saga running twice publishes once; the payload is the payment as
 * the status query shows it.
 */
export function paymentWebhooksSaga(deps: SagaDeps & { pool: pg.Pool; publicBaseUrl: string }): Saga {
  return {
    name: 'payment-webhooks',
    handles: ['PaymentCompleted', 'PaymentExpired'],
    async handle(event) {
      if (event.type !== 'PaymentCompleted' && event.type !== 'PaymentExpired') return;
      const type = event.type === 'PaymentCompleted' ? 'payment.completed' : 'payment.expired';
      const { state } = await load(deps, paymentStream(event.data.paymentId), payment);
      if (state.status === 'NONE') return;
      await enqueueWebhookEvent(deps, {
        ownerId: state.ownerId,
        eventId: deterministicUuid(`webhook:${event.data.paymentId}:${type}`),
        type,
        createdAt: event.type === 'PaymentCompleted' ? event.data.completedAt : event.data.expiredAt,
        data: presentPayment(rowOfPayment(state), deps.publicBaseUrl),
      });
    },
  };
}
