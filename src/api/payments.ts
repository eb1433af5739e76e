import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createPayment } from '../commands/payments.ts';
import { refuse } from '../errors.ts';
import { presentPayment, rowOfPayment } from '../projections/payment-presenter.ts';
import { findPayment, listPaymentsAfter, paymentsProjection, type PaymentRow } from '../projections/payments.ts';
import { paymentType } from '../events/payments.ts';
import { text } from '../text.ts';
import type { AppDeps } from './deps.ts';
import { cursorLimit, cursorPage, pageCursor } from './page-cursor.ts';
import { fromBeforeTo, periodFrom, periodOrder, periodTo } from './query-params.ts';

export const createBody = z.object({
  amount: z.int().min(1).max(1_000_000_000_000),
  walletAccountId: z.union([z.literal('GATEWAY'), z.uuid('a linked account id or GATEWAY')]),
  redirectUrl: text
    .max(2000, 'at most 2000 characters')
    .pipe(z.url({ protocol: /^https?$/, error: 'an http or https URL' })),
  orderId: text.trim().min(1).max(100),
  type: text.trim().min(1).max(20).optional(),
  expiresInMinutes: z.int().min(5).max(10_080).optional(),
});
const createHeaders = z.object({ 'idempotency-key': text.trim().min(1).max(255).optional() });
const statusParams = z.object({ paymentId: z.uuid() });
/** The list's filters: from/to on when a payment was created (instants, or WIB days), the order id whole. */
export const paymentsQuery = z
  .object({
    status: z.enum(['PENDING', 'COMPLETED', 'EXPIRED', 'FAILED']).optional(),
    type: paymentType.optional(),
    orderId: text.trim().min(1).max(100).optional(),
    from: periodFrom('WIB').optional(),
    to: periodTo('WIB').optional(),
    cursor: pageCursor.optional(),
    limit: cursorLimit,
  })
  .refine(fromBeforeTo, periodOrder());

const paymentNotFound = () => refuse('PAYMENT_NOT_FOUND');

/**
 * The payment's read-model row. One created a moment ago may not be there yet: then wait for the payments projection
 * to reach the head of the log (read-your-writes), and read again; reads never go to the event store.
 */
export async function paymentRow(deps: AppDeps, paymentId: string): Promise<PaymentRow | null> {
  const row = await findPayment(deps.pool, paymentId);
  if (row) return row;
  const caughtUp = await deps.readModels.waitFor(await deps.store.headPosition(), 2000, [paymentsProjection]);
  return caughtUp ? findPayment(deps.pool, paymentId) : null;
}

/** /api/v1/payments: create a payment into a linked account, read its status, list them; scoped to the key's owner. */
export function paymentRoutes(deps: AppDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();

    app.post('/', { schema: { body: createBody, headers: createHeaders } }, async request => {
      const ownerId = request.owner!.userId;
      const { payment: created } = await createPayment(
        deps,
        ownerId,
        { ...request.body, idempotencyKey: request.headers['idempotency-key'] },
        deps.config.gateway,
      );
      return { status: 'success', data: presentPayment(rowOfPayment(created), deps.config.publicBaseUrl) };
    });

    // newest first, a page at a time: the next page starts after the last row of this one (src/api/page-cursor.ts)
    app.get('/', { schema: { querystring: paymentsQuery } }, async request => {
      const { cursor, limit, ...filters } = request.query;
      const rows = await listPaymentsAfter(deps.pool, {
        ...filters,
        ownerId: request.owner!.userId,
        after: cursor,
        limit: limit + 1,
      });
      const page = cursorPage(rows, limit, row => ({ at: row.created_at, id: row.id }));
      const data = page.rows.map(row => presentPayment(row, deps.config.publicBaseUrl));
      return { status: 'success', data, pagination: page.pagination };
    });

    app.get('/status/:paymentId', { schema: { params: statusParams } }, async request => {
      const row = await paymentRow(deps, request.params.paymentId);
      if (!row || row.owner_id !== request.owner!.userId) throw paymentNotFound();
      return { status: 'success', data: presentPayment(row, deps.config.publicBaseUrl) };
    });
  };
}
