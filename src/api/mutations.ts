import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { listMutations } from '../projections/mutations.ts';
import type { AppDeps } from './deps.ts';
import { pagination, presentMutation } from './presenters.ts';

const day = z.iso.date().transform(d => new Date(`${d}T00:00:00.000Z`));
const instant = z.iso.datetime({ offset: true }).transform(d => new Date(d));
const amount = z.coerce.number().int().min(0);

/** The filters of the key owner's mutations (the dashboard's page reads the same ones). */
export const mutationsQuery = z
  .object({
    accountId: z.uuid().optional(),
    accountType: z
      .enum(['bank', 'wallet', 'ewallet'])
      .transform(t => (t === 'bank' ? 'bank' : 'ewallet'))
      .optional(),
    type: z.enum(['DEBIT', 'CREDIT']).optional(),
    from: z.union([instant, day]).optional(),
    // a date alone means the whole of that day
    to: z.union([instant, day.transform(d => new Date(d.getTime() + 86_400_000))]).optional(),
    minAmount: amount.optional(),
    maxAmount: amount.optional(),
    page: z.coerce.number().int().min(1).default(1),
    limit: z.coerce.number().int().min(1).max(100).default(10),
  })
  .refine(q => q.minAmount === undefined || q.maxAmount === undefined || q.minAmount <= q.maxAmount, {
    message: 'minAmount must not exceed maxAmount',
    path: ['minAmount'],
  })
  .refine(q => !q.from || !q.to || q.from < q.to, { message: 'from must be before to', path: ['from'] });

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
