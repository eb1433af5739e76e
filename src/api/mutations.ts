import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { listMutations } from '../projections/mutations.ts';
import type { AppDeps } from './deps.ts';
import { presentMutation } from '../projections/mutation-presenter.ts';
import { pagination } from './presenters.ts';
import { fromBeforeTo, pageNumber, pageSize, periodFrom, periodOrder, periodTo, type DayZone } from './query-params.ts';

const amount = z.coerce.number().int().min(0);

/**
 * The filters of the key owner's mutations, a date alone meaning a day in `zone`: UTC on the API, WIB on the dashboard's
 * page, which reads the same filters.
 */
export const mutationsQueryIn = (zone: DayZone) =>
  z
    .object({
      accountId: z.uuid().optional(),
      accountType: z
        .enum(['bank', 'wallet', 'ewallet'])
        .transform(t => (t === 'bank' ? 'bank' : 'ewallet'))
        .optional(),
      type: z.enum(['DEBIT', 'CREDIT']).optional(),
      from: periodFrom(zone).optional(),
      to: periodTo(zone).optional(),
      minAmount: amount.optional(),
      maxAmount: amount.optional(),
      page: pageNumber,
      limit: pageSize(10),
    })
    .refine(q => q.minAmount === undefined || q.maxAmount === undefined || q.minAmount <= q.maxAmount, {
      message: 'minAmount must not exceed maxAmount',
      path: ['minAmount'],
    })
    .refine(fromBeforeTo, periodOrder());
const mutationsQuery = mutationsQueryIn('UTC');

/** GET /api/v1/mutations: the key owner's transactions, newest first. */
export function mutationRoutes(deps: AppDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();
    app.get('/', { schema: { querystring: mutationsQuery } }, async request => {
      const q = request.query;
      const { rows, total } = await listMutations(deps.pool, { ownerId: request.owner!.userId, ...q });
      return { status: 'success', data: rows.map(presentMutation), pagination: pagination(total, q.page, q.limit) };
    });
  };
}
