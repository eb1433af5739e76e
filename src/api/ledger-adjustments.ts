import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { bookLedgerAdjustment } from '../commands/ledger-adjustments.ts';
import {
  findLedgerAdjustment,
  listLedgerAdjustments,
  type LedgerAdjustmentRow,
} from '../projections/ledger-adjustments.ts';
import { text } from '../text.ts';
import type { AppDeps } from './deps.ts';
import { queryInstant } from './query-params.ts';

/** An admin's opening or correcting entry for a holding account, as the JSON route and the console's form take it. */
export const ledgerAdjustmentBody = z.object({
  holdingAccountId: z.uuid().describe("The platform's holding account (marked, or the payout account)"),
  amount: z
    .number()
    .int()
    .min(-Number.MAX_SAFE_INTEGER)
    .max(Number.MAX_SAFE_INTEGER)
    .refine(n => n !== 0, { message: 'must not be 0' })
    .describe('Rupiah, signed: positive adds to the ledger cash of the account, negative takes from it'),
  effectiveAt: queryInstant().describe('When the entry takes effect (no later than now), with its offset'),
  reason: text.trim().min(1).max(1000).describe('Why the entry is booked'),
});

/** An entry as the console and the JSON route show it. */
export function presentLedgerAdjustment(row: LedgerAdjustmentRow) {
  return {
    id: row.id,
    kind: row.kind,
    holdingAccountId: row.holdingAccountId,
    amount: row.amount,
    effectiveAt: row.effectiveAt,
    reason: row.reason,
    providerBalance: row.providerBalance,
    ledgerCash: row.ledgerCash,
    bookedBy: row.bookedBy,
    bookedAt: row.bookedAt,
  };
}

/** Openings and correcting entries of the platform's holding accounts against platform:equity (admin only). */
export function ledgerAdjustmentRoutes(deps: AppDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();

    app.get('/', async () => ({
      status: 'success',
      data: (await listLedgerAdjustments(deps.pool)).map(presentLedgerAdjustment),
    }));

    app.post('/', { schema: { body: ledgerAdjustmentBody } }, async (request, reply) => {
      const id = await bookLedgerAdjustment(deps, request.principal!.userId, request.body);
      const row = (await findLedgerAdjustment(deps.pool, id))!;
      return reply.code(201).send({ status: 'success', data: presentLedgerAdjustment(row) });
    });
  };
}
