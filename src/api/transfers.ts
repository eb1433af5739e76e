import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { payQrisFromImage } from '../commands/qris-transfer.ts';
import {
  createBankTransfer,
  initBankTransfer,
  listTransferBanks,
  transferAccount,
  transferLimits,
} from '../commands/send-transfer.ts';
import { refuse } from '../errors.ts';
import { text } from '../text.ts';
import type { AppDeps } from './deps.ts';
import type { QrUploads } from './qr-uploads.ts';
import { parseBody } from './validation.ts';

/** The QR image's limits: one file of at most 5 MB, a few small fields, set on the parser itself. */
export const qrUploadLimits = {
  files: 1,
  fileSize: 5 * 1024 * 1024,
  fields: 5,
  parts: 6,
  fieldSize: 1024,
  headerPairs: 50,
};

const accountParams = z.object({ id: z.uuid() });
const idempotencyKey = (request: FastifyRequest) => {
  const key = request.headers['idempotency-key'];
  return typeof key === 'string' && key.trim() ? text.max(255).parse(key.trim()) : undefined;
};

/** Rupiah as the interface sends them (a string of digits, or a number), at least `min`. */
const rupiahField = (min: number) =>
  z
    .union([
      z
        .string()
        .trim()
        .regex(/^\d{1,12}$/, 'whole rupiah, digits only')
        .transform(Number),
      z.int(),
    ])
    .pipe(z.int().min(min, `at least ${min}`).max(transferLimits.max, `at most ${transferLimits.max}`));

/** A bank transfer's inquiry (step 2); the dashboard's transfer page checks its form with it too. */
export const bankInitBody = z.object({
  action: z.literal('wallet-a-bank-init'),
  accountNumber: text.trim().regex(/^\d{6,20}$/, 'digits only'),
  amount: rupiahField(transferLimits.bankMin),
  instId: text.trim().min(1).max(50),
  instLocalName: text.trim().min(1).max(100),
  payMethod: text.trim().min(1).max(50),
  payOption: text.trim().min(1).max(50),
});
export const bankCreateBody = z.object({
  action: z.literal('wallet-a-bank-create'),
  bankAccountIndexNo: text.trim().min(1).max(100),
  amount: rupiahField(transferLimits.bankMin),
});
const actionBody = z.object({ action: text.max(50) });

/** A QR transfer's amount as typed (a form field's text): none, or whole rupiah from the QR minimum. */
export const requestedQrisAmount = (amount: string | undefined) =>
  amount === undefined || amount === '' ? null : parseBody(rupiahField(transferLimits.qrisMin), amount);

/** The multipart form of a QR transfer: its fields and the image, read within the parser's limits. */
async function qrForm(request: FastifyRequest) {
  const fields: Record<string, string> = {};
  let image: Buffer | null = null;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        const bytes = await part.toBuffer();
        if (part.fieldname === 'qrImage') image = bytes;
      } else if (typeof part.value === 'string') fields[part.fieldname] = part.value;
    }
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    if (code === 'FST_REQ_FILE_TOO_LARGE')
      throw refuse('QR_IMAGE_TOO_LARGE', { message: 'qrImage is larger than 5 MB' });
    if (code.startsWith('FST_'))
      throw refuse('VALIDATION_ERROR', { message: `The form was refused: ${(err as Error).message}` });
    throw err;
  }
  return { fields, image };
}

/**
 * POST /api/v1/accounts/:id/transfer: money out of the key owner's WALLET-A account. JSON for the
 * bank transfer's three steps; multipart for the QR transfer, whose image is checked before it is decoded.
 */
export function transferRoutes(deps: AppDeps, qrImages: QrUploads) {
  return async function (app: FastifyInstance) {
    await app.register(multipart, { limits: qrUploadLimits, throwFileSizeLimit: true });

    app.post('/:id/transfer', async (request, reply) => {
      const params = accountParams.safeParse(request.params);
      if (!params.success) throw refuse('ACCOUNT_NOT_FOUND');
      const accountId = params.data.id;
      const ownerId = request.owner!.userId;
      if (request.isMultipart()) {
        const { fields, image } = await qrForm(request);
        if (fields.action !== 'wallet-a-qris-create')
          throw refuse('VALIDATION_ERROR', {
            message: 'A multipart request is a QR transfer: action wallet-a-qris-create',
            errors: [{ path: 'body.action', message: 'must be wallet-a-qris-create' }],
          });
        const order = {
          image,
          requestedAmount: () => requestedQrisAmount(fields.amount),
          idempotencyKey: idempotencyKey(request),
        };
        return {
          success: true,
          message: await payQrisFromImage(deps, ownerId, accountId, order, bytes =>
            qrImages.read(request, reply, bytes),
          ),
        };
      }
      const { action } = parseBody(actionBody, request.body ?? {}, 'action is required');
      switch (action) {
        case 'wallet-a-bank-list':
          return { success: true, data: await listTransferBanks(deps, ownerId, accountId) };
        case 'wallet-a-bank-init': {
          await transferAccount(deps, ownerId, accountId); // 404 and 400 for the account before the body's rows
          const { action: _action, ...input } = parseBody(bankInitBody, request.body);
          return { success: true, data: await initBankTransfer(deps, ownerId, accountId, input) };
        }
        case 'wallet-a-bank-create': {
          await transferAccount(deps, ownerId, accountId);
          const input = parseBody(bankCreateBody, request.body);
          const message = await createBankTransfer(deps, ownerId, accountId, {
            ...input,
            idempotencyKey: idempotencyKey(request),
          });
          return { success: true, message };
        }
        case 'wallet-a-qris-create':
          await transferAccount(deps, ownerId, accountId);
          throw refuse('QR_IMAGE_MISSING', {
            errors: [{ path: 'body.qrImage', message: 'required: send the form as multipart/form-data' }],
          });
        default:
          throw refuse('VALIDATION_ERROR', {
            message:
              'Unknown action: wallet-a-qris-create, wallet-a-bank-list, wallet-a-bank-init or wallet-a-bank-create',
            errors: [{ path: 'body.action', message: 'unknown' }],
          });
      }
    });
  };
}
