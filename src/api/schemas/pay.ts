import { z } from 'zod';
import { paymentType } from '../../events/payments.ts';
import type { DocumentedOperation } from './index-requests.ts';

/** POST /pay/{paymentId}/method as src/api/payment-page.ts checks it by hand, and the status it answers (publicPaymentStatus). */

const methodRequest = z.object({
  type: paymentType.describe('One of the methods the page offers for this payment'),
});

const isoTime = z.iso.datetime();

const statusExample = {
  status: 'PENDING',
  type: 'QRIS-DYNAMIC',
  amount: 150000,
  uniqueCode: 123,
  totalAmount: 150123,
  qrisImage: 'https://pay.example.com/pay/7c9e6679-7425-40de-944b-e07fc1f90ae7/qris.png',
  expiresAt: '2026-01-05T04:00:00.000Z',
  redirectUrl: 'https://shop.example.com/thanks',
  now: '2026-01-05T03:00:00.000Z',
};

/** What the payment page shows of a payment: no owner or account ids. */
export const paymentPageStatus = z
  .object({
    status: z.enum(['PENDING', 'COMPLETED', 'EXPIRED', 'FAILED']),
    type: z.string().nullable().describe('The payment method; null until the payer chooses one'),
    amount: z.number().describe('Rupiah'),
    uniqueCode: z.number().nullable(),
    totalAmount: z
      .number()
      .nullable()
      .describe('What the payer transfers: amount and unique code; null until a method is chosen'),
    accountNumber: z.string().optional().describe('The account or virtual account to pay to'),
    qrisImage: z.string().optional().describe("The QR image's URL, for a QRIS method"),
    expiresAt: isoTime,
    paidAt: isoTime.optional().describe('When it was paid, once paid'),
    redirectUrl: z.string(),
    now: isoTime.describe("The service's clock: the page counts down on it"),
  })
  .meta({ id: 'PaymentPageStatus', description: 'A payment as its hosted page shows it', examples: [statusExample] });

export const paymentPageStatusResponse = z.object({ status: z.literal('success'), data: paymentPageStatus }).meta({
  id: 'PaymentPageStatusResponse',
  description: "The payment's status for its page",
  examples: [{ status: 'success', data: statusExample }],
});

/** "Saya sudah bayar": whether a check of the receiving account runs (202 when this request started it). */
export const paymentCheckResponse = z
  .object({
    status: z.literal('success'),
    checking: z.boolean().describe('true while a check of the receiving account runs: poll the status'),
    data: paymentPageStatus,
  })
  .meta({
    id: 'PaymentCheckResponse',
    description: "The payment's status, and whether its account is being checked",
    examples: [{ status: 'success', checking: true, data: statusExample }],
  });

/** What the sandbox answered for the bill it paid (src/api/sandbox-payments.ts). */
export const sandboxPaymentResponse = z
  .object({
    status: z.literal('success'),
    data: z.object({
      transactionId: z.string().describe("The sandbox's CREDIT into the receiving account"),
      providerCode: z.string(),
      accountRef: z.string().describe('The receiving account at the sandbox: its phone or account number'),
      amount: z.number().describe('Rupiah paid: the bill, unique code included'),
    }),
  })
  .meta({
    id: 'SandboxPaymentResponse',
    description: 'The bill paid by a sandbox customer',
    examples: [
      {
        status: 'success',
        data: {
          transactionId: '6f720411-a35e-4e54-80a4-7ff960cf14a6',
          providerCode: 'WALLET-D',
          accountRef: '081211112222',
          amount: 150123,
        },
      },
    ],
  });

export const payOperations: Record<string, DocumentedOperation> = {
  'POST /pay/{paymentId}/sandbox-payment': { responses: { 201: sandboxPaymentResponse } },
  'POST /pay/{paymentId}/method': {
    body: { 'application/json': methodRequest },
    responses: { 200: paymentPageStatusResponse },
  },
  'GET /pay/{paymentId}/status.json': { responses: { 200: paymentPageStatusResponse } },
  'POST /pay/{paymentId}/check': { responses: { 200: paymentCheckResponse, 202: paymentCheckResponse } },
};
