import { z } from 'zod';
import { event, isoDate, rupiah, type EventOf } from './event.ts';
import { text } from '../text.ts';

// stream transfer-<transferId>: money leaving a WALLET-A account

/** Where a bank transfer goes, as the provider's bank list and inquiry gave it. */
const bankDestination = z.object({
  instId: text,
  instLocalName: text,
  payMethod: text,
  payOption: text,
  accountNumber: text,
  /** the holder's name the provider answered: the user compares it with the intended recipient */
  accountName: text,
});

/** bank-init: the destination checked with the provider; the transfer id is the bankAccountIndexNo, alive until expiresAt. */
export const BankTransferValidated = event(
  'BankTransferValidated',
  1,
  z.object({
    transferId: z.uuid(),
    accountId: z.uuid(),
    ownerId: z.uuid(),
    destination: bankDestination,
    amount: rupiah,
    validatedAt: isoDate,
    expiresAt: isoDate,
  }),
);

/**
 * The transfer was sent to the provider (bank-create, or a QR transfer): the index is used from here on, whatever the
 * provider answers. A QR transfer starts here.
 */
export const TransferSubmitted = event(
  'TransferSubmitted',
  1,
  z.object({
    transferId: z.uuid(),
    accountId: z.uuid(),
    ownerId: z.uuid(),
    kind: z.enum(['bank', 'qris']),
    amount: rupiah,
    /** a QR transfer: the merchant paid and the tip included in amount */
    qris: z.object({ merchantName: text, payload: text, tip: rupiah }).nullable(),
    /** SHA-256 of the request when it came with an Idempotency-Key; else null */
    requestHash: text.nullable(),
    submittedAt: isoDate,
  }),
);

/** The provider did it: the wallet was debited by its transaction `transactionId`. */
export const TransferCompleted = event(
  'TransferCompleted',
  1,
  z.object({
    transferId: z.uuid(),
    accountId: z.uuid(),
    ownerId: z.uuid(),
    transactionId: text,
    /** the DEBIT mutation recorded for it */
    mutationId: z.uuid(),
    completedAt: isoDate,
  }),
);

/** No answer from the provider (a timeout): the amount stays debited until the provider says what became of it. */
export const TransferUnconfirmed = event(
  'TransferUnconfirmed',
  1,
  z.object({
    transferId: z.uuid(),
    accountId: z.uuid(),
    ownerId: z.uuid(),
    reason: text,
    mutationId: z.uuid(),
    unconfirmedAt: isoDate,
  }),
);

/** The provider refused it (nothing moved), or said later that it failed (the debit was given back: `reversed`). */
export const TransferFailed = event(
  'TransferFailed',
  1,
  z.object({
    transferId: z.uuid(),
    accountId: z.uuid(),
    ownerId: z.uuid(),
    reason: text,
    /** the CREDIT mutation that gave back an unconfirmed transfer's debit; null when nothing had been debited */
    reversalMutationId: z.uuid().nullable(),
    failedAt: isoDate,
  }),
);

export type TransferEvent =
  | EventOf<typeof BankTransferValidated>
  | EventOf<typeof TransferSubmitted>
  | EventOf<typeof TransferCompleted>
  | EventOf<typeof TransferUnconfirmed>
  | EventOf<typeof TransferFailed>;
