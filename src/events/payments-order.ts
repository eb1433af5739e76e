import { z } from 'zod';
import { event, isoDate, type EventOf } from './event.ts';
import { text } from '../text.ts';

// stream order-<ownerId>-<hash of orderId>: which payment an order is waiting for
/** A payment opened for the order: the order's payment from now on (one pending at a time, none after one was paid). */
export const OrderPaymentOpened = event(
  'OrderPaymentOpened',
  1,
  z.object({
    ownerId: z.uuid(),
    orderId: text,
    paymentId: z.uuid(),
    openedAt: isoDate,
  }),
);

export type OrderEvent = EventOf<typeof OrderPaymentOpened>;
