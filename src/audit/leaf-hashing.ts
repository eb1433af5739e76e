import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import type hashLeaves from './leaf-hashing-worker.ts';
import { bothLeaves, pageLeaves, type LeafKinds, type LogPage, type PageLeaves } from './log-leaves.ts';

const workerFile = new URL('./leaf-hashing-worker.ts', import.meta.url).href;
// the worker is TypeScript: its thread loads tsx's loader first, as src/qr-decoding.ts does
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** A page smaller than this is hashed on the event loop: a trickle is a millisecond, and needs no thread started. */
const onThreadFrom = 256;

export type LeafHasher = {
  /** The page's events as leaves, in order: the chain's, the digests' or both. */
  leaves(page: LogPage, kinds?: LeafKinds): Promise<PageLeaves>;
  close(): Promise<void>;
};

/**
 * Bulk leaf hashing off the event loop: one worker thread (started at the first large page, then kept), at most one
 * page waiting for it; the chain's reader sends one page at a time, so the bound is never reached in practice.
 */
export function leafHasher(): LeafHasher {
  let pool: Piscina<Parameters<typeof hashLeaves>[0], ReturnType<typeof hashLeaves>> | null = null;
  const thread = () =>
    (pool ??= new Piscina({
      filename: workerFile,
      minThreads: 1,
      maxThreads: 1,
      maxQueue: 1,
      concurrentTasksPerWorker: 1,
      idleTimeout: Number.MAX_SAFE_INTEGER,
      execArgv: ['--import', tsxLoader],
    }));
  return {
    async leaves(page, kinds = bothLeaves) {
      return page.count < onThreadFrom ? pageLeaves(page.text, kinds) : thread().run({ text: page.text, kinds });
    },
    async close() {
      await pool?.destroy();
      pool = null;
    },
  };
}
