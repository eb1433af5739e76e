import { refuse, type DomainError } from '../errors.ts';
import {
  PaymentCompleted,
  PaymentCreated,
  PaymentExpired,
  PaymentMethodChosen,
  type PaymentEvent,
} from '../events/payments.ts';
import type { EventOf } from '../events/event.ts';
import type { Decider } from './decider.ts';

export const paymentStream = (paymentId: string) => `payment-${paymentId}`;

export type PaymentDetails = EventOf<typeof PaymentCreated>['data'];

/** A payment ends in exactly one of COMPLETED or EXPIRED, and never moves again. */
export type Payment =
  | { status: 'NONE' }
  | (PaymentDetails & { status: 'PENDING' })
  | (PaymentDetails & { status: 'COMPLETED'; mutationId: string; paidAt: string; completedAt: string })
  | (PaymentDetails & { status: 'EXPIRED'; expiredAt: string });

/** How the payer pays, once chosen: the payable reserved for it and where to send the money. */
export type ChosenMethod = EventOf<typeof PaymentMethodChosen>['data'];

export type PaymentCommand =
  | { type: 'CreatePayment'; payment: PaymentDetails }
  | { type: 'ChoosePaymentMethod'; method: Omit<ChosenMethod, 'paymentId' | 'chosenAt'>; now: Date }
  | { type: 'CompletePayment'; mutationId: string; paidAt: Date; now: Date }
  | { type: 'ExpirePayment'; now: Date };

/** Why the payer cannot choose a method now (it is no longer pending, or chose already), or null. */
export function choiceRefusal(state: Payment, now: Date): DomainError | null {
  if (state.status === 'NONE') return refuse('PAYMENT_NOT_PENDING', { message: 'The payment is unknown' });
  if (state.status !== 'PENDING' || now.toISOString() >= state.expiresAt)
    return refuse('PAYMENT_NOT_PENDING', {
      message: `The payment is ${state.status === 'PENDING' ? 'EXPIRED' : state.status}`,
    });
  if (state.type !== null)
    return refuse('PAYMENT_METHOD_CHOSEN', { message: `The payment method was chosen already (${state.type})` });
  return null;
}

function evolve(state: Payment, event: PaymentEvent): Payment {
  switch (event.type) {
    case 'PaymentCreated':
      return { ...event.data, status: 'PENDING' };
    case 'PaymentMethodChosen': {
      if (state.status === 'NONE') return state;
      const { type, uniqueCode, totalAmount, accountNumber, qrisPayload, gateway } = event.data;
      const chosen = { ...state, type, uniqueCode, totalAmount, accountNumber, qrisPayload };
      if (!gateway || !state.gateway) return chosen;
      // the payer's choice fixed the holding account, and the bill of the method (the fee, raised for the buyer or not)
      const { receivingAccountId, providerCode, amount, fee } = gateway;
      return { ...chosen, receivingAccountId, providerCode, amount, gateway: { ...state.gateway, fee } };
    }
    case 'PaymentCompleted':
      return state.status === 'PENDING'
        ? {
            ...state,
            status: 'COMPLETED',
            mutationId: event.data.mutationId,
            paidAt: event.data.paidAt,
            completedAt: event.data.completedAt,
          }
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
    case 'ChoosePaymentMethod': {
      if (state.status === 'PENDING' && state.type === command.method.type) return []; // the same choice again
      const refusal = choiceRefusal(state, command.now);
      if (refusal || state.status !== 'PENDING') throw refusal;
      return [
        PaymentMethodChosen({ paymentId: state.paymentId, ...command.method, chosenAt: command.now.toISOString() }),
      ];
    }
    case 'CompletePayment':
      // only a billed payment (its method chosen) can be paid
      if (
        state.status !== 'PENDING' ||
        state.type === null ||
        state.totalAmount === null ||
        state.receivingAccountId === null
      )
        return [];
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
          gateway: state.gateway ? { fee: state.gateway.fee ?? 0 } : null,
        }),
      ];
    case 'ExpirePayment':
      if (state.status !== 'PENDING' || command.now.toISOString() < state.expiresAt) return [];
      return [
        PaymentExpired({
          paymentId: state.paymentId,
          ownerId: state.ownerId,
          receivingAccountId: state.receivingAccountId,
          expiredAt: command.now.toISOString(),
        }),
      ];
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const payment: Decider<Payment, PaymentCommand, PaymentEvent> = {
  cached: true,
  // created, its method perhaps chosen, then completed or expired: a few events within its first hours
  shortLived: true,
  initialState: () => ({ status: 'NONE' }),
  evolve,
  decide,
};
