import { revokeApiKey } from './api-key.ts';
import type { CommandDeps } from './deps.ts';

/** What this process remembers of active keys (src/api/key-cache.ts): a key revoked here is forgotten at once. */
export type RememberedApiKeys = { forget(keyId: string): void };

/**
 * Revokes the owner's key (the dashboard's JSON route and its page): this process refuses it from the next request
 * on, another within the cache's second.
 */
export async function revokeApiKeyAtOnce(
  deps: CommandDeps,
  remembered: RememberedApiKeys,
  userId: string,
  keyId: string,
): Promise<void> {
  await revokeApiKey(deps, userId, keyId);
  remembered.forget(keyId);
}
