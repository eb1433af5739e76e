import type { Clock } from '../clock.ts';
import type { ApiKeyRow } from '../projections/api-keys.ts';

/**
 * Active API keys this process looked up in the last second, by hash: a busy key costs one read-model lookup a
 * second instead of one per request. A revocation made through this process is seen at once (forget); one made
 * through another process within a second. Unknown keys are never kept.
 */
export type ApiKeyCache = {
  get(hash: string): ApiKeyRow | undefined;
  set(hash: string, key: ApiKeyRow): void;
  forget(keyId: string): void;
};

export const apiKeyCacheMs = 1000;
const maxEntries = 10_000;

export function apiKeyCache(clock: Clock): ApiKeyCache {
  const entries = new Map<string, { key: ApiKeyRow; until: number }>();
  return {
    get(hash) {
      const entry = entries.get(hash);
      if (!entry) return undefined;
      if (clock.now().getTime() < entry.until) return entry.key;
      entries.delete(hash);
      return undefined;
    },
    set(hash, key) {
      if (entries.size >= maxEntries) entries.clear();
      entries.set(hash, { key, until: clock.now().getTime() + apiKeyCacheMs });
    },
    forget(keyId) {
      for (const [hash, entry] of entries) if (entry.key.id === keyId) entries.delete(hash);
    },
  };
}
