import { payment, paymentStream, type Payment } from '../domain/payments.ts';
import { presentPayment, rowOfPayment } from '../projections/payment-presenter.ts';
import { deterministicUuid } from '../ids.ts';
import { publishWebhook, reaction, type Reaction, type Step, type Stored } from './reaction.ts';
import { readStream } from './reads.ts';
import { sagaOf, type ReactionDeps, type Saga } from './runner.ts';

type Ended = Stored<'PaymentCompleted'> | Stored<'PaymentExpired'>;

/** The payment as its stream holds it now, published as the status query shows it. */
const published = (publicBaseUrl: string): Step<Ended, Payment> => ({
  reads: event => readStream(paymentStream(event.data.paymentId), payment),
  decide(event, state) {
    if (state.status === 'NONE') return [];
    const type = event.type === 'PaymentCompleted' ? 'payment.completed' : 'payment.expired';
    return [
      publishWebhook({
        ownerId: state.ownerId,
        eventId: deterministicUuid(`webhook:${event.data.paymentId}:${type}`),
        type,
        createdAt: event.type === 'PaymentCompleted' ? event.data.completedAt : event.data.expiredAt,
        data: presentPayment(rowOfPayment(state), publicBaseUrl),
      }),
    ];
  },
});

/**
 * `payment.completed` and `payment.expired` for every endpoint of the payment's owner. The webhook event id is
 * derived from the payment and the kind, so the saga running twice publishes once; the payload is the payment as
 * the status query shows it.
 */
export function paymentWebhooks(publicBaseUrl: string): Reaction {
  const step = published(publicBaseUrl);
  return reaction('payment-webhooks', { PaymentCompleted: step, PaymentExpired: step });
}

/** The reaction as the runner runs it. */
export const paymentWebhooksSaga = (deps: ReactionDeps & { publicBaseUrl: string }): Saga =>
  sagaOf(paymentWebhooks(deps.publicBaseUrl), deps);
