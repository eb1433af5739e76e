import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { QrDecodeSettings } from './config.ts';
import { refuse, type ErrorCode } from './errors.ts';

/** What the pool's worker (src/qr-decode-worker.ts) is given: the image, and a port it says "started" on. */
export type QrDecodeTask = { image: Uint8Array; started: MessagePort };
export type QrDecodeOutcome = { text: string } | { refused: ErrorCode; message: string };

const workerFile = new URL('./qr-decode-worker.ts', import.meta.url).href;
// the worker is TypeScript: every thread loads tsx's loader first, as `npm start` does for the main one (vitest's
// transform does not reach worker threads); by its path, so that it does not depend on the working directory
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export type QrDecoder = {
  /** The text of the image's QR, decoded in a worker thread; 429 QR_DECODER_BUSY beyond the bound, QR_NOT_FOUND past the deadline. */
  read(image: Buffer): Promise<string>;
  /** Seconds a client waits before trying again when the decoder is busy: a thread is free within one deadline. */
  readonly retryAfterSeconds: number;
  close(): Promise<void>;
};

/**
 * QR images decoded off the event loop (issue 23): a picture of noise keeps jsqr busy for seconds, which on the event
 * loop stalled every other call of every tenant. `threads` worker threads (started at the first image, then kept), at
 * most `queue` images waiting; an image past its deadline has its thread terminated (the pool starts another).
 */
export function qrDecoder(settings: QrDecodeSettings): QrDecoder {
  let pool: Piscina<QrDecodeTask, QrDecodeOutcome> | null = null;
  let inFlight = 0;
  const threads = () =>
    (pool ??= new Piscina<QrDecodeTask, QrDecodeOutcome>({
      filename: workerFile,
      minThreads: settings.threads,
      maxThreads: settings.threads,
      maxQueue: Math.max(settings.queue, 1),
      concurrentTasksPerWorker: 1,
      idleTimeout: Number.MAX_SAFE_INTEGER,
      execArgv: ['--import', tsxLoader],
    }));

  return {
    retryAfterSeconds: Math.max(1, Math.ceil(settings.deadlineMs / 1000)),
    async read(image) {
      // counted before the first await: two uploads arriving together cannot both take the last place
      if (inFlight >= settings.threads + settings.queue) throw refuse('QR_DECODER_BUSY');
      inFlight++;
      const abandon = new AbortController();
      const { port1: started, port2 } = new MessageChannel();
      let deadline: NodeJS.Timeout | undefined;
      started.once('message', () => {
        deadline = setTimeout(() => abandon.abort(), settings.deadlineMs);
        started.close();
      });
      try {
        const outcome = await threads().run(
          { image, started: port2 },
          { transferList: [port2], signal: abandon.signal },
        );
        if ('text' in outcome) return outcome.text;
        throw refuse(outcome.refused, { message: outcome.message });
      } catch (err) {
        if (abandon.signal.aborted) throw refuse('QR_NOT_FOUND'); // past its deadline: its thread was terminated
        throw err;
      } finally {
        inFlight--;
        clearTimeout(deadline);
        started.close();
      }
    },
    async close() {
      await pool?.destroy();
      pool = null;
    },
  };
}
