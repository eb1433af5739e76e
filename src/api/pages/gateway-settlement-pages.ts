import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { refuse } from '../../errors.ts';
import { listSettlements, settledCredits } from '../../projections/gateway-settlements.ts';
import { presentSettlements } from '../../projections/settlement-presenter.ts';
import { settlementHtml, settlementsHtml } from '../../web/pages/gateway-settlements.ts';
import type { AppDeps } from '../deps.ts';
import { settlementDetail } from '../gateway-settlements.ts';
import { fromBeforeTo, pageNumber, periodFrom, periodOrder, periodTo } from '../query-params.ts';
import { filterForm, queryFilters } from './list-filters.ts';
import { noticeOf, pathId, sendPage } from './page-reply.ts';
import { frameOf } from './page-surface.ts';

const settlementsPerPage = 20;
/** A settlement's payments on the list: the first ones; the rest on its own page. */
const paymentsOnList = 50;
const paymentsPerPage = 100;

/** The list's filters: the JSON route's period (WIB days of when each was settled) and page. */
const listQuery = z
  .object({ from: periodFrom('WIB').optional(), to: periodTo('WIB').optional(), page: pageNumber })
  .refine(fromBeforeTo, periodOrder());
const detailQuery = z.object({ page: pageNumber });

/** The merchant's settlements on the dashboard: the list (each with its first payments) and one with all its payments. */
export function gatewaySettlementPages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    // a refused filter is the page itself with the refusal, its list as without filters
    app.get('/gateway/settlements', async (request, reply) => {
      const merchantId = request.viewer!.user.id;
      const { value: q, refusal } = queryFilters(request, listQuery);
      const { rows, total } = await listSettlements(deps.pool, { merchantId, ...q, limit: settlementsPerPage });
      const credits = await settledCredits(
        deps.pool,
        rows.map(r => r.id),
        { limit: paymentsOnList },
      );
      const view = {
        filters: filterForm(request, ['from', 'to'] as const),
        settlements: presentSettlements(rows, credits),
        page: q.page,
        total,
        totalPages: Math.ceil(total / settlementsPerPage),
      };
      return sendPage(
        reply,
        { ...frameOf(request, 'Pencairan saldo', 'gateway'), notice: noticeOf(request, {}, refusal) },
        settlementsHtml(view),
        { status: refusal?.status ?? 200 },
      );
    });

    app.get<{ Params: { id: string } }>('/gateway/settlements/:id', async (request, reply) => {
      const id = pathId(request.params.id, () => refuse('SETTLEMENT_NOT_FOUND'));
      const { value: q, refusal } = queryFilters(request, detailQuery);
      const { settlement, total } = await settlementDetail(deps.pool, request.viewer!.user.id, id, {
        page: q.page,
        limit: paymentsPerPage,
      });
      const view = { settlement, page: q.page, totalPages: Math.ceil(total / paymentsPerPage) };
      return sendPage(
        reply,
        { ...frameOf(request, 'Pencairan saldo', 'gateway'), notice: noticeOf(request, {}, refusal) },
        settlementHtml(view),
        { status: refusal?.status ?? 200 },
      );
    });
  };
}
