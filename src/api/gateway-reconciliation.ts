import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { calendarDate } from '../commands/working-days.ts';
import { reconciliationCsv } from '../projections/gateway-reconciliation-csv.ts';
import { gatewayReconciliation, reconciliationPeriod, type GatewayReconciliation } from '../projections/gateway-reconciliation.ts';
import type { AppDeps } from './deps.ts';

const periodQuery = z.object({ from: calendarDate, to: calendarDate });

/** The report as the CSV file finance downloads (the JSON route's and the admin page's). */
export function sendReconciliationCsv(reply: FastifyReply, report: GatewayReconciliation) {
  return reply
    .type('text/csv; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-disposition', `attachment; filename="gateway-reconciliation-${report.period.from}-${report.period.to}.csv"`)
    .send(reconciliationCsv(report));
}

/**
 * Finance's reconciliation of the gateway (DESIGN section 9): `GET ?from=YYYY-MM-DD&to=YYYY-MM-DD`, WIB days, as JSON
 * or, with `Accept: text/csv`, as one flat CSV.
 */
export function gatewayReconciliationRoutes(deps: AppDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();

    app.get('/', { schema: { querystring: periodQuery } }, async (request, reply) => {
      const report = await gatewayReconciliation(deps.pool, reconciliationPeriod(request.query.from, request.query.to));
      if ((request.headers.accept ?? '').includes('text/csv')) return sendReconciliationCsv(reply, report);
      return { status: 'success', data: report };
    });
  };
}
