import { z } from 'zod';
import type { presentMutation } from '../../projections/mutation-presenter.ts';
import type { DocumentedOperation } from './index-requests.ts';
import { successPage, type NamesAll } from './payments.ts';

/** A transaction of a linked account (src/projections/mutation-presenter.ts presentMutation). */
export const mutation = z
  .object({
    id: z.uuid(),
    accountId: z.uuid(),
    accountType: z.enum(['bank', 'wallet']),
    amount: z.number(),
    type: z.enum(['DEBIT', 'CREDIT']),
    description: z.string(),
    senderName: z.string(),
    reference: z.string().nullable(),
    status: z.string().describe('SUCCESS'),
    createdAt: z.iso.datetime({ offset: true }),
    payment: z
      .object({
        id: z.uuid(),
        orderId: z.string(),
        type: z.string().nullable(),
        amount: z.int(),
        totalAmount: z.int().nullable(),
        status: z.string(),
        completedAt: z.string(),
      })
      .optional()
      .describe('The payment request this transaction settled'),
  })
  .meta({
    id: 'Mutation',
    description: 'A transaction of a linked account',
    examples: [
      {
        id: '0b9e5c3a-6f1d-4e2a-8c7b-1d2e3f4a5b6c',
        accountId: '7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
        accountType: 'wallet',
        amount: 150000,
        type: 'CREDIT',
        description: 'QRIS payment',
        senderName: 'BUDI SANTOSO',
        reference: 'QR202506021000',
        status: 'SUCCESS',
        createdAt: '2025-06-02T10:05:00.000Z',
        payment: {
          id: '3f2b8c1e-5d4a-4b7e-9c1f-2a6d8e0b4c71',
          orderId: 'INV-1001',
          type: 'QRIS-DYNAMIC',
          amount: 150000,
          totalAmount: 150000,
          status: 'COMPLETED',
          completedAt: '2025-06-02T10:05:03.000Z',
        },
      },
    ],
  });

const _named: NamesAll<ReturnType<typeof presentMutation>, z.output<typeof mutation>> = true;

export const mutationOperations: Record<string, DocumentedOperation> = {
  'GET /api/v1/mutations': { responses: { 200: successPage('MutationListResponse', mutation) } },
};
