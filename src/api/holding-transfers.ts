import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { recordHoldingTransfer } from '../commands/holding-transfers.ts';
import {
  findHoldingTransfer,
  listHoldingTransfers,
  type HoldingTransferRow,
} from '../projections/holding-transfers.ts';
import { text } from '../text.ts';
import type { AppDeps } from './deps.ts';

/** A transfer between two of the platform's holding accounts as the admin made it by hand. */
export const holdingTransferBody = z.object({
  fromAccountId: z.uuid().describe('The holding account the money left'),
  toAccountId: z.uuid().describe('The holding account it went to'),
  amount: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  reference: text.trim().min(1).max(200).describe("The provider's reference of the transfer"),
  note: text.trim().min(1).max(1000).optional(),
});

/** A hand transfer as the console and the JSON route show it: each side seen once its mutation is synchronised. */
export function presentHoldingTransfer(row: HoldingTransferRow) {
  return {
    id: row.id,
    fromAccountId: row.fromAccountId,
    toAccountId: row.toAccountId,
    amount: row.amount,
    reference: row.reference,
    note: row.note,
    recordedBy: row.recordedBy,
    recordedAt: row.recordedAt,
    debitMutationId: row.debitMutationId,
    creditMutationId: row.creditMutationId,
  };
}

/** Transfers between the platform's holding accounts made by hand, booked in the ledger (admin only). */
export function holdingTransferRoutes(deps: AppDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();

    app.get('/', async () => ({
      status: 'success',
      data: (await listHoldingTransfers(deps.pool)).map(presentHoldingTransfer),
    }));

    app.post('/', { schema: { body: holdingTransferBody } }, async (request, reply) => {
      const id = await recordHoldingTransfer(deps, request.principal!.userId, request.body);
      const row = (await findHoldingTransfer(deps.pool, id))!;
      return reply.code(201).send({ status: 'success', data: presentHoldingTransfer(row) });
    });
  };
}
