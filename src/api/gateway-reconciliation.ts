import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  reconciliationCsv,
  reconciliationTable,
  reconciliationTables,
  type ReconciliationTable,
} from '../audit/gateway-reconciliation-csv.ts';
import { reconciliationPeriod, type GatewayReconciliation } from '../audit/gateway-reconciliation.ts';
import { reconciliationOf } from '../audit/gateway-closed-periods.ts';
import type { AppDeps } from './deps.ts';
import { queryDate } from './query-params.ts';

// WIB days written YYYY-MM-DD, and with CSV one table of the report (the handler asks for one then)
const periodQuery = z.object({
  from: queryDate('The first WIB day, YYYY-MM-DD'),
  to: queryDate('The last WIB day, YYYY-MM-DD'),
  table: z
    .enum(reconciliationTables)
    .optional()
    .meta({ description: 'With CSV (required then): the table of the report' }),
});

/** One table of the report as the CSV file finance downloads (the API's and the admin page's `?table=`). */
export function sendReconciliationCsv(reply: FastifyReply, report: GatewayReconciliation, table: ReconciliationTable) {
  return reply
    .type('text/csv; charset=utf-8')
    .header('cache-control', 'no-store')
    .header(
      'content-disposition',
      `attachment; filename="gateway-reconciliation-${table}-${report.period.from}-${report.period.to}.csv"`,
    )
    .send(reconciliationCsv(report, table));
}

/**
 * Finance's reconciliation of the gateway: `GET ?from=YYYY-MM-DD&to=YYYY-MM-DD`, WIB days, as JSON
 * or, with `Accept: text/csv` (or `.csv`) and `table=`, one table of it as CSV.
 */
export function gatewayReconciliationRoutes(deps: AppDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();

    const handler =
      (csv: boolean) =>
      async (
        request: { query: z.infer<typeof periodQuery>; headers: { accept?: string | undefined } },
        reply: FastifyReply,
      ) => {
        const period = reconciliationPeriod(request.query.from, request.query.to);
        const wantsCsv = csv || (request.headers.accept ?? '').includes('text/csv');
        // the table is checked before the report is computed: a wrong name costs no fold
        // the table is asked for with CSV, and checked before the report is computed: a missing one costs no fold
        const table = wantsCsv ? reconciliationTable(request.query.table) : null;
        // exactly a closed month: its frozen report (`closed` says who closed it, when, and its hash)
        const report = await reconciliationOf(deps, period);
        if (table) return sendReconciliationCsv(reply, report, table);
        return { status: 'success', data: report };
      };
    app.get('/', { schema: { querystring: periodQuery } }, handler(false));
    app.get('.csv', { schema: { querystring: periodQuery } }, handler(true));
  };
}
