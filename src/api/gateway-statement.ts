import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { listStatement, presentStatementEntry, statementTypes } from '../projections/gateway-statement.ts';
import type { AppDeps } from './deps.ts';
import { pagination } from './presenters.ts';
import { fromBeforeTo, pageNumber, pageSize, periodFrom, periodOrder, periodTo } from './query-params.ts';

export const statementQuery = z
  .object({
    from: periodFrom('WIB').optional(),
    to: periodTo('WIB').optional(),
    type: z.enum(statementTypes).optional(),
    page: pageNumber,
    limit: pageSize(20),
  })
  .refine(fromBeforeTo, periodOrder());

/** GET /api/v1/gateway/transactions: the key owner's statement, newest first, each entry with the balances after it. */
export function gatewayStatementRoutes(deps: AppDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();
    app.get('/', { schema: { querystring: statementQuery } }, async request => {
      const q = request.query;
      const { rows, total } = await listStatement(deps.pool, { merchantId: request.owner!.userId, ...q });
      return {
        status: 'success',
        data: rows.map(presentStatementEntry),
        pagination: pagination(total, q.page, q.limit),
      };
    });
  };
}
