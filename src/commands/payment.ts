import { PaymentCompleted, PaymentCreated, PaymentExpired, type PaymentEvent } from '../events/payment.ts';
import type { EventOf } from '../events/event.ts';
import type { Decider } from './handle.ts';

export const paymentStream = (paymentId: string) => `payment-${paymentId}`;

export type PaymentDetails = EventOf<typeof PaymentCreated>['data'];

/** A payment ends in exactly one of COMPLETED or EXPIRED, and never moves again. */
export type Payment =
  | { status: 'NONE' }
  | (PaymentDetails & { status: 'PENDING' })
  | (PaymentDetails & { status: 'COMPLETED'; mutationId: string; paidAt: string; completedAt: string })
  | (PaymentDetails & { status: 'EXPIRED'; expiredAt: string });

export type PaymentCommand =
  | { type: 'CreatePayment'; payment: PaymentDetails }
  | { type: 'CompletePayment'; mutationId: string; paidAt: Date; now: Date }
  | { type: 'ExpirePayment'; now: Date };

function evolve(state: Payment, event: PaymentEvent): Payment {
  switch (event.type) {
    case 'PaymentCreated':
      return { ...event.data, status: 'PENDING' };
    case 'PaymentCompleted':
      return state.status === 'PENDING'
        ? { ...state, status: 'COMPLETED', mutationId: event.data.mutationId, paidAt: event.data.paidAt, completedAt: event.data.completedAt }
        : state;
    case 'PaymentExpired':
      return state.status === 'PENDING' ? { ...state, status: 'EXPIRED', expiredAt: event.data.expiredAt } : state;
    default: {
      const never: never = event;
      return never;
    }
  }
}

/**
 * Creating an existing payment changes nothing (the caller compares the request). A credit completes a pending
 * payment only when it was booked before the payment expired; the clock expires it only once expiresAt passed.
 */
function decide(state: Payment, command: PaymentCommand): PaymentEvent[] {
  switch (command.type) {
    case 'CreatePayment':
      return state.status === 'NONE' ? [PaymentCreated(command.payment)] : [];
    case 'CompletePayment':
      if (state.status !== 'PENDING') return [];
      if (command.paidAt.toISOString() >= state.expiresAt) return []; // paid when it had expired already
      return [
        PaymentCompleted({
          paymentId: state.paymentId,
          ownerId: state.ownerId,
          orderId: state.orderId,
          type: state.type,
          amount: state.amount,
          totalAmount: state.totalAmount,
          receivingAccountId: state.receivingAccountId,
          mutationId: command.mutationId,
          paidAt: command.paidAt.toISOString(),
          completedAt: command.now.toISOString(),
        }),
      ];
    case 'ExpirePayment':
      if (state.status !== 'PENDING' || command.now.toISOString() < state.expiresAt) return [];
      return [PaymentExpired({ paymentId: state.paymentId, ownerId: state.ownerId, receivingAccountId: state.receivingAccountId, expiredAt: command.now.toISOString() })];
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const payment: Decider<Payment, PaymentCommand, PaymentEvent> = {
  cached: true,
  initialState: () => ({ status: 'NONE' }),
  evolve,
  decide,
};
