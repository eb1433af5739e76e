import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { calendarDate } from '../domain/working-days.ts';
import { reconciliationCsv, reconciliationTable, reconciliationTables } from '../audit/gateway-reconciliation-csv.ts';
import {
  gatewayReconciliation,
  reconciliationPeriod,
  type GatewayReconciliation,
} from '../audit/gateway-reconciliation.ts';
import type { AppDeps } from './deps.ts';

// the document says what the handler checks: WIB days written YYYY-MM-DD, and with CSV one table of the report
const wibDate = calendarDate.meta({
  format: 'date',
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
  description: 'A WIB day, YYYY-MM-DD',
});
const periodQuery = z.object({
  from: wibDate,
  to: wibDate,
  table: z
    .string()
    .optional()
    .meta({ enum: [...reconciliationTables], description: 'With CSV (required then): the table of the report' }),
});

/**
 * One table of the report as the CSV file finance downloads: the request's `?table=`; the admin page's link without one
 * gets the merchants' table (its route is the admin page's, the API's asks for a table).
 */
export function sendReconciliationCsv(reply: FastifyReply, report: GatewayReconciliation) {
  const asked = (reply.request.query as { table?: unknown } | undefined)?.table;
  const table = reconciliationTable(asked ?? 'merchants');
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
 * Finance's reconciliation of the gateway (DESIGN section 9): `GET ?from=YYYY-MM-DD&to=YYYY-MM-DD`, WIB days, as JSON
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
        if (wantsCsv) reconciliationTable(request.query.table);
        const report = await gatewayReconciliation(deps, period);
        if (wantsCsv) return sendReconciliationCsv(reply, report);
        return { status: 'success', data: report };
      };
    app.get('/', { schema: { querystring: periodQuery } }, handler(false));
    app.get('.csv', { schema: { querystring: periodQuery } }, handler(true));
  };
}
