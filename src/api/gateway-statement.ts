import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { listStatement, presentStatementEntry, statementTypes } from '../projections/gateway-statement.ts';
import type { AppDeps } from './deps.ts';
import { pagination } from './presenters.ts';

const wibOffsetMs = 7 * 3_600_000;
// a date alone is a WIB day (the merchants' and the settlement's day): 00:00 WIB is 17:00 UTC the day before
const wibDay = z.iso.date().transform(d => new Date(Date.parse(`${d}T00:00:00.000Z`) - wibOffsetMs));
const instant = z.iso.datetime({ offset: true }).transform(d => new Date(d));

export const statementQuery = z
  .object({
    from: z.union([instant, wibDay]).optional(),
    to: z.union([instant, wibDay.transform(d => new Date(d.getTime() + 86_400_000))]).optional(),
    type: z.enum(statementTypes).optional(),
    page: z.coerce.number().int().min(1).max(1_000_000).default(1),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  })
  .refine(q => !q.from || !q.to || q.from < q.to, { message: 'from must be before to', path: ['from'] });

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
