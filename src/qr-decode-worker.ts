/**
 * A worker thread of the QR decoding pool (src/qr-decoding.ts): one image to the text of its QR, on this thread, so
 * that the service's event loop stays free however long an image takes.
 */
import { DomainError } from './errors.ts';
import { readQrImage } from './qr-image.ts';
import type { QrDecodeOutcome, QrDecodeTask } from './qr-decoding.ts';

export default async function decodeQrImage({ image, started }: QrDecodeTask): Promise<QrDecodeOutcome> {
  // the deadline counts from here, not from the queue: an image waiting behind others keeps its whole time
  started.postMessage('started');
  started.close();
  try {
    return { text: await readQrImage(Buffer.from(image.buffer, image.byteOffset, image.byteLength)) };
  } catch (err) {
    // a refusal crosses threads as data: the DomainError class does not survive the copy
    if (err instanceof DomainError) return { refused: err.code, message: err.message };
    throw err;
  }
}
