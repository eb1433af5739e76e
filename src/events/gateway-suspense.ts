import { z } from 'zod';
import { event, isoDate, rupiah, type EventOf } from './event.ts';
import { posting } from './gateway.ts';
import { text } from '../text.ts';

// stream gateway-suspense: money paid into a holding account that no payment claims, owed by the platform
// (`platform:suspense`) until an admin allocates it to a merchant or records its refund

const postings = z
  .array(posting)
  .min(2)
  .refine(lines => lines.reduce((sum, p) => sum + p.amount, 0) === 0, { message: 'postings must sum to zero' });

/** A credit into a holding account that matched no payment: the holding account's cash up, suspense owed. */
export const SuspenseCreditReceived = event(
  'SuspenseCreditReceived',
  1,
  z.object({
    suspenseId: z.uuid(),
    mutationId: z.uuid(),
    accountId: z.uuid(),
    /** the holding account's provider: the fee of an allocation follows its method */
    providerCode: text,
    amount: rupiah,
    senderName: text,
    reference: text.nullable(),
    receivedAt: isoDate,
    postings,
  }),
);

/** An admin gave the credit to a merchant (the merchant's ledger records the money: GatewaySuspenseAllocated). */
export const SuspenseCreditAllocated = event(
  'SuspenseCreditAllocated',
  1,
  z.object({
    suspenseId: z.uuid(),
    merchantId: z.uuid(),
    paymentId: z.uuid().nullable(),
    amount: rupiah,
    fee: rupiah,
    net: rupiah,
    note: text.nullable(),
    allocatedBy: z.uuid(),
    allocatedAt: isoDate,
    /** the payment's unique code, kept by the platform (net = amount - fee - uniqueCode); absent: none kept */
    uniqueCode: rupiah.optional(),
  }),
);

/** An admin recorded that the credit was sent back to its payer: the holding account's cash down, nothing owed. */
export const SuspenseCreditRefunded = event(
  'SuspenseCreditRefunded',
  1,
  z.object({
    suspenseId: z.uuid(),
    accountId: z.uuid(),
    amount: rupiah,
    reference: text,
    note: text.nullable(),
    refundedBy: z.uuid(),
    refundedAt: isoDate,
    postings,
  }),
);

/**
 * The credit was the destination's side of a hand transfer recorded after it arrived: the transfer's entry takes it out
 * of suspense (HoldingTransferRecorded debits `platform:suspense`, the holding account's cash already counted), nothing
 * owed.
 */
export const SuspenseCreditTransferred = event(
  'SuspenseCreditTransferred',
  1,
  z.object({
    suspenseId: z.uuid(),
    transferId: z.uuid(),
    accountId: z.uuid(),
    amount: rupiah,
    resolvedBy: z.uuid(),
    resolvedAt: isoDate,
  }),
);

/**
 * An admin gave a credit a hand transfer had taken back to suspense: it was not that transfer's destination side (a
 * customer's payment, another transfer's), so it is OPEN again. The transfer's entry moves back in the same append
 * (HoldingTransferCreditReleased: `holding:<to>` debited, `platform:suspense` credited), nothing moves here.
 */
export const SuspenseCreditUntransferred = event(
  'SuspenseCreditUntransferred',
  1,
  z.object({
    suspenseId: z.uuid(),
    transferId: z.uuid(),
    accountId: z.uuid(),
    amount: rupiah,
    reason: text,
    untransferredBy: z.uuid(),
    untransferredAt: isoDate,
  }),
);

export type SuspenseEvent =
  | EventOf<typeof SuspenseCreditReceived>
  | EventOf<typeof SuspenseCreditAllocated>
  | EventOf<typeof SuspenseCreditRefunded>
  | EventOf<typeof SuspenseCreditTransferred>
  | EventOf<typeof SuspenseCreditUntransferred>;
