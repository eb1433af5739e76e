import { z } from 'zod';
import { event, isoDate, type EventOf } from './event.ts';
import { text } from '../text.ts';

// stream payout-reference-<hash of the normalised reference>: which withdrawal a bank transfer's reference paid
/** A withdrawal recorded paid with this bank reference (by hand or through WALLET-A): no other withdrawal can use it. */
export const PayoutReferenceClaimed = event(
  'PayoutReferenceClaimed',
  1,
  z.object({
    /** as the admin typed it (trimmed) */
    reference: text,
    merchantId: z.uuid(),
    withdrawalId: z.uuid(),
    claimedAt: isoDate,
  }),
);

export type PayoutReferenceEvent = EventOf<typeof PayoutReferenceClaimed>;
