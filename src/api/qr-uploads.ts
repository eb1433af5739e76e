import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { QrSettings } from '../config.ts';
import { DomainError } from '../errors.ts';
import { qrDecoder } from '../qr-decoding.ts';
import { checkQrImage } from '../qr-image.ts';
import { attemptCounter, tooMany } from './attempt-limits.ts';

/** The user a QR upload counts for: the API key's owner, or the dashboard's viewer. */
const uploaderOf = (request: FastifyRequest) => request.owner?.userId ?? request.viewer?.user.id ?? null;

export type QrUploads = {
  /**
   * The text of an uploaded QR image: its header checked (400, counting nothing), queued for the decoder in its user's
   * turn (429 when that user's queue is full, counting nothing), counted for its API key and its user once the decoder
   * takes it (429 beyond), then decoded off the event loop (QR_NOT_FOUND past the deadline).
   */
  read(request: FastifyRequest, reply: FastifyReply, image: Buffer): Promise<string>;
};

/**
 * QR images of transfers, one for the app (made once on the root app, like the OTP send limits, so the key surface and
 * the dashboard's QR form count against the same per-user limit and share one decoder). The decoder is shared fairly
 * between users (src/qr-decode-queue.ts), one per process. Counted with @fastify/rate-limit's limiter: per API key (one
 * integration) and per user (all of a user's keys and their pages), when the decoder takes the image: an upload
 * refused because the decoder is busy has not used the client's allowance, since the busy decoder is not its doing.
 */
export function qrUploads(app: FastifyInstance, settings: QrSettings): QrUploads {
  const decoder = qrDecoder(settings.decoding);
  app.addHook('onClose', () => decoder.close());
  const limits = [
    {
      what: 'for this API key',
      scope: 'qr-key',
      applies: (r: FastifyRequest) => Boolean(r.owner),
      counter: attemptCounter(app, 'qr-key', settings.perKey, r => `${r.owner?.keyId}`),
    },
    {
      what: 'for this user',
      scope: 'qr-user',
      applies: (r: FastifyRequest) => uploaderOf(r) !== null,
      counter: attemptCounter(app, 'qr-user', settings.perUser, r => `${uploaderOf(r)}`),
    },
  ];
  const countUpload = async (request: FastifyRequest, reply: FastifyReply) => {
    for (const { what, scope, applies, counter } of limits) {
      if (!applies(request)) continue;
      const wait = await counter.take(request);
      if (wait !== null)
        throw tooMany(reply, wait, 'RATE_LIMITED', `Too many QR images ${what}; retry in ${wait} s`, scope);
    }
  };
  return {
    async read(request, reply, image) {
      checkQrImage(image);
      try {
        return await decoder.read(image, {
          tenant: uploaderOf(request) ?? '',
          beforeDecoding: () => countUpload(request, reply),
        });
      } catch (err) {
        if (err instanceof DomainError && err.code === 'QR_DECODER_BUSY')
          throw tooMany(reply, decoder.retryAfterSeconds, 'QR_DECODER_BUSY');
        throw err;
      }
    },
  };
}
