import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { QrDecodeSettings } from './config.ts';
import { refuse, type ErrorCode } from './errors.ts';
import { fairQueue, type Turn } from './qr-decode-queue.ts';

/** What the pool's worker (src/qr-decode-worker.ts) is given: the image, and a port it says "started" on. */
export type QrDecodeTask = { image: Uint8Array; started: MessagePort };
export type QrDecodeOutcome = { text: string } | { refused: ErrorCode; message: string };

const workerFile = new URL('./qr-decode-worker.ts', import.meta.url).href;
// the worker is TypeScript: every thread loads tsx's loader first, as `npm start` does for the main one (vitest's
// transform does not reach worker threads); by its path, so that it does not depend on the working directory
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** Who sent an image, and what runs once the decoder takes it (before decoding): counting the upload. */
export type QrUpload = { tenant: string; beforeDecoding: () => Promise<void> };

export type QrDecoder = {
  /**
   * The text of the image's QR, decoded in a worker thread in the tenant's turn; 429 QR_DECODER_BUSY when the tenant's
   * queue (or every queue) is full, QR_NOT_FOUND past the deadline.
   */
  read(image: Buffer, upload: QrUpload): Promise<string>;
  /** Seconds a client waits before trying again when the decoder is busy: a thread is free within one deadline. */
  readonly retryAfterSeconds: number;
  close(): Promise<void>;
};

type WaitingImage = {
  image: Buffer;
  upload: QrUpload;
  resolve: (text: string) => void;
  reject: (err: unknown) => void;
};

/** The image's text, or its refusal; `held` is told how long it held its thread (from the worker's "started"). */
async function decode(
  threads: Piscina<QrDecodeTask, QrDecodeOutcome>,
  image: Buffer,
  deadlineMs: number,
  held: (ms: number) => void,
): Promise<string> {
  const abandon = new AbortController();
  const { port1: started, port2 } = new MessageChannel();
  let deadline: NodeJS.Timeout | undefined;
  let startedAt: number | undefined;
  started.once('message', () => {
    startedAt = performance.now();
    deadline = setTimeout(() => abandon.abort(), deadlineMs);
    started.close();
  });
  try {
    const outcome = await threads.run({ image, started: port2 }, { transferList: [port2], signal: abandon.signal });
    if ('text' in outcome) return outcome.text;
    throw refuse(outcome.refused, { message: outcome.message });
  } catch (err) {
    if (abandon.signal.aborted) throw refuse('QR_NOT_FOUND'); // past its deadline: its thread was terminated
    throw err;
  } finally {
    held(startedAt === undefined ? 0 : performance.now() - startedAt);
    clearTimeout(deadline);
    started.close();
  }
}

/**
 * QR images decoded off the event loop: a picture of noise keeps jsqr busy for seconds, which on the event loop stalled
 * every other call of every tenant. `threads` worker threads (started at the first image, then kept) take the images
 * in the fair order of src/qr-decode-queue.ts; an image past its deadline has its thread terminated (the pool starts
 * another), and the time an image held its thread counts against its tenant.
 */
export function qrDecoder(settings: QrDecodeSettings): QrDecoder {
  let pool: Piscina<QrDecodeTask, QrDecodeOutcome> | null = null;
  const threads = () =>
    (pool ??= new Piscina<QrDecodeTask, QrDecodeOutcome>({
      filename: workerFile,
      minThreads: settings.threads,
      maxThreads: settings.threads,
      // the fair queue hands out at most one image a thread; piscina's queue holds one only while a thread restarts
      maxQueue: settings.threads,
      concurrentTasksPerWorker: 1,
      idleTimeout: Number.MAX_SAFE_INTEGER,
      execArgv: ['--import', tsxLoader],
    }));
  const queue = fairQueue<WaitingImage>({
    threads: settings.threads,
    perTenant: settings.queuePerTenant,
    waiting: settings.queue,
  });

  async function decodeInTurn({ tenant, item }: Turn<WaitingImage>) {
    let heldMs = 0;
    try {
      await item.upload.beforeDecoding();
      item.resolve(await decode(threads(), item.image, settings.deadlineMs, ms => (heldMs = ms)));
    } catch (err) {
      item.reject(err);
    } finally {
      queue.finish(tenant, heldMs);
      startTurns();
    }
  }

  function startTurns() {
    for (let turn = queue.next(); turn; turn = queue.next()) void decodeInTurn(turn);
  }

  return {
    retryAfterSeconds: Math.max(1, Math.ceil(settings.deadlineMs / 1000)),
    read(image, upload) {
      return new Promise<string>((resolve, reject) => {
        const offer = queue.offer(upload.tenant, { image, upload, resolve, reject });
        if (!offer.admitted) return reject(refuse('QR_DECODER_BUSY'));
        offer.evicted?.reject(refuse('QR_DECODER_BUSY'));
        startTurns();
      });
    },
    async close() {
      for (const waiting of queue.drain()) waiting.reject(refuse('QR_DECODER_BUSY'));
      await pool?.destroy();
      pool = null;
    },
  };
}
