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

/** One generation: the entries of each decider by stream id, and how many there are in all. */
type Generation = { byDecider: Map<object, Map<string, Entry>>; size: number };

const newGeneration = (): Generation => ({ byDecider: new Map(), size: 0 });

/**
 * Keyed by the decider, then by the stream id itself: a stream id is hashed once (V8 keeps a string's hash), where a
 * key joined from both was a new string, hashed again, at every look-up.
 */
export function stateCache(maxEntries = 20_000): StateCache {
  const generationSize = Math.max(1, Math.floor(maxEntries / 2));
  let current = newGeneration();
  let previous = newGeneration();
  const find = (g: Generation, decider: object, streamId: string) => g.byDecider.get(decider)?.get(streamId);
  const remove = (g: Generation, decider: object, streamId: string) => {
    if (g.byDecider.get(decider)?.delete(streamId)) g.size--;
  };
  const put = (decider: object, streamId: string, entry: Entry) => {
    let entries = current.byDecider.get(decider);
    if (!entries) current.byDecider.set(decider, (entries = new Map()));
    const before = entries.size;
    entries.set(streamId, entry);
    current.size += entries.size - before;
    if (current.size >= generationSize) {
      previous = current;
      current = newGeneration();
    }
  };
  return {
    get(decider, streamId) {
      const entry = find(current, decider, streamId);
      if (entry) return entry;
      const old = find(previous, decider, streamId);
      if (old) {
        remove(previous, decider, streamId);
        put(decider, streamId, old);
      }
      return old;
    },
    set(decider, streamId, revision, state) {
      const known = find(current, decider, streamId) ?? find(previous, decider, streamId);
      if (known && known.revision > revision) return; // an older state never replaces a newer one
      remove(previous, decider, streamId);
      put(decider, streamId, { revision, state });
    },
    delete(decider, streamId) {
      remove(current, decider, streamId);
      remove(previous, decider, streamId);
    },
  };
}
