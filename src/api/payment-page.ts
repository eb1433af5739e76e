import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import QRCode from 'qrcode';
import { z } from 'zod';
import { NotFound } from '../errors.ts';
import { isQrType } from '../payments/present.ts';
import { findPayment } from '../projections/payments.ts';
import type { AppDeps } from './deps.ts';

const params = z.object({ paymentId: z.uuid() });
const notFound = () => new NotFound('Payment not found', 'PAYMENT_NOT_FOUND');

/** The QR image of a payment, 256x256 PNG, as the interface fixes it. */
export function qrPng(payload: string): Promise<Buffer> {
  return QRCode.toBuffer(payload, { type: 'png', width: 256, margin: 2, errorCorrectionLevel: 'M' });
}

/** What the customer's browser reads without a key: the payment page's data and the QR image (ids are unguessable). */
export function paymentPageRoutes(deps: AppDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();

    app.get('/pay/:paymentId/qris.png', { schema: { params } }, async (request, reply) => {
      const row = await findPayment(deps.pool, request.params.paymentId);
      if (!row || !isQrType(row.type) || !row.qris_payload) throw notFound();
      return reply.type('image/png').header('cache-control', 'private, max-age=300').send(await qrPng(row.qris_payload));
    });
  };
}
