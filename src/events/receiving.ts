import { z } from 'zod';
import { event, isoDate, rupiah, type EventOf } from './event.ts';
import { text } from '../text.ts';

// stream receiving-<accountId>: the payable amounts and virtual accounts held by pending payments
/**
 * A pending payment's bill held on the account: a total no other pending payment of the account has (also written alone
 * to `payable-<accountId>-<totalAmount>` for a unique-code bill), or a virtual account's number.
 */
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

/** The bill's hold freed: its payment completed or expired. */
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
