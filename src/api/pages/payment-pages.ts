import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { auditView } from '../../audit/event-view.ts';
import { streamEvents } from '../../audit/stream-pages.ts';
import { paymentStream } from '../../domain/payment.ts';
import { refuse } from '../../errors.ts';
import { paymentUrlOf } from '../../projections/payment-presenter.ts';
import { findPayment, listPayments } from '../../projections/payments.ts';
import { paymentDetailHtml, paymentsHtml, paymentStatuses, paymentTypes } from '../../web/pages/payments.ts';
import type { AppDeps } from '../deps.ts';
import { filterForm, pageOf, wibDayEnd, wibDayStart } from './list-filters.ts';
import { pathId, sendPage } from './page-reply.ts';
import { frameOf } from './page-surface.ts';

const pageSize = 50;
const filterNames = ['status', 'type', 'orderId', 'from', 'to'] as const;
const instant = z.iso.datetime({ offset: true }).transform(d => new Date(d));
const filters = z
  .object({
    status: z.enum(paymentStatuses).optional(),
    type: z.enum(paymentTypes).optional(),
    orderId: z.string().max(100).optional(),
    from: instant.optional(),
    to: instant.optional(),
  })
  .refine(f => !f.from || !f.to || f.from < f.to, {
    message: 'tanggal awal harus sebelum tanggal akhir',
    path: ['from'],
  });
const paymentNotFound = () => refuse('PAYMENT_NOT_FOUND', { words: 'Pembayaran tidak ditemukan' });

/** The viewer's payments: the list (filters, 50 a page, newest first) and each one with its event history. */
export function paymentPages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    app.get('/payments', async (request, reply) => {
      const form = filterForm(request, filterNames);
      const frame = frameOf(request, 'Pembayaran', 'payments');
      const parsed = filters.safeParse({
        ...form,
        ...(form.from ? { from: wibDayStart(form.from) } : {}),
        ...(form.to ? { to: wibDayEnd(form.to) } : {}),
      });
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const notice = {
          kind: 'error' as const,
          text: `Filter tidak valid (${issue?.path.join('.') ?? 'filter'}): ${issue?.message ?? 'periksa isian'}`,
        };
        return sendPage(
          reply,
          { ...frame, notice },
          paymentsHtml({ filters: form, rows: [], total: 0, page: 1, totalPages: 0 }),
          { status: 400 },
        );
      }
      const page = pageOf(request);
      const { rows, total } = await listPayments(deps.pool, {
        ownerId: request.viewer!.user.id,
        ...parsed.data,
        page,
        limit: pageSize,
      });
      return sendPage(
        reply,
        frame,
        paymentsHtml({ filters: form, rows, total, page, totalPages: Math.ceil(total / pageSize) }),
      );
    });

    app.get<{ Params: { id: string } }>('/payments/:id', async (request, reply) => {
      const payment = await findPayment(deps.pool, pathId(request.params.id, paymentNotFound));
      // another owner's payment is as unknown as one that never existed
      if (!payment || payment.owner_id !== request.viewer!.user.id) throw paymentNotFound();
      const events = [];
      for await (const recorded of streamEvents(deps.store, paymentStream(payment.id)))
        events.push(auditView(recorded));
      const view = { payment, paymentUrl: paymentUrlOf(deps.config.publicBaseUrl, payment.id), events };
      return sendPage(reply, frameOf(request, `Pembayaran ${payment.order_id}`, 'payments'), paymentDetailHtml(view));
    });
  };
}
