import { createHash } from 'node:crypto';
import { refuse } from '../errors.ts';
import { OrderPaymentOpened, type OrderEvent } from '../events/payments-order.ts';
import type { Decider } from './decider.ts';

/** One stream per (owner, orderId): the orderId is the caller's text, so the stream is named by its hash. */
export const orderStream = (ownerId: string, orderId: string) =>
  `order-${ownerId}-${createHash('sha256').update(orderId).digest('hex').slice(0, 32)}`;

export type Order = { paymentId: string | null; openedAt: string | null };

export type OrderCommand = {
  type: 'OpenOrderPayment';
  ownerId: string;
  orderId: string;
  paymentId: string;
  /** what became of the payment the order last opened (looked up by the caller): still waiting, paid, or ended unpaid */
  previous: 'pending' | 'paid' | 'unpaid';
  now: Date;
};

export const orderAlreadyPaid = (orderId: string) =>
  refuse('ORDER_ALREADY_PAID', { message: `Order ${orderId} is paid already` });

export const orderStillPending = (orderId: string) =>
  refuse('ORDER_PENDING', { message: `Order ${orderId} already has a pending payment` });

function evolve(_state: Order, event: OrderEvent): Order {
  return { paymentId: event.data.paymentId, openedAt: event.data.openedAt };
}

/** An order has at most one pending payment, and is never billed again once paid; after an unpaid end it may be. */
function decide(state: Order, command: OrderCommand): OrderEvent[] {
  if (state.paymentId === command.paymentId) return []; // the same request again (Idempotency-Key)
  if (state.paymentId !== null && command.previous === 'pending') throw orderStillPending(command.orderId);
  if (state.paymentId !== null && command.previous === 'paid') throw orderAlreadyPaid(command.orderId);
  return [
    OrderPaymentOpened({
      ownerId: command.ownerId,
      orderId: command.orderId,
      paymentId: command.paymentId,
      openedAt: command.now.toISOString(),
    }),
  ];
}

export const order: Decider<Order, OrderCommand, OrderEvent> = {
  cached: true,
  // a payment's order id is usually new: not read unless it turns out to exist (the append refuses it then)
  likelyNew: true,
  // written when a payment opens for it (again only after an unpaid end)
  shortLived: true,
  initialState: () => ({ paymentId: null, openedAt: null }),
  evolve,
  decide,
};
