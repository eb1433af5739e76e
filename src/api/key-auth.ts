import type { FastifyInstance } from 'fastify';
import { apiKeyUseRecordedEveryMs, recordApiKeyUse } from '../commands/api-key.ts';
import { Unauthorized } from '../errors.ts';
import { findActiveKeyByHash } from '../projections/api-keys.ts';
import { apiKeyHash } from '../security/api-key-format.ts';
import type { AppDeps } from './deps.ts';
import type { ApiKeyCache } from './key-cache.ts';

export type KeyOwner = { userId: string; keyId: string };

declare module 'fastify' {
  interface FastifyRequest {
    /** The owner of the API key, on every /api/v1 route. */
    owner: KeyOwner | null;
  }
}

const invalidKey = () => new Unauthorized('API key invalid or missing', 'INVALID_API_KEY');

/** `x-api-key` guards every /api/v1 request, known route or not, before anything else runs. */
export function requireApiKey(deps: AppDeps, app: FastifyInstance, cache: ApiKeyCache) {
  app.decorateRequest('owner', null);
  app.addHook('onRequest', async request => {
    if (!request.url.startsWith('/api/v1/') && request.url !== '/api/v1') return;
    const header = request.headers['x-api-key'];
    const hash = typeof header === 'string' ? apiKeyHash(header.trim()) : null;
    if (!hash) throw invalidKey();
    const key = await cache.lookup(hash, () => findActiveKeyByHash(deps.pool, hash));
    if (!key) throw invalidKey();
    request.owner = { userId: key.user_id, keyId: key.id };
    const now = deps.clock.now().getTime();
    if (!key.last_used_at || now - key.last_used_at.getTime() >= apiKeyUseRecordedEveryMs) {
      key.last_used_at = new Date(now); // the cached row too: the next requests need not record it again
      await recordApiKeyUse(deps, key.id).catch(err => request.log.warn({ err }, 'could not record API key use'));
    }
  });
}
