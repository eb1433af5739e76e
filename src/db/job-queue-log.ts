import { Logger as WorkerLogger } from 'graphile-worker';
import type { Logger } from '../logger.ts';
import { isDatabaseUnavailable } from './pool.ts';

/**
 * The job queue's (graphile-worker's) warnings and errors in our log, named after the queue. While the database is
 * away the queue retries by itself and would say so at every poll: those are left to the database watch.
 */
export function jobQueueLog(log: Logger, queue: string): WorkerLogger {
  return new WorkerLogger(() => (level, message, meta) => {
    if (level !== 'error' && level !== 'warning') return;
    const error = (meta as { error?: unknown } | undefined)?.error;
    if (isDatabaseUnavailable(error) || isDatabaseUnavailable(new Error(message))) return;
    // the message says what happened; its meta can hold a whole connection (settings, statements): only the error's text
    log.warn({ error: error instanceof Error ? error.message : undefined }, `${queue}: ${message}`);
  });
}
