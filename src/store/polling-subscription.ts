import type { Position, RecordedEvent, Subscription, SubscriptionHandler } from './event-store.ts';

/**
 * One read of "all" for a subscriber: the events that are final after a position, whether the read stopped at its
 * limit (more may follow at once), and whether later events are committed but held back behind an older open
 * transaction (they become final when it ends, which wakes nobody).
 */
export type TailRead = { events: RecordedEvent[]; more: boolean; heldBack: boolean };

/**
 * A subscription built on reading "all" after a position: catches up in batches, then waits for a wake-up (an append
 * here, a NOTIFY from another process) or the poll interval. While events are held back behind an older open
 * transaction, it reads again shortly instead of waiting.
 */
export function pollingSubscription(opts: {
  after: Position;
  batchSize: number;
  pollIntervalMs: number;
  read(after: Position, maxCount: number): Promise<TailRead>;
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
      const { events, more, heldBack } = await opts.read(position, opts.batchSize);
      if (closed) return;
      if (events.length > 0) {
        await opts.handler(events);
        position = events[events.length - 1]!.position;
        heldBackRetries = 0;
      }
      if (more) continue;
      if (heldBack) {
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
