/**
 * Runs tasks one at a time per key, in order (e.g. writes to one busy stream from this process, so that they do
 * not race each other into optimistic-concurrency retries). Other processes are still kept apart by the store.
 */
export function keyedQueue() {
  const tails = new Map<string, Promise<unknown>>();
  return async function run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const before = tails.get(key) ?? Promise.resolve();
    const result = before.catch(() => undefined).then(task);
    tails.set(key, result);
    try {
      return await result;
    } finally {
      if (tails.get(key) === result) tails.delete(key);
    }
  };
}
