import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { refuse } from '../errors.ts';
import type { Queryable } from '../db/pool.ts';
import { findSettlement, listSettlements, settledCredits } from '../projections/gateway-settlements.ts';
import { paymentsInline, presentSettlement, presentSettlements } from '../projections/settlement-presenter.ts';
import type { AppDeps } from './deps.ts';
import { pagination } from './presenters.ts';
import { fromBeforeTo, pageNumber, pageSize, periodFrom, periodOrder, periodTo } from './query-params.ts';

export const settlementsQuery = z
  .object({
    from: periodFrom('WIB').optional(),
    to: periodTo('WIB').optional(),
    page: pageNumber,
    limit: pageSize(10),
  })
  .refine(fromBeforeTo, periodOrder());

/** A page of a settlement's payments: up to as many as its listing carries. */
export const settlementQuery = z.object({ page: pageNumber, limit: pageSize(paymentsInline, paymentsInline) });
const settlementParams = z.object({ id: z.uuid() });

/** A page of the merchant's settlements, newest first, each with its first payments. */
export async function settlementsPage(db: Queryable, merchantId: string, q: z.output<typeof settlementsQuery>) {
  const { rows, total } = await listSettlements(db, { merchantId, ...q });
  const credits = await settledCredits(
    db,
    rows.map(r => r.id),
    { limit: paymentsInline },
  );
  return { settlements: presentSettlements(rows, credits), total };
}

/** One of the merchant's settlements with a page of its payments (another merchant's: 404, as one that does not exist). */
export async function settlementDetail(
  db: Queryable,
  merchantId: string,
  id: string,
  q: z.output<typeof settlementQuery>,
) {
  const row = await findSettlement(db, merchantId, id);
  if (!row) throw refuse('SETTLEMENT_NOT_FOUND');
  const credits = await settledCredits(db, [row.id], { limit: q.limit, offset: (q.page - 1) * q.limit });
  return { settlement: presentSettlement(row, credits), total: row.payment_count };
}

/**
 * GET /api/v1/gateway/settlements: the key owner's settlements, newest first (from/to on when they were settled, WIB
 * days), each with its payments; GET /api/v1/gateway/settlements/:id: one, its payments paged.
 */
export function gatewaySettlementRoutes(deps: AppDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();
    app.get('/', { schema: { querystring: settlementsQuery } }, async request => {
      const q = request.query;
      const { settlements, total } = await settlementsPage(deps.pool, request.owner!.userId, q);
      return { status: 'success', data: settlements, pagination: pagination(total, q.page, q.limit) };
    });
    app.get('/:id', { schema: { params: settlementParams, querystring: settlementQuery } }, async request => {
      const q = request.query;
      const { settlement, total } = await settlementDetail(deps.pool, request.owner!.userId, request.params.id, q);
      return { status: 'success', data: settlement, pagination: pagination(total, q.page, q.limit) };
    });
  };
}
