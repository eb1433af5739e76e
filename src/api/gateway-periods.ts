import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { bookMonthOf, closeGatewayPeriod, reopenGatewayPeriod } from '../audit/gateway-closed-periods.ts';
import { listClosures, type ClosureRow } from '../projections/gateway-periods.ts';
import { text } from '../text.ts';
import type { AppDeps } from './deps.ts';

/** A month of the books in a path, YYYY-MM (checked by bookMonthOf, so a wrong one is 400 INVALID_PERIOD). */
export const periodParams = z.object({
  period: z.string().max(7).meta({ description: 'The month, YYYY-MM (WIB)', example: '2026-11' }),
});
/** Why a closed month is reopened. */
export const reopenBody = z.object({ reason: text.trim().min(1).max(1000).describe('Why the month is reopened') });

/** A close as the JSON routes show it: CLOSED while in force, REOPENED once an admin reopened it. */
export function presentClosure(row: ClosureRow) {
  return {
    period: row.period,
    status: row.reopenedAt === null ? ('CLOSED' as const) : ('REOPENED' as const),
    reportHash: row.reportHash,
    closedBy: row.closedBy,
    closedAt: row.closedAt,
    reopenedBy: row.reopenedBy,
    reopenedAt: row.reopenedAt,
    reason: row.reason,
  };
}

/** The month's latest close, as its list has it. */
const latestOf = async (deps: AppDeps, period: string) =>
  presentClosure((await listClosures(deps.pool)).find(c => c.period === period)!);

/**
 * The months of the gateway's books (admin only): every close, newest month first; a month closed (its report frozen
 * in the audited log), and the latest closed month reopened with a reason.
 */
export function gatewayPeriodRoutes(deps: AppDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();

    app.get('/', async () => ({ status: 'success', data: (await listClosures(deps.pool)).map(presentClosure) }));

    app.post('/:period/close', { schema: { params: periodParams } }, async (request, reply) => {
      const period = bookMonthOf(request.params.period);
      await closeGatewayPeriod(deps, request.principal!.userId, period);
      return reply.code(201).send({ status: 'success', data: await latestOf(deps, period) });
    });

    app.post('/:period/reopen', { schema: { params: periodParams, body: reopenBody } }, async request => {
      const period = bookMonthOf(request.params.period);
      await reopenGatewayPeriod(deps, request.principal!.userId, period, request.body.reason);
      return { status: 'success', data: await latestOf(deps, period) };
    });
  };
}
