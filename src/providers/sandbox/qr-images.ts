import { DomainError } from '../../errors.ts';
import { qrDecoder } from '../../qr-decoding.ts';
import { checkQrImage } from '../../qr-image.ts';
import { SandboxError } from './errors.ts';

/**
 * QR images a tester uploads to pay (`POST /sandbox/payments` with an image/png or image/jpeg body), read as the
 * service reads a transfer's QR image: the header checked, then decoded in a worker thread, never on the event loop
 * (a picture of noise keeps the decoder busy for seconds). One thread is enough for a test mode; testers share it fairly
 * by address.
 */
export function sandboxQrImages() {
  const decoder = qrDecoder({ threads: 1, queue: 8, queuePerTenant: 2, deadlineMs: 3000 });
  return {
    /** The QR's text; 400 QR_NOT_FOUND, QR_IMAGE_NOT_AN_IMAGE or QR_IMAGE_TOO_LARGE, 429 QR_DECODER_BUSY. */
    async read(image: Buffer, from: string): Promise<string> {
      try {
        checkQrImage(image);
        return await decoder.read(image, { tenant: from, beforeDecoding: async () => {} });
      } catch (err) {
        if (err instanceof DomainError) throw new SandboxError(err.status, err.code, err.message);
        throw err;
      }
    },
    close: () => decoder.close(),
  };
}

export type SandboxQrImages = ReturnType<typeof sandboxQrImages>;
