import { z } from 'zod';
import { paymentType } from '../../events/payments.ts';
import { createBody } from '../payments.ts';
import type { PresentedPayment } from '../../projections/payment-presenter.ts';
import type { DocumentedOperation } from './index-requests.ts';

/** `true` when every field a presenter answers is named by its component (else a type error where it is used). */
export type NamesAll<Presented, Component> = [Exclude<keyof Presented, keyof Component>] extends [never] ? true : never;

const exampleOf = (schema: z.ZodType): unknown =>
  (z.globalRegistry.get(schema)?.examples as unknown[] | undefined)?.[0];
const envelope = (id: string, data: z.ZodType, example: unknown, description: string) =>
  z
    .object({ status: z.literal('success'), data })
    .meta({ id, description, examples: [{ status: 'success', data: example }] });

/**
 * The answers of payments, mutations, the gateway and API keys: `{status: 'success', data}` around a named component,
 * itself a component (`<id>`) whose example is the item's.
 */
export const success = (id: string, item: z.ZodType) =>
  envelope(id, item, exampleOf(item), `{status, data}: one ${z.globalRegistry.get(item)?.id}`);
export const successList = (id: string, item: z.ZodType) =>
  envelope(id, z.array(item), [exampleOf(item)], `{status, data}: a list of ${z.globalRegistry.get(item)?.id}`);
/** A page of a list, with the interface's pagination object. */
export const successPage = (id: string, item: z.ZodType) => {
  const pagination = z.object({
    total: z.int(),
    page: z.int(),
    limit: z.int(),
    totalPages: z.int(),
    hasMore: z.boolean(),
  });
  const example = {
    status: 'success',
    data: [exampleOf(item)],
    pagination: { total: 1, page: 1, limit: 10, totalPages: 1, hasMore: false },
  };
  return z.object({ status: z.literal('success'), data: z.array(item), pagination }).meta({
    id,
    description: `{status, data, pagination}: a page of ${z.globalRegistry.get(item)?.id}`,
    examples: [example],
  });
};

/** A page of a cursor list (src/api/page-cursor.ts): its rows, and the cursor of the next page while more follow. */
export const successCursorPage = (id: string, item: z.ZodType) => {
  const pagination = z.object({
    limit: z.int(),
    hasMore: z.boolean().describe('More rows follow this page'),
    nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last page'),
  });
  const example = {
    status: 'success',
    data: [exampleOf(item)],
    pagination: { limit: 10, hasMore: true, nextCursor: 'eyJhdCI6IjIwMjUtMDYtMDJUMTA6MDA6MDAuMDAwWiJ9' },
  };
  return z.object({ status: z.literal('success'), data: z.array(item), pagination }).meta({
    id,
    description: `{status, data, pagination}: a page of ${z.globalRegistry.get(item)?.id}, newest first`,
    examples: [example],
  });
};

const instant = z.iso.datetime({ offset: true });
const httpUrl = z.url({ protocol: /^https?$/ }).meta({ pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' });

/**
 * The create body as the service checks it: the route's schema, with what its handler checks after it, the http(s)
 * URL and the payment types that can be created (static QRIS no longer; a type the provider does not take answers
 * PAYMENT_TYPE_NOT_SUPPORTED, 400).
 */
const createPaymentRequest = createBody.extend({
  walletAccountId: z
    .union([z.literal('GATEWAY'), z.uuid()])
    .describe("A linked e-wallet account's id, or GATEWAY for the payment gateway"),
  redirectUrl: httpUrl.max(2000).describe('Where the customer goes after paying: an http or https URL'),
  type: paymentType
    .exclude(['QRIS'])
    .optional()
    .describe('The payment type (VA and DIRECT: WALLET-A only; none: the payer chooses on the payment page)'),
});

/** A payment as create, the status query and webhooks show it (src/projections/payment-presenter.ts). */
export const payment = z
  .object({
    id: z.uuid(),
    orderId: z.string(),
    walletAccountId: z.string().describe("The receiving account's id, or GATEWAY"),
    status: z.enum(['PENDING', 'COMPLETED', 'EXPIRED', 'FAILED']),
    type: paymentType.nullable().describe('null while the payer has not chosen'),
    methodSelection: z.literal('payer').optional().describe('The payer chooses the method on the payment page'),
    amount: z.int().describe('Requested amount; for gateway payments with feeToCustomer, the raised amount billed'),
    uniqueCode: z.int().optional().describe('Added to the amount so each bill is distinct; 0: none'),
    totalAmount: z.int().optional().describe('What the customer pays: amount + uniqueCode (once the method is known)'),
    accountNumber: z.string().optional().describe('The virtual account or wallet number to pay to'),
    qrisImage: z.url().optional().describe('PNG 256x256 of the QR (QR types)'),
    qrString: z
      .string()
      .optional()
      .describe(
        'The QRIS payload the qrisImage PNG encodes (QR types, once billed): render it as a QR, or pay it in the sandbox',
      ),
    paymentUrl: z.url().describe('The payment page for the customer'),
    redirectUrl: z.string(),
    expiresAt: instant,
    createdAt: instant,
    paidAt: instant.optional(),
    completedAt: instant.optional(),
    expiredAt: instant.optional(),
    metadata: z
      .object({
        baseAmount: z.int().optional().describe('The amount asked for, when the buyer pays the gateway fee'),
        fee: z.int().optional().describe('The gateway fee, on amount'),
        net: z
          .int()
          .optional()
          .describe("What the merchant is credited: amount less the fee (the unique code on top is the platform's)"),
      })
      .optional()
      .describe('Gateway payments only'),
  })
  .meta({
    id: 'Payment',
    description: "A payment request (the interface's Payment resource)",
    examples: [
      {
        id: '3f2b8c1e-5d4a-4b7e-9c1f-2a6d8e0b4c71',
        orderId: 'INV-1001',
        walletAccountId: 'GATEWAY',
        status: 'PENDING',
        type: 'QRIS-DYNAMIC',
        amount: 150000,
        uniqueCode: 0,
        totalAmount: 150000,
        accountNumber: '081211112222',
        qrisImage: 'https://pay.example.com/pay/3f2b8c1e-5d4a-4b7e-9c1f-2a6d8e0b4c71/qris.png',
        qrString:
          '00020101021226560017ID.CO.SANDBOX.WWW01120812111122220208WALLET-D0303UMI52045812530336054061500005802ID5912ANDI PRATAMA6007JAKARTA630435B2',
        paymentUrl: 'https://pay.example.com/pay/3f2b8c1e-5d4a-4b7e-9c1f-2a6d8e0b4c71',
        redirectUrl: 'https://shop.example.com/orders/1001',
        expiresAt: '2025-06-02T10:30:00.000Z',
        createdAt: '2025-06-02T10:00:00.000Z',
        metadata: { fee: 1250, net: 148750 },
      },
    ],
  });

// a field the presenter adds and the component does not name fails the type check
const _named: NamesAll<PresentedPayment, z.output<typeof payment>> = true;

const paymentResponse = success('PaymentResponse', payment);

const statusLink = {
  PaymentStatus: {
    operation: 'GET /api/v1/payments/status/{paymentId}',
    parameters: { paymentId: '$response.body#/data/id' },
    description: "The payment's status, until it is completed or expired",
  },
};

export const paymentOperations: Record<string, DocumentedOperation> = {
  'POST /api/v1/payments': {
    body: { 'application/json': createPaymentRequest },
    responses: { 200: paymentResponse },
    links: { 200: statusLink },
  },
  'GET /api/v1/payments/status/{paymentId}': { responses: { 200: paymentResponse } },
  'GET /api/v1/payments': { responses: { 200: successCursorPage('PaymentListResponse', payment) } },
};
