import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  balanceHistoryCsv,
  balanceHistoryTables,
  payoutReportCsv,
  payoutReportTables,
  revenueCsv,
  revenueTables,
} from '../audit/finance-reports-csv.ts';
import { balanceHistory, type HistoryOf } from '../audit/gateway-balance-history.ts';
import { payoutReport } from '../audit/gateway-payout-report.ts';
import { reconciliationPeriod } from '../audit/gateway-reconciliation.ts';
import { gatewayRevenue } from '../audit/gateway-revenue.ts';
import type { AppDeps } from './deps.ts';
import { queryDate } from './query-params.ts';

/**
 * The reports finance signs beside the reconciliation (admin only), each as JSON or, with `Accept: text/csv` or the
 * `.csv` path, one of its tables as CSV: a merchant's or a holding account's balance history, the platform's revenue by
 * method and merchant, and the payouts with their sources, destinations, holders, channels and attempts. Periods are
 * WIB days, as the reconciliation's (at most 366).
 */

const period = {
  from: queryDate('The first WIB day, YYYY-MM-DD'),
  to: queryDate('The last WIB day, YYYY-MM-DD'),
};
const tableOf = <T extends readonly [string, ...string[]]>(tables: T) =>
  z
    .enum(tables)
    .default(tables[0])
    .meta({ description: `With CSV: the table of the report (${tables.join(', ')}; ${tables[0]} unless given)` });

/** Exactly one of a merchant and a holding account. */
export const balanceHistoryQuery = z
  .object({
    ...period,
    merchantId: z.uuid().optional().meta({ description: 'The merchant (or holdingAccountId, not both)' }),
    holdingAccountId: z.uuid().optional().meta({ description: 'The holding account (or merchantId, not both)' }),
    table: tableOf(balanceHistoryTables),
  })
  .refine(q => (q.merchantId === undefined) !== (q.holdingAccountId === undefined), {
    message: 'give exactly one of merchantId and holdingAccountId',
    path: ['merchantId'],
  });
export const revenueQuery = z.object({ ...period, table: tableOf(revenueTables) });
export const payoutReportQuery = z.object({ ...period, table: tableOf(payoutReportTables) });

export const historyOf = (q: { merchantId?: string | undefined; holdingAccountId?: string | undefined }): HistoryOf =>
  q.merchantId ? { merchantId: q.merchantId } : { holdingAccountId: q.holdingAccountId! };

/** A table as the CSV file finance downloads, named by the report, the table and the period. */
export function sendReportCsv(reply: FastifyReply, name: string, p: { from: string; to: string }, text: string) {
  return reply
    .type('text/csv; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-disposition', `attachment; filename="${name}-${p.from}-${p.to}.csv"`)
    .send(text);
}

type Request<Q> = { query: Q; headers: { accept?: string | undefined } };
const wantsCsv = (csv: boolean, request: Request<unknown>) =>
  csv || (request.headers.accept ?? '').includes('text/csv');

export function financeReportRoutes(deps: AppDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();

    const history =
      (csv: boolean) => async (request: Request<z.infer<typeof balanceHistoryQuery>>, reply: FastifyReply) => {
        const q = request.query;
        const report = await balanceHistory(deps.pool, reconciliationPeriod(q.from, q.to), historyOf(q));
        if (!wantsCsv(csv, request)) return { status: 'success', data: report };
        return sendReportCsv(reply, `gateway-balance-history-${q.table}`, q, balanceHistoryCsv(report, q.table));
      };
    app.get('/balance-history', { schema: { querystring: balanceHistoryQuery } }, history(false));
    app.get('/balance-history.csv', { schema: { querystring: balanceHistoryQuery } }, history(true));

    const revenue = (csv: boolean) => async (request: Request<z.infer<typeof revenueQuery>>, reply: FastifyReply) => {
      const q = request.query;
      const report = await gatewayRevenue(deps.pool, reconciliationPeriod(q.from, q.to));
      if (!wantsCsv(csv, request)) return { status: 'success', data: report };
      return sendReportCsv(reply, `gateway-revenue-${q.table}`, q, revenueCsv(report, q.table));
    };
    app.get('/revenue', { schema: { querystring: revenueQuery } }, revenue(false));
    app.get('/revenue.csv', { schema: { querystring: revenueQuery } }, revenue(true));

    const payouts =
      (csv: boolean) => async (request: Request<z.infer<typeof payoutReportQuery>>, reply: FastifyReply) => {
        const q = request.query;
        const report = await payoutReport(deps, reconciliationPeriod(q.from, q.to));
        if (!wantsCsv(csv, request)) return { status: 'success', data: report };
        return sendReportCsv(reply, `gateway-payouts-${q.table}`, q, payoutReportCsv(report, q.table));
      };
    app.get('/payout-report', { schema: { querystring: payoutReportQuery } }, payouts(false));
    app.get('/payout-report.csv', { schema: { querystring: payoutReportQuery } }, payouts(true));
  };
}
