import { z } from 'zod';
import { event, isoDate, rupiah, type EventOf } from './event.ts';
import { text } from '../text.ts';

// stream gateway-<merchantId>: the double-entry ledger of what the platform owes a gateway merchant
// (docs/decisions.md "Gateway ledger")

/**
 * One line of a balanced entry: debit positive, credit negative, in whole rupiah. Accounts: `holding:<accountId>` (assets:
 * the cash in each platform account), `merchant:<id>:pending|settled|onHold` (what the platform owes),
 * `platform:suspense` (money no payment claims, owed until allocated or refunded), `platform:fees` (revenue),
 * `platform:unique-codes` (revenue: the unique codes buyers paid on top of their bills), `platform:equity` (the other
 * side of openings and admins' dated entries); payouts recorded before the ledger held the cash credited `bank:payouts`.
 */
export const posting = z.object({
  account: text,
  amount: z.int().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER),
});
export type Posting = z.infer<typeof posting>;

/** Every entry is balanced: its debits equal its credits (no event is stored that is not). */
const postings = z
  .array(posting)
  .min(2)
  .refine(lines => lines.reduce((sum, p) => sum + p.amount, 0) === 0, { message: 'postings must sum to zero' });

/**
 * A completed gateway payment: totalAmount into the holding account, the net owed to the merchant (pending), the fee
 * earned and the unique code earned: net = totalAmount - fee - uniqueCode, the bill's amount less its fee.
 */
export const GatewayPaymentCredited = event(
  'GatewayPaymentCredited',
  1,
  z.object({
    merchantId: z.uuid(),
    paymentId: z.uuid(),
    holdingAccountId: z.uuid(),
    totalAmount: rupiah,
    fee: rupiah,
    net: rupiah,
    completedAt: isoDate,
    postings,
    /**
     * the unique code the buyer paid on top of the bill, the platform's (`platform:unique-codes`); absent: credited
     * before the platform kept it, when the merchant's net was totalAmount - fee, code included
     */
    uniqueCode: rupiah.optional(),
    /**
     * when the money moved: the provider's time of the credit that paid it (the payment's paidAt); the ledger books the
     * credit then, however late the service saw it; absent: credited before the ledger kept it, booked at completedAt
     */
    paidAt: isoDate.optional(),
  }),
);

/** A settlement run moved every credit completed before `cutoff` from pending to settled (withdrawable). */
export const BalanceSettled = event(
  'BalanceSettled',
  1,
  z
    .object({
      merchantId: z.uuid(),
      paymentIds: z.array(z.uuid()).min(1),
      amount: rupiah,
      cutoff: isoDate,
      settledAt: isoDate,
      postings,
      /**
       * the years of the days judged whose decree (holiday calendar) was missing, so weekends and every-year holidays
       * alone decided them ([]: every decree in force; absent: not recorded, as before the field existed)
       */
      calendarMissingYears: z.array(z.int().min(2000).max(2999)).optional(),
      /**
       * each payment's own due day (WIB, YYYY-MM-DD), `dueDates[i]` that of `paymentIds[i]`: the first working day
       * after the day its money moved, on the calendar in force when the run settled it (a run late after an outage
       * settles days past, each still due on its own day); absent: not recorded, each due on its cutoff's day
       */
      dueDates: z.array(z.string().regex(/^\d{4}-\d{2}-\d{2}$/)).optional(),
    })
    .refine(d => !d.dueDates || d.dueDates.length === d.paymentIds.length, {
      message: 'dueDates must name a day for each of paymentIds',
    }),
);

/** The merchant asked for a payout: the amount moves from settled to onHold until an admin pays or rejects it. */
export const WithdrawalRequested = event(
  'WithdrawalRequested',
  1,
  z.object({
    merchantId: z.uuid(),
    withdrawalId: z.uuid(),
    amount: rupiah,
    bankCode: text,
    accountNumber: text,
    accountHolderName: text,
    requestedBy: z.uuid(),
    requestedAt: isoDate,
    postings,
    /** the request's hash when it came with an Idempotency-Key: a repeat with another body is refused */
    requestHash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional(),
    /** the destination's holder as the provider's inquiry named it; absent: not checked (no payout account, or recorded before the check existed) */
    holderName: text.optional(),
  }),
);

/** An admin transferred the money from one of the platform's accounts: onHold drops, and so does that account's cash. */
export const WithdrawalPaid = event(
  'WithdrawalPaid',
  1,
  z.object({
    merchantId: z.uuid(),
    withdrawalId: z.uuid(),
    amount: rupiah,
    reference: text,
    /** the platform account the money left (`holding:<id>` credited); absent: paid before the field existed, `bank:payouts` credited */
    holdingAccountId: z.uuid().optional(),
    paidBy: z.uuid(),
    paidAt: isoDate,
    postings,
    /** the holder's name as the bank's inquiry answered it for this payout (at the request, or at the transfer); absent: never asked */
    holderName: text.optional(),
    /** the bank named someone other than the requested holder and an admin paid anyway: why, and who */
    holderOverride: z.object({ reason: text, by: z.uuid() }).optional(),
    /**
     * when the money left the platform account: the WALLET-A transfer's provider time, or the time the admin states for
     * a payout made elsewhere; absent: when it was recorded (paidAt), as every payout before the ledger kept it
     */
    transferredAt: isoDate.optional(),
  }),
);

/** An admin refused the payout: the amount goes back from onHold to settled. */
export const WithdrawalRejected = event(
  'WithdrawalRejected',
  1,
  z.object({
    merchantId: z.uuid(),
    withdrawalId: z.uuid(),
    amount: rupiah,
    note: text,
    rejectedBy: z.uuid(),
    rejectedAt: isoDate,
    postings,
  }),
);

/** An admin allocated a suspense credit to the merchant: into pending (settled as a payment is), less its fee. */
export const GatewaySuspenseAllocated = event(
  'GatewaySuspenseAllocated',
  1,
  z.object({
    merchantId: z.uuid(),
    suspenseId: z.uuid(),
    /** the payment it was for, when the admin named one */
    paymentId: z.uuid().nullable(),
    holdingAccountId: z.uuid(),
    amount: rupiah,
    fee: rupiah,
    net: rupiah,
    allocatedBy: z.uuid(),
    allocatedAt: isoDate,
    postings,
    /**
     * a credit of exactly its payment's total: the payment's unique code, the platform's as on a completed payment
     * (net = amount - fee - uniqueCode); absent: none kept
     */
    uniqueCode: rupiah.optional(),
  }),
);

export type GatewayLedgerEvent =
  | EventOf<typeof GatewayPaymentCredited>
  | EventOf<typeof BalanceSettled>
  | EventOf<typeof WithdrawalRequested>
  | EventOf<typeof WithdrawalPaid>
  | EventOf<typeof WithdrawalRejected>
  | EventOf<typeof GatewaySuspenseAllocated>;
