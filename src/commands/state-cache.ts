/**
 * Decider states this process loaded or wrote last, per stream: a load then reads only the events after the cached
 * revision (usually none) instead of a snapshot and a tail. Only for deciders that ask for it (`cached: true`). A load
 * re-reads the cached revision's own event, so a stream deleted elsewhere is noticed (and forgotten here). Bounded,
 * least recently used out first. States are immutable (evolve returns new objects), so sharing them is safe.
 */
export type StateCache = {
  get(decider: object, streamId: string): { revision: number; state: unknown } | undefined;
  set(decider: object, streamId: string, revision: number, state: unknown): void;
  delete(decider: object, streamId: string): void;
};

export function stateCache(maxEntries = 20_000): StateCache {
  const ids = new WeakMap<object, number>();
  let nextId = 0;
  const entries = new Map<string, { revision: number; state: unknown }>();
  const keyOf = (decider: object, streamId: string) => {
    let id = ids.get(decider);
    if (id === undefined) ids.set(decider, (id = nextId++));
    return `${id}:${streamId}`;
  };
  return {
    get(decider, streamId) {
      const key = keyOf(decider, streamId);
      const entry = entries.get(key);
      if (entry) {
        entries.delete(key); // most recently used last
        entries.set(key, entry);
      }
      return entry;
    },
    set(decider, streamId, revision, state) {
      const key = keyOf(decider, streamId);
      const current = entries.get(key);
      if (current && current.revision > revision) return; // an older state never replaces a newer one
      entries.delete(key);
      entries.set(key, { revision, state });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    },
    delete(decider, streamId) {
      entries.delete(keyOf(decider, streamId));
    },
  };
}
