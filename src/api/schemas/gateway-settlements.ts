import { z } from 'zod';
import type { PresentedSettlement } from '../../projections/settlement-presenter.ts';
import type { DocumentedOperation } from './index-requests.ts';
import { successPage, type NamesAll } from './payments.ts';

const instant = z.iso.datetime({ offset: true });
const date = z.string().meta({ format: 'date', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' });

/** A payment a settlement paid out (src/projections/settlement-presenter.ts). */
export const settledPayment = z.object({
  type: z.enum(['PAYMENT', 'ADJUSTMENT']).describe('A gateway payment, or a suspense credit an admin allocated'),
  paymentId: z.uuid().nullable().describe('The payment; an allocation names it when the admin did'),
  suspenseId: z.uuid().nullable().describe('The suspense credit of an allocation; null for a payment'),
  orderId: z.string().nullable(),
  gross: z.int().describe('The sale: the bill without the unique code the platform keeps (fee + net)'),
  fee: z.int(),
  net: z.int().describe("The merchant's credit, as it was booked"),
  paidAt: instant.describe('When the money moved (the provider’s time)'),
  dueDate: date.describe(
    'The working day (WIB) from whose 00:00 it was due: the first working day after the day its money moved, on the ' +
      'holiday calendar in force when it settled, however late the settlement ran (a settlement from before each ' +
      'payment kept its own gives the settlement’s)',
  ),
  settledAt: instant,
});

const settlementExample = {
  id: '0196a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
  dueDate: '2026-01-05',
  cutoff: '2026-01-04T17:00:00.000Z',
  settledAt: '2026-01-04T17:00:00.000Z',
  paymentCount: 1,
  gross: 100_000,
  fee: 900,
  net: 99_100,
  payments: [
    {
      type: 'PAYMENT',
      paymentId: '3f2b8c1e-5d4a-4b7e-9c1f-2a6d8e0b4c71',
      suspenseId: null,
      orderId: 'INV-1001',
      gross: 100_000,
      fee: 900,
      net: 99_100,
      paidAt: '2026-01-02T09:15:00.000Z',
      dueDate: '2026-01-05',
      settledAt: '2026-01-04T17:00:00.000Z',
    },
  ],
};

/** A settlement with its payments, as the API lists it and the `gateway.settled` webhook sends it. */
export const settlement = z
  .object({
    id: z.uuid(),
    dueDate: date.describe(
      'The WIB day of its cutoff: the working day the run settled for, its payments’ due date when it ran on time ' +
        '(a run late after an outage is later than its payments’ own)',
    ),
    cutoff: instant.describe('Every credit before it was due'),
    settledAt: instant,
    paymentCount: z.int().describe('How many payments it paid out (payments holds the first 1,000, or the page asked)'),
    gross: z.int(),
    fee: z.int(),
    net: z.int().describe('What moved from pending to settled'),
    payments: z.array(settledPayment),
  })
  .meta({
    id: 'Settlement',
    description: 'A settlement of the gateway balance, with the payments it paid out',
    examples: [settlementExample],
  });

const _settlement: NamesAll<PresentedSettlement, z.output<typeof settlement>> = true;
const _payment: NamesAll<PresentedSettlement['payments'][number], z.output<typeof settledPayment>> = true;

/** The detail: the settlement, its payments paged (pagination counts the payments). */
const settlementPage = z
  .object({
    status: z.literal('success'),
    data: settlement,
    pagination: z.object({
      total: z.int(),
      page: z.int(),
      limit: z.int(),
      totalPages: z.int(),
      hasMore: z.boolean(),
    }),
  })
  .meta({
    id: 'SettlementResponse',
    description: '{status, data, pagination}: one Settlement, a page of its payments',
    examples: [
      {
        status: 'success',
        data: settlementExample,
        pagination: { total: 1, page: 1, limit: 1000, totalPages: 1, hasMore: false },
      },
    ],
  });

export const settlementOperations: Record<string, DocumentedOperation> = {
  'GET /api/v1/gateway/settlements': { responses: { 200: successPage('SettlementListResponse', settlement) } },
  'GET /api/v1/gateway/settlements/{id}': { responses: { 200: settlementPage } },
};
