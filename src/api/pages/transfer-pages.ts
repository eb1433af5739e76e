import { randomUUID } from 'node:crypto';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { payQrisFromImage } from '../../commands/qris-transfer.ts';
import {
  createBankTransfer,
  initBankTransfer,
  listTransferBanks,
  transferLimits,
} from '../../commands/send-transfer.ts';
import { DomainError, refuse } from '../../errors.ts';
import { findOwnedAccount } from '../../projections/accounts.ts';
import { bankConfirmHtml, transferHtml, type TransferForm } from '../../web/pages/transfers.ts';
import type { AppDeps } from '../deps.ts';
import type { QrUploads } from '../qr-uploads.ts';
import { bankCreateBody, bankInitBody, qrUploadLimits, requestedQrisAmount } from '../transfers.ts';
import { parseBody } from '../validation.ts';
import { orShowRefusal, pathId, refusalText, seeOther, sendPage } from './page-reply.ts';
import { frameOf } from './page-surface.ts';
import { postedForm } from './posted-form.ts';

type Params = { Params: { id: string } };
const accountNotFound = () => refuse('ACCOUNT_NOT_FOUND', { words: 'Rekening tidak ditemukan' });
const posted = (request: FastifyRequest) => (request.body ?? {}) as Record<string, unknown>;
const str = (value: unknown) => (typeof value === 'string' ? value.trim() : '');
const idempotencyKey = z.uuid();
/** A field as typed, trimmed; not text is blank (the command's schema refuses what is missing). */
const typedText = z.preprocess(value => (typeof value === 'string' ? value.trim() : ''), z.string());
const bankForm = z.object({ instId: typedText, accountNumber: typedText, amount: typedText });

/** The viewer's WALLET-A account the path names; another's or an unknown one is not found. */
async function owned(deps: AppDeps, request: FastifyRequest<Params>) {
  const row = await findOwnedAccount(deps.pool, request.viewer!.user.id, pathId(request.params.id, accountNotFound));
  if (!row) throw accountNotFound();
  if (row.provider_code !== 'WALLET-A')
    throw refuse('TRANSFER_NOT_SUPPORTED', { words: 'Transfer keluar hanya dari akun Wallet A' });
  return row;
}

/** The transfer forms, with a refusal on top and what was typed, or fresh. */
async function transferPage(
  deps: AppDeps,
  request: FastifyRequest<Params>,
  reply: FastifyReply,
  error?: DomainError,
  form: TransferForm = {},
) {
  const row = await owned(deps, request);
  const banks = await listTransferBanks(deps, request.viewer!.user.id, row.id).catch(err => {
    if (err instanceof DomainError && err.status < 500) return [];
    throw err;
  });
  const notice = error ? { kind: 'error' as const, text: refusalText(error) } : null;
  return sendPage(
    reply,
    { ...frameOf(request, 'Kirim uang', 'accounts'), notice },
    transferHtml(row, banks, request.viewer!.csrf, form, transferLimits, randomUUID()),
    { status: error?.status ?? 200 },
  );
}

/** A bank transfer in two pages: the recipient's name checked first, then one button that sends. */
function bankTransferPages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    app.post<Params>('/accounts/:id/transfer/bank', async (request, reply) => {
      const row = await owned(deps, request);
      const ownerId = request.viewer!.user.id;
      const form = postedForm(request, bankForm);
      return orShowRefusal(
        async () => {
          const bank = (await listTransferBanks(deps, ownerId, row.id)).find(b => b.instId === form.instId);
          if (!bank) throw refuse('VALIDATION_ERROR', { words: 'Pilih bank dari daftar' });
          const { action: _action, ...input } = parseBody(
            bankInitBody,
            { action: 'wallet-a-bank-init', ...bank, accountNumber: form.accountNumber, amount: form.amount },
            'Isian transfer belum benar',
          );
          const checked = await initBankTransfer(deps, ownerId, row.id, input);
          const view = {
            csrf: request.viewer!.csrf,
            bankName: bank.name,
            accountNumber: input.accountNumber,
            amount: input.amount,
            ...checked,
            idempotencyKey: randomUUID(),
          };
          return sendPage(reply, frameOf(request, 'Periksa penerima', 'accounts'), bankConfirmHtml(row, view));
        },
        error => transferPage(deps, request, reply, error, form),
      );
    });

    app.post<Params>('/accounts/:id/transfer/bank/send', async (request, reply) => {
      const row = await owned(deps, request);
      const body = posted(request);
      return orShowRefusal(
        async () => {
          const input = parseBody(
            bankCreateBody,
            { action: 'wallet-a-bank-create', bankAccountIndexNo: body.bankAccountIndexNo, amount: body.amount },
            'Isian transfer belum benar',
          );
          const key = idempotencyKey.safeParse(body.idempotencyKey);
          await createBankTransfer(deps, request.viewer!.user.id, row.id, {
            ...input,
            idempotencyKey: key.success ? key.data : undefined,
          });
          return seeOther(reply, `/dashboard/accounts/${row.id}`, 'transferred');
        },
        error => transferPage(deps, request, reply, error),
      );
    });
  };
}

/** A QRIS payment from an uploaded photo of the QR; the upload counts against its user's limit. */
function qrisTransferPages(deps: AppDeps, qrImages: QrUploads) {
  return async function (app: FastifyInstance) {
    app.post<Params>('/accounts/:id/transfer/qris', async (request, reply) => {
      const row = await owned(deps, request);
      const body = posted(request);
      const image = Buffer.isBuffer(body.qrImage) ? body.qrImage : null;
      const amount = str(body.amount);
      return orShowRefusal(
        async () => {
          const key = idempotencyKey.safeParse(body.idempotencyKey);
          const order = {
            image,
            requestedAmount: () => requestedQrisAmount(amount),
            idempotencyKey: key.success ? key.data : undefined,
          };
          await payQrisFromImage(deps, request.viewer!.user.id, row.id, order, bytes =>
            qrImages.read(request, reply, bytes),
          );
          return seeOther(reply, `/dashboard/accounts/${row.id}`, 'paid');
        },
        error => transferPage(deps, request, reply, error, { amount }),
      );
    });
  };
}

/**
 * Money out of the viewer's WALLET-A account from the dashboard: a bank transfer in two pages
 * (the recipient's name first, then one button that sends), or a QRIS payment from an uploaded photo of the QR. The
 * key surface's commands and checks; the send button carries an idempotency key, so a second click or a reload
 * moves the money once. A QR upload counts against its user's limit, shared with the key surface.
 */
export function transferPages(deps: AppDeps, qrImages: QrUploads) {
  return async function (app: FastifyInstance) {
    // the QR form is multipart: read whole (within the API's limits) before the form token is checked
    await app.register(multipart, {
      limits: qrUploadLimits,
      throwFileSizeLimit: true,
      attachFieldsToBody: 'keyValues',
    });
    app.get<Params>('/accounts/:id/transfer', (request, reply) => transferPage(deps, request, reply));
    await app.register(bankTransferPages(deps));
    await app.register(qrisTransferPages(deps, qrImages));
  };
}
