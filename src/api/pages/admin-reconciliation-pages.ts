import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { reconciliationOf } from '../../audit/gateway-closed-periods.ts';
import { reconciliationTables } from '../../audit/gateway-reconciliation-csv.ts';
import { reconciliationPeriod } from '../../audit/gateway-reconciliation.ts';
import { refuse } from '../../errors.ts';
import { reconciliationHtml } from '../../web/pages/admin.ts';
import type { AppDeps } from '../deps.ts';
import { sendReconciliationCsv } from '../gateway-reconciliation.ts';
import { isQueryDate } from '../query-params.ts';
import { periodPanelHtml } from './admin-period-pages.ts';
import { dateWords, queryFilters } from './list-filters.ts';
import { noticeOf, orShowRefusal, refusalText, sendPage } from './page-reply.ts';
import { frameOf } from './page-surface.ts';

// the page's link without a table gets the merchants' (src/api/gateway-reconciliation.ts)
const reconciliationCsvQuery = z.object({ table: z.enum(reconciliationTables).default('merchants') });
const periodNotices: Record<string, string> = {
  'period-closed': 'Periode ditutup; laporannya dibekukan.',
  'period-reopened': 'Periode dibuka kembali; laporannya dihitung ulang.',
};

/** The period the query asks for, as typed (WIB days); blank where it names none. */
function periodOf(request: FastifyRequest) {
  const q = (request.query ?? {}) as { from?: unknown; to?: unknown };
  return { from: typeof q.from === 'string' ? q.from : '', to: typeof q.to === 'string' ? q.to : '' };
}

/** Both dates as the JSON route takes them, checked before the report is computed. */
function reportPeriod({ from, to }: { from: string; to: string }) {
  if (!isQueryDate(from) || !isQueryDate(to))
    throw refuse('INVALID_PERIOD', { words: `Isi kedua tanggal: ${dateWords}` });
  return reconciliationPeriod(from, to);
}

/** Finance's reconciliation of the gateway over WIB days, as the JSON route and the CLI compute it, and its CSV. */
export function adminReconciliationPages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    app.get('/reconciliation', async (request, reply) => {
      const period = periodOf(request);
      const frame = frameOf(request, 'Rekonsiliasi gateway', 'reconciliation');
      if (!period.from && !period.to) return sendPage(reply, frame, reconciliationHtml(period, null));
      return orShowRefusal(
        async () => {
          const report = await reconciliationOf(deps, reportPeriod(period));
          const extra = await periodPanelHtml(deps, request, period, report);
          const notice = noticeOf(request, periodNotices);
          return sendPage(reply, notice ? { ...frame, notice } : frame, reconciliationHtml(period, report, extra));
        },
        error =>
          sendPage(
            reply,
            { ...frame, notice: { kind: 'error', text: refusalText(error) } },
            reconciliationHtml(period, null),
            { status: error.status },
          ),
      );
    });
    app.get('/reconciliation.csv', async (request, reply) => {
      const period = reportPeriod(periodOf(request));
      const { value, refusal } = queryFilters(request, reconciliationCsvQuery);
      if (refusal) throw refusal;
      return sendReconciliationCsv(reply, await reconciliationOf(deps, period), value.table);
    });
  };
}
