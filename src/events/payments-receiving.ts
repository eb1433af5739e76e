import { z } from 'zod';
import { event, isoDate, rupiah, type EventOf } from './event.ts';
import { text } from '../text.ts';

// stream receiving-<accountId>: the virtual accounts pending payments hold (unique-code bills are claimed)
/**
 * A pending payment's bill held on the account: a virtual account's number on the receiving stream, or a unique-code
 * bill's total, which no other pending payment of the account has, on `payable-<accountId>-<totalAmount>`. Unique-code
 * bills reserved on the receiving stream before claims existed are carried over to their claims at start-up.
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

/**
 * The bill's hold freed: its payment completed or expired; or, for a unique-code bill reserved on the receiving stream
 * before claims, carried over to the claim on its total (src/commands/payments-carry-over.ts).
 */
export const PayableReleased = event(
  'PayableReleased',
  1,
  z.object({
    accountId: z.uuid(),
    paymentId: z.uuid(),
    reason: z.enum(['completed', 'expired', 'carried']),
    releasedAt: isoDate,
  }),
);

export type ReceivingEvent = EventOf<typeof PayableReserved> | EventOf<typeof PayableReleased>;
