import { z } from 'zod';
import { event, isoDate, rupiah, type EventOf } from './event.ts';
import { text } from '../text.ts';

// stream receiving-<accountId>: the payable amounts and virtual accounts held by pending payments
export const PayableReserved = event(
  'PayableReserved',
  1,
  z.object({
    accountId: z.uuid(),
    paymentId: z.uuid(),
    uniqueCode: rupiah,
    totalAmount: rupiah,
    vaNumber: text.nullable(),
    expiresAt: isoDate,
    reservedAt: isoDate,
  }),
);

export const PayableReleased = event(
  'PayableReleased',
  1,
  z.object({
    accountId: z.uuid(),
    paymentId: z.uuid(),
    reason: z.enum(['completed', 'expired']),
    releasedAt: isoDate,
  }),
);

export type ReceivingEvent = EventOf<typeof PayableReserved> | EventOf<typeof PayableReleased>;
