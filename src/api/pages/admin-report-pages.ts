import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { balanceHistoryCsv, payoutReportCsv, revenueCsv } from '../../audit/finance-reports-csv.ts';
import { balanceHistory } from '../../audit/gateway-balance-history.ts';
import { payoutReport } from '../../audit/gateway-payout-report.ts';
import { reconciliationPeriod } from '../../audit/gateway-reconciliation.ts';
import { gatewayRevenue } from '../../audit/gateway-revenue.ts';
import { reportSubjects } from '../../audit/report-names.ts';
import type { DomainError } from '../../errors.ts';
import { balanceHistoryHtml, payoutReportHtml, revenueHtml } from '../../web/pages/admin-finance-reports.ts';
import type { AppDeps } from '../deps.ts';
import { balanceHistoryQuery, historyOf, payoutReportQuery, revenueQuery, sendReportCsv } from '../finance-reports.ts';
import { filterForm, filterRefusal } from './list-filters.ts';
import { orShowRefusal, refusalText, sendPage } from './page-reply.ts';
import { frameOf } from './page-surface.ts';

/**
 * The console's finance reports (src/api/finance-reports.ts answers the same as JSON and CSV): each page's filters
 * through the JSON route's query schema, a refused one shown on the page itself (400, in Indonesian), and the page's
 * own `.csv` route for each table (the error page on a refused filter).
 */

const names = ['from', 'to', 'merchantId', 'holdingAccountId', 'table'] as const;

/** The query through the route's schema, blank fields dropped as a GET form sends them; refused: the page's refusal. */
function parsed<S extends z.ZodType>(request: FastifyRequest, schema: S): z.output<S> {
  const result = schema.safeParse(filterForm(request, names));
  if (!result.success) throw filterRefusal(result.error);
  return result.data;
}

export function adminReportPages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    /** A report page: the form alone until a period is asked, else the report, or the form with the refusal. */
    const page = <S extends z.ZodType, R>(
      title: string,
      schema: S,
      compute: (query: z.output<S>) => Promise<R>,
      render: (form: Record<string, string>, report: R | null) => Promise<string> | string,
    ) =>
      async function (request: FastifyRequest, reply: FastifyReply) {
        const frame = frameOf(request, title, 'reports');
        const form = filterForm(request, names) as Record<string, string>;
        if (!form.from && !form.to) return sendPage(reply, frame, await render(form, null));
        return orShowRefusal(
          async () => sendPage(reply, frame, await render(form, await compute(parsed(request, schema)))),
          async (error: DomainError) =>
            sendPage(
              reply,
              { ...frame, notice: { kind: 'error', text: refusalText(error) } },
              await render(form, null),
              { status: error.status },
            ),
        );
      };

    const history = (q: z.output<typeof balanceHistoryQuery>) =>
      balanceHistory(deps.pool, reconciliationPeriod(q.from, q.to), historyOf(q));
    app.get(
      '/balance-history',
      page('Riwayat saldo', balanceHistoryQuery, history, async (form, report) =>
        balanceHistoryHtml(form, await reportSubjects(deps.pool), report),
      ),
    );
    app.get('/balance-history.csv', async (request, reply) => {
      const q = parsed(request, balanceHistoryQuery);
      return sendReportCsv(
        reply,
        `gateway-balance-history-${q.table}`,
        q,
        balanceHistoryCsv(await history(q), q.table),
      );
    });

    const revenue = (q: z.output<typeof revenueQuery>) => gatewayRevenue(deps.pool, reconciliationPeriod(q.from, q.to));
    app.get(
      '/revenue',
      page('Pendapatan gateway', revenueQuery, revenue, (form, report) => revenueHtml(form, report)),
    );
    app.get('/revenue.csv', async (request, reply) => {
      const q = parsed(request, revenueQuery);
      return sendReportCsv(reply, `gateway-revenue-${q.table}`, q, revenueCsv(await revenue(q), q.table));
    });

    const payouts = (q: z.output<typeof payoutReportQuery>) => payoutReport(deps, reconciliationPeriod(q.from, q.to));
    app.get(
      '/payout-report',
      page('Pembayaran keluar', payoutReportQuery, payouts, (form, report) => payoutReportHtml(form, report)),
    );
    app.get('/payout-report.csv', async (request, reply) => {
      const q = parsed(request, payoutReportQuery);
      return sendReportCsv(reply, `gateway-payouts-${q.table}`, q, payoutReportCsv(await payouts(q), q.table));
    });
  };
}
