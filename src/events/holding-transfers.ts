import { z } from 'zod';
import { event, isoDate, rupiah, type EventOf } from './event.ts';
import { posting } from './gateway.ts';
import { text } from '../text.ts';

// stream gateway-holding-transfers: money an admin moved by hand between two of the platform's holding accounts (a
// QRIS wallet's takings into the WALLET-A payout account), booked in the gateway ledger and matched against the
// provider's mutations on both sides when they are synchronised

const postings = z
  .array(posting)
  .min(2)
  .refine(lines => lines.reduce((sum, p) => sum + p.amount, 0) === 0, { message: 'postings must sum to zero' });

/**
 * An admin recorded a transfer made by hand: `holding:<to>` (or, its CREDIT in suspense already, `platform:suspense`)
 * debited, `holding:<from>` credited, the same amount.
 */
export const HoldingTransferRecorded = event(
  'HoldingTransferRecorded',
  1,
  z.object({
    transferId: z.uuid(),
    fromAccountId: z.uuid(),
    toAccountId: z.uuid(),
    amount: rupiah,
    /** the provider's reference of the transfer as the admin made it */
    reference: text,
    note: text.nullable(),
    recordedBy: z.uuid(),
    recordedAt: isoDate,
    /** when the money left the source: its DEBIT's time when synchronised before the recording (absent: recordedAt) */
    transferredAt: isoDate.optional(),
    /**
     * the suspense credit that was the destination's side, synchronised before the recording: `platform:suspense` is
     * debited instead of `holding:<to>` (absent: none)
     */
    suspenseId: z.uuid().optional(),
    postings,
  }),
);

/** A synchronised mutation is the transfer's side: the DEBIT on its source, or the CREDIT on its destination. */
export const HoldingTransferMutationMatched = event(
  'HoldingTransferMutationMatched',
  1,
  z.object({
    transferId: z.uuid(),
    side: z.enum(['DEBIT', 'CREDIT']),
    mutationId: z.uuid(),
    accountId: z.uuid(),
    amount: rupiah,
    occurredAt: isoDate,
  }),
);

/**
 * An admin gave back the suspense credit the transfer had taken as its destination side (SuspenseCreditUntransferred,
 * same append): the credit stays booked as suspense, and the transfer's destination side is booked as any transfer's,
 * `holding:<to>` debited and `platform:suspense` credited (the reverse of the recording's suspense leg, when released),
 * its CREDIT awaited again.
 */
export const HoldingTransferCreditReleased = event(
  'HoldingTransferCreditReleased',
  1,
  z.object({
    transferId: z.uuid(),
    suspenseId: z.uuid(),
    /** the suspense credit's mutation, no longer the transfer's CREDIT side */
    mutationId: z.uuid(),
    toAccountId: z.uuid(),
    amount: rupiah,
    reason: text,
    releasedBy: z.uuid(),
    releasedAt: isoDate,
    postings,
  }),
);

export type HoldingTransferEvent =
  | EventOf<typeof HoldingTransferRecorded>
  | EventOf<typeof HoldingTransferMutationMatched>
  | EventOf<typeof HoldingTransferCreditReleased>;
