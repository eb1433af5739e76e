import { z } from 'zod';
import type { presentLedgerAdjustment } from '../ledger-adjustments.ts';
import type { DocumentedOperation } from './index-requests.ts';
import { success, successList, type NamesAll } from './payments.ts';

const instant = z.iso.datetime({ offset: true });

/** An opening or correcting entry of a holding account against platform:equity (src/api/ledger-adjustments.ts). */
export const ledgerAdjustment = z
  .object({
    id: z.uuid(),
    kind: z
      .enum(['OPENING', 'ADJUSTMENT'])
      .describe("OPENING: booked when the account was marked, its provider's balance; ADJUSTMENT: an admin's entry"),
    holdingAccountId: z.uuid(),
    amount: z.int().describe('Signed rupiah: holding:<holdingAccountId> debited when positive, credited when negative'),
    effectiveAt: instant.describe('When it takes effect: the period whose ledger cash it moves'),
    reason: z.string().nullable().describe("The admin's reason (null for an opening)"),
    providerBalance: z
      .int()
      .nullable()
      .describe("An opening's provider balance, as last synchronised at effectiveAt (null for an admin's entry)"),
    ledgerCash: z
      .int()
      .nullable()
      .describe("The account's cash in the ledger before an opening (null for an admin's entry)"),
    bookedBy: z.uuid(),
    bookedAt: instant,
  })
  .meta({
    id: 'LedgerAdjustment',
    description:
      "An entry bringing a holding account's ledger cash to what its provider holds, against the platform's equity",
    examples: [
      {
        id: '0196a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c',
        kind: 'ADJUSTMENT',
        holdingAccountId: '2b7c1d4e-5f6a-4b8c-9d0e-1f2a3b4c5d6e',
        amount: -25_000,
        effectiveAt: '2026-11-30T16:59:59.000Z',
        reason: 'Biaya admin bank November',
        providerBalance: null,
        ledgerCash: null,
        bookedBy: '4d9e3f6a-7b8c-4d0e-9f2a-3b4c5d6e7f8a',
        bookedAt: '2026-12-01T03:00:00.000Z',
      },
    ],
  });

const _ledgerAdjustment: NamesAll<ReturnType<typeof presentLedgerAdjustment>, z.output<typeof ledgerAdjustment>> = true;

export const ledgerAdjustmentOperations: Record<string, DocumentedOperation> = {
  'GET /api/admin/gateway/ledger-adjustments': {
    responses: { 200: successList('LedgerAdjustmentListResponse', ledgerAdjustment) },
  },
  'POST /api/admin/gateway/ledger-adjustments': {
    responses: { 201: success('LedgerAdjustmentResponse', ledgerAdjustment) },
  },
};
