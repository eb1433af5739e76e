import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { auditView } from '../../audit/event-view.ts';
import { streamEvents } from '../../audit/stream-pages.ts';
import { paymentStream } from '../../domain/payments.ts';
import { createPayment } from '../../commands/payments.ts';
import { DomainError, refuse } from '../../errors.ts';
import { listAccounts } from '../../projections/accounts.ts';
import { findProvider } from '../../providers/catalogue.ts';
import { paymentLinkHtml, type PaymentLinkForm } from '../../web/pages/payment-link.ts';
import { createBody, paymentRow } from '../payments.ts';
import { parseBody } from '../validation.ts';
import { paymentUrlOf } from '../../projections/payment-presenter.ts';
import { listPayments } from '../../projections/payments.ts';
import { paymentDetailHtml, paymentsHtml, paymentStatuses, paymentTypes } from '../../web/pages/payments.ts';
import type { AppDeps } from '../deps.ts';
import { fromBeforeTo, pageNumber, periodFrom, periodOrder, periodTo } from '../query-params.ts';
import { filterForm, filterRefusal, pageAsked } from './list-filters.ts';
import { noticeOf, orShowRefusal, pathId, refusalText, seeOther, sendPage } from './page-reply.ts';
import { frameOf } from './page-surface.ts';

const pageSize = 50;
const filterNames = ['status', 'type', 'orderId', 'from', 'to'] as const;
const filters = z
  .object({
    status: z.enum(paymentStatuses).optional(),
    type: z.enum(paymentTypes).optional(),
    orderId: z.string().max(100).optional(),
    // a date typed into the page means a WIB day, as people here mean it
    from: periodFrom('WIB').optional(),
    to: periodTo('WIB').optional(),
    page: pageNumber,
  })
  .refine(fromBeforeTo, periodOrder());
const done = { created: 'Pembayaran dibuat. Bagikan alamat halaman pembayarannya kepada pembeli.' };
const linkFields = ['amount', 'orderId', 'walletAccountId', 'type', 'redirectUrl', 'idempotencyKey'] as const;
/** The payment link form's fields as typed (text only). */
const linkForm = (body: unknown): PaymentLinkForm =>
  Object.fromEntries(
    linkFields.flatMap(name => {
      const value = (body as Record<string, unknown> | undefined)?.[name];
      return typeof value === 'string' ? [[name, value]] : [];
    }),
  );
const paymentNotFound = () => refuse('PAYMENT_NOT_FOUND', { words: 'Pembayaran tidak ditemukan' });

/** The list, 50 a page, newest first; a filter refused shows the form as typed, the list empty (400). */
async function paymentsPage(deps: AppDeps, request: FastifyRequest, reply: FastifyReply) {
  const form = filterForm(request, filterNames);
  const frame = frameOf(request, 'Pembayaran', 'payments');
  const parsed = filters.safeParse({ ...form, page: pageAsked(request) });
  if (!parsed.success) {
    const notice = { kind: 'error' as const, text: refusalText(filterRefusal(parsed.error)) };
    return sendPage(
      reply,
      { ...frame, notice },
      paymentsHtml({ filters: form, rows: [], total: 0, page: 1, totalPages: 0 }),
      { status: 400 },
    );
  }
  const { page } = parsed.data;
  const { rows, total } = await listPayments(deps.pool, {
    ownerId: request.viewer!.user.id,
    ...parsed.data,
    limit: pageSize,
  });
  return sendPage(
    reply,
    frame,
    paymentsHtml({ filters: form, rows, total, page, totalPages: Math.ceil(total / pageSize) }),
  );
}

/** The payment link form: the viewer's accounts that take payments, a fresh idempotency key. */
async function linkPage(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  form: PaymentLinkForm,
  error?: DomainError,
) {
  const { rows } = await listAccounts(deps.pool, { ownerId: request.viewer!.user.id, page: 1, limit: 100 });
  const accounts = rows.filter(a => (findProvider(a.provider_code)?.paymentTypes.length ?? 0) > 0);
  const view = { csrf: request.viewer!.csrf, accounts, form: { ...form, idempotencyKey: randomUUID() } };
  return sendPage(
    reply,
    { ...frameOf(request, 'Tautan pembayaran', 'payments'), notice: noticeOf(request, {}, error) },
    paymentLinkHtml(view),
    { status: error?.status ?? 200 },
  );
}

/** The API's request from the link form: a whole number typed is the amount, a blank address is the service's. */
function paymentRequestOf(deps: AppDeps, form: PaymentLinkForm) {
  const input = parseBody(
    createBody,
    {
      amount: /^\d{1,13}$/.test(form.amount ?? '') ? Number(form.amount) : form.amount,
      walletAccountId: form.walletAccountId,
      orderId: form.orderId,
      type: form.type || undefined,
      redirectUrl: form.redirectUrl || `${deps.config.publicBaseUrl}/`,
    },
    'Isian pembayaran belum benar',
  );
  const key = z.uuid().safeParse(form.idempotencyKey);
  return { ...input, idempotencyKey: key.success ? key.data : undefined };
}

/** One payment of the viewer's with its event history; another owner's is as unknown as one that never existed. */
async function paymentPage(deps: AppDeps, request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
  const payment = await paymentRow(deps, pathId(request.params.id, paymentNotFound));
  if (!payment || payment.owner_id !== request.viewer!.user.id) throw paymentNotFound();
  const events = [];
  for await (const recorded of streamEvents(deps.store, paymentStream(payment.id))) events.push(auditView(recorded));
  const view = { payment, paymentUrl: paymentUrlOf(deps.config.publicBaseUrl, payment.id), events };
  const frame = {
    ...frameOf(request, `Pembayaran ${payment.order_id}`, 'payments'),
    notice: noticeOf(request, done),
  };
  return sendPage(reply, frame, paymentDetailHtml(view));
}

/** The viewer's payments: the list (filters, 50 a page, newest first) and each one with its event history. */
export function paymentPages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    app.get('/payments', (request, reply) => paymentsPage(deps, request, reply));
    // a payment link: the API's request from a form, its page's address then shown to share
    app.get('/payments/new', (request, reply) => linkPage(deps, request, reply, {}));
    app.post('/payments/new', async (request, reply) => {
      const form = linkForm(request.body);
      return orShowRefusal(
        async () => {
          const input = paymentRequestOf(deps, form);
          const { paymentId } = await createPayment(deps, request.viewer!.user.id, input, deps.config.gateway);
          return seeOther(reply, `/dashboard/payments/${paymentId}`, 'created');
        },
        error => linkPage(deps, request, reply, form, error),
      );
    });
    app.get<{ Params: { id: string } }>('/payments/:id', (request, reply) => paymentPage(deps, request, reply));
  };
}
