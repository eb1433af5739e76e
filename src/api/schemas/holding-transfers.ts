import { z } from 'zod';
import type { presentHoldingTransfer } from '../holding-transfers.ts';
import type { DocumentedOperation } from './index-requests.ts';
import { success, successList, type NamesAll } from './payments.ts';

const instant = z.iso.datetime({ offset: true });

/** A transfer between two of the platform's holding accounts made by hand (src/api/holding-transfers.ts). */
export const holdingTransfer = z
  .object({
    id: z.uuid(),
    fromAccountId: z.uuid(),
    toAccountId: z.uuid(),
    amount: z.int(),
    reference: z.string(),
    note: z.string().nullable(),
    recordedBy: z.uuid(),
    recordedAt: instant,
    debitMutationId: z
      .uuid()
      .nullable()
      .describe("The source's DEBIT mutation once synchronised and matched; null: not seen yet"),
    creditMutationId: z
      .uuid()
      .nullable()
      .describe("The destination's CREDIT mutation once synchronised and matched; null: not seen yet"),
  })
  .meta({
    id: 'HoldingTransfer',
    description:
      "Money moved by hand from one of the platform's holding accounts to another: booked in the ledger (holding:to debited, holding:from credited) when recorded",
    examples: [
      {
        id: '0196a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
        fromAccountId: '2b7c1d4e-5f6a-4b8c-9d0e-1f2a3b4c5d6e',
        toAccountId: '3c8d2e5f-6a7b-4c9d-8e1f-2a3b4c5d6e7f',
        amount: 2_000_000,
        reference: 'TRX-20260105-001',
        note: 'QRIS ke dompet pembayaran',
        recordedBy: '4d9e3f6a-7b8c-4d0e-9f2a-3b4c5d6e7f8a',
        recordedAt: '2026-01-05T03:00:00.000Z',
        debitMutationId: null,
        creditMutationId: null,
      },
    ],
  });

const _holdingTransfer: NamesAll<ReturnType<typeof presentHoldingTransfer>, z.output<typeof holdingTransfer>> = true;

export const holdingTransferOperations: Record<string, DocumentedOperation> = {
  'GET /api/admin/gateway/holding-transfers': {
    responses: { 200: successList('HoldingTransferListResponse', holdingTransfer) },
  },
  'POST /api/admin/gateway/holding-transfers': {
    responses: { 201: success('HoldingTransferResponse', holdingTransfer) },
  },
};
