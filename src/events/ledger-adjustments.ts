import { z } from 'zod';
import { event, isoDate, type EventOf } from './event.ts';
import { posting } from './gateway.ts';
import { text } from '../text.ts';

// stream gateway-ledger-adjustments: entries that bring a holding account's cash in the ledger to what its provider
// holds, against the platform's equity: the opening booked when an account is marked, and an admin's dated entries

const postings = z
  .array(posting)
  .length(2)
  .refine(lines => lines.reduce((sum, p) => sum + p.amount, 0) === 0, { message: 'postings must sum to zero' });

/** a signed amount of rupiah, never zero: the holding account's change (positive: debited, more cash) */
const change = z
  .int()
  .min(-Number.MAX_SAFE_INTEGER)
  .max(Number.MAX_SAFE_INTEGER)
  .refine(n => n !== 0, { message: 'an entry moves money' });

/**
 * An account was marked as a holding account while its provider held money the ledger did not: `holding:<accountId>`
 * debited with the provider's balance less the ledger's cash (credited when the ledger held more), `platform:equity`
 * the other side. `effectiveAt` is the time of the synchronised balance it books.
 */
export const HoldingOpeningBooked = event(
  'HoldingOpeningBooked',
  1,
  z.object({
    entryId: z.uuid(),
    accountId: z.uuid(),
    amount: change,
    /** the provider's balance as last synchronised, at `effectiveAt` */
    providerBalance: z.int(),
    /** the account's cash in the ledger before the entry */
    ledgerCash: z.int(),
    effectiveAt: isoDate,
    bookedBy: z.uuid(),
    bookedAt: isoDate,
    postings,
  }),
);

/** An admin's opening or correcting entry for a holding account, dated when it takes effect, with the reason. */
export const LedgerAdjustmentBooked = event(
  'LedgerAdjustmentBooked',
  1,
  z.object({
    entryId: z.uuid(),
    accountId: z.uuid(),
    amount: change,
    effectiveAt: isoDate,
    reason: text,
    bookedBy: z.uuid(),
    bookedAt: isoDate,
    postings,
  }),
);

export type LedgerAdjustmentEvent = EventOf<typeof HoldingOpeningBooked> | EventOf<typeof LedgerAdjustmentBooked>;
