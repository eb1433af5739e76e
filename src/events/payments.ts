import { z } from 'zod';
import { event, isoDate, rupiah, type EventOf } from './event.ts';
import { paymentTypes } from '../domain/payment-methods.ts';
import { text } from '../text.ts';

/** Payment types a payment can have (src/domain/payment-methods.ts); static QRIS only on legacy payments. */
export const paymentType = z.enum(paymentTypes);

// stream payment-<paymentId>

/**
 * A gateway payment's figures: the amount the merchant asked for, whether the buyer pays the fee,
 * and the fee on the billed amount once the method is known (null until then).
 */
export const gatewayTerms = z.object({
  baseAmount: rupiah,
  feeToCustomer: z.boolean(),
  fee: rupiah.nullable(),
});

/**
 * A payment asked for by its owner: billed at once when its type is known (unique code or virtual account, QR payload),
 * else waiting for the payer to choose.
 */
export const PaymentCreated = event(
  'PaymentCreated',
  1,
  z.object({
    paymentId: z.uuid(),
    ownerId: z.uuid(),
    orderId: text,
    /** the linked account the customer pays into; null for a gateway payment until the payer chooses the method */
    receivingAccountId: z.uuid().nullable(),
    providerCode: text,
    /** null while the payer has not chosen the method on the payment page (methodSelection payer) */
    type: paymentType.nullable(),
    /** 'payer': created without a type, the payer chooses on the payment page */
    methodSelection: z.enum(['fixed', 'payer']).default('fixed'),
    amount: rupiah,
    /** null until the method is chosen */
    uniqueCode: rupiah.nullable(),
    totalAmount: rupiah.nullable(),
    /** where the customer sends money: the virtual account number, or the wallet's number for DIRECT */
    accountNumber: text.nullable(),
    /** the dynamic QRIS payload (QRIS-DYNAMIC) */
    qrisPayload: text.nullable(),
    redirectUrl: text,
    expiresAt: isoDate,
    createdAt: isoDate,
    /** SHA-256 of the request when it came with an Idempotency-Key (the same key with another body is refused); else null */
    requestHash: text.nullable(),
    /** a payment through the payment gateway (walletAccountId GATEWAY): the owner is the merchant, the account a holding account */
    gateway: gatewayTerms.nullable().default(null),
  }),
);

/** The payer chose how to pay on the payment page: from here on the payment is billed like one created with that type. */
export const PaymentMethodChosen = event(
  'PaymentMethodChosen',
  1,
  z.object({
    paymentId: z.uuid(),
    type: paymentType,
    uniqueCode: rupiah,
    totalAmount: rupiah,
    accountNumber: text.nullable(),
    qrisPayload: text.nullable(),
    chosenAt: isoDate,
    /** a gateway payment: the holding account the choice fixed, the amount billed for the method and its fee */
    gateway: z
      .object({ receivingAccountId: z.uuid(), providerCode: text, amount: rupiah, fee: rupiah })
      .nullable()
      .default(null),
  }),
);

/** A synchronised credit paid the pending payment before it expired: the payment is COMPLETED, for good. */
export const PaymentCompleted = event(
  'PaymentCompleted',
  1,
  z.object({
    paymentId: z.uuid(),
    ownerId: z.uuid(),
    orderId: text,
    type: paymentType,
    amount: rupiah,
    totalAmount: rupiah,
    receivingAccountId: z.uuid(),
    /** the synchronised credit that paid it */
    mutationId: z.uuid(),
    /** when the provider booked the credit */
    paidAt: isoDate,
    completedAt: isoDate,
    /** a gateway payment: the fee the platform keeps, on `amount` (what the merchant is owed: GatewayPaymentCredited) */
    gateway: z.object({ fee: rupiah }).nullable().default(null),
  }),
);

/** The payment reached expiresAt unpaid: EXPIRED, for good (a credit that comes later completes nothing). */
export const PaymentExpired = event(
  'PaymentExpired',
  1,
  z.object({
    paymentId: z.uuid(),
    ownerId: z.uuid(),
    /** null: a gateway payment whose payer never chose a method */
    receivingAccountId: z.uuid().nullable(),
    expiredAt: isoDate,
  }),
);

export type PaymentEvent =
  | EventOf<typeof PaymentCreated>
  | EventOf<typeof PaymentMethodChosen>
  | EventOf<typeof PaymentCompleted>
  | EventOf<typeof PaymentExpired>;
