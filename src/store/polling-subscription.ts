import type { Position, RecordedEvent, Subscription, SubscriptionHandler } from './event-store.ts';

/**
 * A subscription built on "read all after a position": catches up in batches, then waits for a wake-up
 * (an append here, a NOTIFY from another process) or the poll interval. When a wake-up finds nothing yet
 * visible but events are held back behind an older open transaction, it retries shortly.
 */
export function pollingSubscription(opts: {
  after: Position;
  batchSize: number;
  pollIntervalMs: number;
  readAll(after: Position, maxCount: number): Promise<RecordedEvent[]>;
  hasHeldBack(after: Position): Promise<boolean>;
  onWake(listener: () => void): () => void;
  handler: SubscriptionHandler;
  onError(err: unknown): void;
}): Subscription {
  let position = opts.after;
  let closed = false;
  let woken = false;
  let wake: (() => void) | null = null;
  const unlisten = opts.onWake(() => {
    woken = true;
    wake?.();
  });
  const sleep = (ms: number) =>
    new Promise<void>(resolve => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });

  const loop = async () => {
    let heldBackRetries = 0;
    while (!closed) {
      woken = false;
      const batch = await opts.readAll(position, opts.batchSize);
      if (closed) return;
      if (batch.length > 0) {
        await opts.handler(batch);
        position = batch[batch.length - 1]!.position;
        heldBackRetries = 0;
        continue;
      }
      if (await opts.hasHeldBack(position)) {
        heldBackRetries++;
        await sleep(Math.min(2 * heldBackRetries, 50));
        continue;
      }
      heldBackRetries = 0;
      if (!woken) await sleep(opts.pollIntervalMs);
    }
  };
  const running = loop().catch(err => {
    if (!closed) opts.onError(err);
  });
  return {
    async close() {
      closed = true;
      unlisten();
      wake?.();
      await running;
    },
  };
}
