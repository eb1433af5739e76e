import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { changeGatewayFeeMode, requestGatewayAccess } from '../../commands/gateway-access-decisions.ts';
import { requestWithdrawal } from '../../commands/gateway-withdrawals.ts';
import { z } from 'zod';
import { DomainError } from '../../errors.ts';
import { listGatewayWithdrawals } from '../../projections/gateway-ledger.ts';
import { pendingByDueDate } from '../../projections/gateway-settlements.ts';
import { loadHolidayCalendar } from '../../projections/holiday-calendar.ts';
import { gatewayHtml, type GatewayForm } from '../../web/pages/gateway.ts';
import type { AppDeps } from '../deps.ts';
import { accessRequestBody, gatewayInformation } from '../gateway.ts';
import { withdrawalRequestBody } from '../gateway-withdrawals.ts';
import { parseBody } from '../validation.ts';
import { gatewaySettlementPages } from './gateway-settlement-pages.ts';
import { gatewayStatementPages, statementFiltersOf, statementView } from './gateway-statement-pages.ts';
import { noticeOf, orShowRefusal, refusalOf, seeOther, sendPage } from './page-reply.ts';
import { frameOf } from './page-surface.ts';
import { postedForm } from './posted-form.ts';

const doneNotices: Record<string, string> = {
  requested: 'Pengajuan terkirim. Admin akan meninjaunya.',
  saved: 'Pengaturan biaya disimpan; berlaku untuk pembayaran berikutnya.',
  withdrawal: 'Penarikan diajukan; jumlahnya ditahan sampai admin membayar atau menolaknya.',
};
const textFields = (body: unknown): GatewayForm =>
  Object.fromEntries(
    Object.entries((body ?? {}) as Record<string, unknown>).flatMap(([k, v]) =>
      typeof v === 'string' && k !== '_csrf' && k !== 'idempotencyKey' ? [[k, v]] : [],
    ),
  );
// the key the page made; a form without one (an old page) still asks, once per click
const idempotencyKey = z.uuid();
const feeForm = z.object({ feeToCustomer: z.enum(['true', 'false'], 'Pilih siapa yang menanggung biaya') });

/** The gateway page, a refusal on top with the form that asked as typed; a bad statement filter refuses only the statement. */
async function gatewayPage(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  opts: { error?: DomainError; formName?: string } = {},
) {
  const merchantId = request.viewer!.user.id;
  const [{ row: _row, ...info }, withdrawals, pendingDue] = await Promise.all([
    gatewayInformation(deps.pool, deps.config.gateway, merchantId),
    listGatewayWithdrawals(deps.pool, { merchantId }),
    // when each pending amount settles: the settler's rule on the calendar it uses
    loadHolidayCalendar(deps.pool).then(calendar => pendingByDueDate(deps.pool, merchantId, calendar)),
  ]);
  // a bad statement filter is the page's refusal: the rest of the page still shows, the statement empty
  const statement = await statementView(deps, merchantId, request).catch((err: unknown) => {
    const refusal = refusalOf(err);
    if (!refusal) throw err;
    return refusal;
  });
  const error = opts.error ?? (statement instanceof DomainError ? statement : undefined);
  const notice = noticeOf(request, doneNotices, error);
  const shown =
    statement instanceof DomainError
      ? { filters: statementFiltersOf(request), rows: [], total: 0, page: 1, totalPages: 0, days: [] }
      : statement;
  // a fresh key on every render: a refused request corrected is another request
  const view = {
    info,
    withdrawals,
    pendingDue,
    statement: shown,
    csrf: request.viewer!.csrf,
    form: opts.error ? textFields(request.body) : {},
    formName: opts.formName ?? '',
    withdrawalKey: randomUUID(),
  };
  return sendPage(reply, { ...frameOf(request, 'Gerbang pembayaran', 'gateway'), notice }, gatewayHtml(view), {
    status: error?.status ?? 200,
  });
}

/** The merchant's gateway page: access request, fee mode, balances and withdrawals, with the JSON routes' rules. */
export function gatewayPages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    /** Runs a form's command; a refusal shows the page again with the form as typed. */
    const form =
      (formName: string, run: (request: FastifyRequest, merchantId: string) => Promise<string>) =>
      (request: FastifyRequest, reply: FastifyReply) =>
        orShowRefusal(
          async () => seeOther(reply, '/dashboard/gateway', await run(request, request.viewer!.user.id)),
          error => gatewayPage(deps, request, reply, { error, formName }),
        );

    app.get('/gateway', (request, reply) => gatewayPage(deps, request, reply));
    await gatewayStatementPages(deps)(app);
    await gatewaySettlementPages(deps)(app);

    app.post(
      '/gateway/access-request',
      form('access', async (request, merchantId) => {
        const business = parseBody(accessRequestBody, textFields(request.body), 'Data usaha belum lengkap');
        await requestGatewayAccess(deps, merchantId, business);
        return 'requested';
      }),
    );

    app.post(
      '/gateway/settings',
      form('fee', async (request, merchantId) => {
        const { feeToCustomer } = postedForm(request, feeForm);
        await changeGatewayFeeMode(deps, merchantId, feeToCustomer === 'true');
        return 'saved';
      }),
    );

    app.post(
      '/gateway/withdrawals',
      form('withdraw', async (request, merchantId) => {
        const typed = textFields(request.body);
        const amount = /^\d{1,15}$/.test(typed.amount?.trim() ?? '') ? Number(typed.amount) : typed.amount; // not a whole number: the schema says so
        const withdrawal = parseBody(withdrawalRequestBody, { ...typed, amount }, 'Isian penarikan belum benar');
        const key = idempotencyKey.safeParse(
          (request.body as { idempotencyKey?: unknown } | undefined)?.idempotencyKey,
        );
        await requestWithdrawal(
          deps,
          merchantId,
          withdrawal,
          deps.config.gateway.minWithdrawal,
          key.success ? key.data : undefined,
        );
        return 'withdrawal';
      }),
    );
  };
}
