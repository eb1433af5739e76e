import { refuse } from '../errors.ts';
import { parseQrisPayment, transferAmount } from '../qris-payload.ts';
import { createQrisTransfer, transferAccount } from './send-transfer.ts';
import type { CommandDeps } from './deps.ts';

/** A QRIS payment as a photo of the merchant's QR asks for it; the amount is the one typed, if any. */
export type QrisTransferOrder = {
  image: Buffer | null;
  /** the amount typed (null: the QR's own), read by the surface once the account and the image are known good */
  requestedAmount: () => number | null;
  idempotencyKey?: string | undefined;
};

/**
 * A QRIS payment from the owner's WALLET-A account, POST /api/v1/accounts/:id/transfer's wallet-a-qris-create and the
 * dashboard's transfer page alike: the account first (404, 400), then the image (missing, not one, no QR: `readQr`,
 * the upload limits' and the decoder's), the payload, the amount; answers what the wallet says it paid.
 */
export async function payQrisFromImage(
  deps: CommandDeps,
  ownerId: string,
  accountId: string,
  order: QrisTransferOrder,
  readQr: (image: Buffer) => Promise<string>,
): Promise<string> {
  await transferAccount(deps, ownerId, accountId);
  if (!order.image || order.image.length === 0)
    throw refuse('QR_IMAGE_MISSING', { errors: [{ path: 'body.qrImage', message: 'required' }] });
  const requested = order.requestedAmount();
  const payload = await readQr(order.image);
  const parsed = parseQrisPayment(payload);
  if (!parsed.ok) throw refuse('QR_NOT_QRIS', { message: `The QR is not a valid QRIS: ${parsed.reason}` });
  const { amount, tip, message } = transferAmount(parsed.qris, requested);
  return createQrisTransfer(deps, ownerId, accountId, {
    payload,
    merchantName: parsed.qris.merchantName,
    amount,
    tip,
    message,
    idempotencyKey: order.idempotencyKey,
  });
}
