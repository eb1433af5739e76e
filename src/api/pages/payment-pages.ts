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
import { fromBeforeTo, pageNumber, periodFrom, periodOrder, periodTo } from '../query-params.ts';
import { filterForm, filterRefusal, pageAsked } from './list-filters.ts';
import { pathId, refusalText, sendPage } from './page-reply.ts';
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
const paymentNotFound = () => refuse('PAYMENT_NOT_FOUND', { words: 'Pembayaran tidak ditemukan' });

/** The viewer's payments: the list (filters, 50 a page, newest first) and each one with its event history. */
export function paymentPages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    app.get('/payments', async (request, reply) => {
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
