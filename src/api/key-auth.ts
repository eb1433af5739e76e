import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { recordApiKeyUse } from '../commands/api-key.ts';
import { apiKeyUseRecordedEveryMs } from '../domain/api-key.ts';
import { isDatabaseUnavailable } from '../db/pool.ts';
import { refuse } from '../errors.ts';
import { findActiveKeyByHash } from '../projections/api-keys.ts';
import { apiKeyHash } from '../security/api-key-format.ts';
import type { AppDeps } from './deps.ts';
import { answerNotFound } from './errors.ts';
import type { ApiKeyCache } from './key-cache.ts';
import { noStore } from './response-headers.ts';

export type KeyOwner = { userId: string; keyId: string };

declare module 'fastify' {
  interface FastifyRequest {
    /** The owner of the API key, on every route of the key surface. */
    owner: KeyOwner | null;
  }
}

const invalidKey = () => refuse('INVALID_API_KEY');

/**
 * The key surface (registered with prefix /api/v1): `x-api-key` guards every route of `routes` and every unknown
 * path under the prefix, before the body is read. The guard is a hook of this plugin, so it holds for whatever
 * spelling of the URL the router takes for one of these routes.
 */
export function keySurface(deps: AppDeps, cache: ApiKeyCache, routes: FastifyPluginAsync) {
  return async function (app: FastifyInstance) {
    noStore(app);
    app.decorateRequest('owner', null);
    app.addHook('onRequest', async request => {
      const header = request.headers['x-api-key'];
      const hash = typeof header === 'string' ? apiKeyHash(header.trim()) : null;
      if (!hash) throw invalidKey();
      const key = await cache.lookup(hash, () => findActiveKeyByHash(deps.pool, hash));
      if (!key) throw invalidKey();
      request.owner = { userId: key.user_id, keyId: key.id };
      const now = deps.clock.now().getTime();
      if (!key.last_used_at || now - key.last_used_at.getTime() >= apiKeyUseRecordedEveryMs) {
        key.last_used_at = new Date(now); // the cached row too: the next requests need not record it again
        await recordApiKeyUse(deps, key.id).catch(
          err => isDatabaseUnavailable(err) || request.log.warn({ err }, 'could not record API key use'),
        );
      }
    });
    app.setNotFoundHandler(answerNotFound);
    await app.register(routes);
  };
}
