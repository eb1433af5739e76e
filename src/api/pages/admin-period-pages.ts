import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  bookMonthOf,
  closeGatewayPeriod,
  monthPeriod,
  reconciliationOf,
  reopenGatewayPeriod,
  type AnsweredReconciliation,
} from '../../audit/gateway-closed-periods.ts';
import type { DomainError } from '../../errors.ts';
import {
  closeRefusal,
  gatewayPeriods,
  gatewayPeriodsStream,
  latestClosed,
  monthOfDays,
} from '../../domain/gateway-periods.ts';
import { load } from '../../store/commands/handle.ts';
import { monthPanelHtml, priorPeriodHtml } from '../../web/pages/admin-periods.ts';
import { reconciliationHtml } from '../../web/pages/admin.ts';
import { refusalWords } from '../../web/refusal-words.ts';
import type { AppDeps } from '../deps.ts';
import { reopenBody } from '../gateway-periods.ts';
import { orShowRefusal, seeOther, sendPage, refusalText } from './page-reply.ts';
import { frameOf } from './page-surface.ts';

const field = (request: FastifyRequest, name: string): unknown =>
  (request.body as Record<string, unknown> | undefined)?.[name];

/** What the reconciliation page shows besides the report: the month's close state and its prior-period items. */
export async function periodPanelHtml(
  deps: AppDeps,
  request: FastifyRequest,
  period: { from: string; to: string },
  report: AnsweredReconciliation,
): Promise<string> {
  const prior = priorPeriodHtml(report.priorPeriod);
  const month = monthOfDays(period.from, period.to);
  if (!month) return prior;
  const state = (await load(deps, gatewayPeriodsStream, gatewayPeriods)).state;
  const refused = report.closed ? null : closeRefusal(state, month, deps.clock.now());
  const panel = monthPanelHtml({
    month,
    closed: report.closed,
    closable: !report.closed && refused === null,
    notClosable: refused ? refusalWords(refused) : null,
    reopenable: report.closed !== null && latestClosed(state) === month,
    csrf: request.viewer!.csrf,
  });
  return panel + prior;
}

/**
 * The console's close and reopen of a month, from the reconciliation page of exactly that month (the form token
 * checked by the page surface); back to the month's page, or that page again with the refusal.
 */
export function adminPeriodPages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    const monthPage = (month: string) => {
      const { from, to } = monthPeriod(month);
      return { from, to, path: `/admin/reconciliation?${new URLSearchParams({ from, to })}` };
    };
    const showRefused = async (request: FastifyRequest, reply: FastifyReply, month: string, error: DomainError) => {
      const { from, to } = monthPage(month);
      const frame = frameOf(request, 'Rekonsiliasi gateway', 'reconciliation');
      const report = await reconciliationOf(deps, monthPeriod(month));
      const extra = await periodPanelHtml(deps, request, { from, to }, report);
      return sendPage(
        reply,
        { ...frame, notice: { kind: 'error', text: refusalText(error) } },
        reconciliationHtml({ from, to }, report, extra),
        { status: error.status },
      );
    };
    const act =
      (run: (request: FastifyRequest, month: string) => Promise<string>) =>
      async (request: FastifyRequest<{ Params: { period: string } }>, reply: FastifyReply) => {
        const month = bookMonthOf(request.params.period);
        return orShowRefusal(
          async () => seeOther(reply, monthPage(month).path, await run(request, month)),
          error => showRefused(request, reply, month, error),
        );
      };

    app.post<{ Params: { period: string } }>(
      '/reconciliation/periods/:period/close',
      act(async (request, month) => {
        await closeGatewayPeriod(deps, request.viewer!.user.id, month);
        return 'period-closed';
      }),
    );
    app.post<{ Params: { period: string } }>(
      '/reconciliation/periods/:period/reopen',
      act(async (request, month) => {
        const { reason } = reopenBody.parse({ reason: field(request, 'reason') ?? '' });
        await reopenGatewayPeriod(deps, request.viewer!.user.id, month, reason);
        return 'period-reopened';
      }),
    );
  };
}
