/**
 * Decider states this process loaded or wrote last, per stream: a load then reads only the events after the cached
 * revision (usually none) instead of a snapshot and a tail. Only for deciders that ask for it (`cached: true`). A load
 * re-reads the cached revision's own event, so a stream deleted elsewhere is noticed (and forgotten here). States are
 * immutable (evolve returns new objects), so sharing them is safe.
 *
 * Bounded by two generations (as quick-lru does): entries go into the current one; when it is full it becomes the
 * previous one and the one before is dropped, and an entry read from the previous generation moves to the current one.
 * Recently used entries stay, every operation is O(1), and a Map never fills up with the holes that moving entries to
 * its end leaves behind (which made evicting the oldest entry of a busy cache a long scan).
 */
export type StateCache = {
  get(decider: object, streamId: string): { revision: number; state: unknown } | undefined;
  set(decider: object, streamId: string, revision: number, state: unknown): void;
  delete(decider: object, streamId: string): void;
};

type Entry = { revision: number; state: unknown };

export function stateCache(maxEntries = 20_000): StateCache {
  const ids = new WeakMap<object, number>();
  let nextId = 0;
  const generationSize = Math.max(1, Math.floor(maxEntries / 2));
  let current = new Map<string, Entry>();
  let previous = new Map<string, Entry>();
  const keyOf = (decider: object, streamId: string) => {
    let id = ids.get(decider);
    if (id === undefined) ids.set(decider, (id = nextId++));
    return `${id}:${streamId}`;
  };
  const put = (key: string, entry: Entry) => {
    current.set(key, entry);
    if (current.size >= generationSize) {
      previous = current;
      current = new Map();
    }
  };
  return {
    get(decider, streamId) {
      const key = keyOf(decider, streamId);
      const entry = current.get(key);
      if (entry) return entry;
      const old = previous.get(key);
      if (old) {
        previous.delete(key);
        put(key, old);
      }
      return old;
    },
    set(decider, streamId, revision, state) {
      const key = keyOf(decider, streamId);
      const known = current.get(key) ?? previous.get(key);
      if (known && known.revision > revision) return; // an older state never replaces a newer one
      previous.delete(key);
      put(key, { revision, state });
    },
    delete(decider, streamId) {
      const key = keyOf(decider, streamId);
      current.delete(key);
      previous.delete(key);
    },
  };
}
