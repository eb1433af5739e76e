import type { Clock } from '../clock.ts';
import type { ApiKeyRow } from '../projections/api-keys.ts';

/**
 * Active API keys this process looked up in the last second, by hash: a busy key costs one read-model lookup a
 * second instead of one per request, and the requests that find it expired share the next lookup. A revocation made
 * through this process is seen at once (forget, which also discards lookups still on their way); one made through
 * another process within a second. Unknown keys are never kept.
 */
export type ApiKeyCache = {
  /** The active key with this hash, from the last second's lookups, else from `find` (one lookup per hash at a time). */
  lookup(hash: string, find: () => Promise<ApiKeyRow | null>): Promise<ApiKeyRow | null>;
  forget(keyId: string): void;
};

export const apiKeyCacheMs = 1000;
const maxEntries = 10_000;

export function apiKeyCache(clock: Clock): ApiKeyCache {
  const entries = new Map<string, { key: ApiKeyRow; until: number }>();
  const inFlight = new Map<string, Promise<ApiKeyRow | null>>();
  let generation = 0;
  const remember = (hash: string, key: ApiKeyRow) => {
    if (entries.size >= maxEntries) entries.clear();
    entries.set(hash, { key, until: clock.now().getTime() + apiKeyCacheMs });
  };
  return {
    lookup(hash, find) {
      const entry = entries.get(hash);
      if (entry && clock.now().getTime() < entry.until) return Promise.resolve(entry.key);
      entries.delete(hash);
      const running = inFlight.get(hash);
      if (running) return running;
      const startedIn = generation;
      const looked = find()
        .then(key => {
          if (key && generation === startedIn) remember(hash, key);
          return key;
        })
        .finally(() => inFlight.delete(hash));
      inFlight.set(hash, looked);
      return looked;
    },
    forget(keyId) {
      generation++;
      inFlight.clear();
      for (const [hash, entry] of entries) if (entry.key.id === keyId) entries.delete(hash);
    },
  };
}
