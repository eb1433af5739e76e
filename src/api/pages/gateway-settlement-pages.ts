import type { FastifyInstance } from 'fastify';
import { refuse } from '../../errors.ts';
import { listSettlements, settledCredits } from '../../projections/gateway-settlements.ts';
import { presentSettlements } from '../../projections/settlement-presenter.ts';
import { settlementHtml, settlementsHtml } from '../../web/pages/gateway-settlements.ts';
import type { AppDeps } from '../deps.ts';
import { settlementDetail } from '../gateway-settlements.ts';
import { pageNumber } from '../query-params.ts';
import { filterRefusal, pageAsked } from './list-filters.ts';
import { pathId, sendPage } from './page-reply.ts';
import { frameOf } from './page-surface.ts';

const settlementsPerPage = 20;
/** A settlement's payments on the list: the first ones; the rest on its own page. */
const paymentsOnList = 50;
const paymentsPerPage = 100;

const pageOf = (request: Parameters<typeof pageAsked>[0]) => {
  const parsed = pageNumber.safeParse(pageAsked(request));
  if (!parsed.success) throw filterRefusal(parsed.error);
  return parsed.data;
};

/** The merchant's settlements on the dashboard: the list (each with its first payments) and one with all its payments. */
export function gatewaySettlementPages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    app.get('/gateway/settlements', async (request, reply) => {
      const merchantId = request.viewer!.user.id;
      const page = pageOf(request);
      const { rows, total } = await listSettlements(deps.pool, { merchantId, page, limit: settlementsPerPage });
      const credits = await settledCredits(
        deps.pool,
        rows.map(r => r.id),
        { limit: paymentsOnList },
      );
      const view = {
        settlements: presentSettlements(rows, credits),
        page,
        total,
        totalPages: Math.ceil(total / settlementsPerPage),
      };
      return sendPage(reply, frameOf(request, 'Pencairan saldo', 'gateway'), settlementsHtml(view));
    });

    app.get<{ Params: { id: string } }>('/gateway/settlements/:id', async (request, reply) => {
      const id = pathId(request.params.id, () => refuse('SETTLEMENT_NOT_FOUND'));
      const page = pageOf(request);
      const { settlement, total } = await settlementDetail(deps.pool, request.viewer!.user.id, id, {
        page,
        limit: paymentsPerPage,
      });
      const view = { settlement, page, totalPages: Math.ceil(total / paymentsPerPage) };
      return sendPage(reply, frameOf(request, 'Pencairan saldo', 'gateway'), settlementHtml(view));
    });
  };
}
