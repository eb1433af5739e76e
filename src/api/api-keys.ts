import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createApiKey } from '../commands/api-key.ts';
import { revokeApiKeyAtOnce } from '../commands/api-key-revocation.ts';
import { listApiKeys } from '../projections/api-keys.ts';
import { text } from '../text.ts';
import type { AppDeps } from './deps.ts';
import type { ApiKeyCache } from './key-cache.ts';

const createBody = z.object({ name: text.trim().min(1).max(100) });
const keyParams = z.object({ id: z.uuid() });

/** Dashboard (cookie, see dashboardSurface) management of API keys; the secret is shown once, in the create response. */
export function apiKeyRoutes(deps: AppDeps, keys: ApiKeyCache) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();

    app.post('/', { schema: { body: createBody } }, async (request, reply) => {
      const { userId } = request.principal!;
      const created = await createApiKey(deps, userId, request.body.name);
      return reply.code(201).send({ status: 'success', data: created });
    });

    app.get('/', async request => {
      const { userId } = request.principal!;
      const keys = await listApiKeys(deps.pool, userId);
      return {
        status: 'success',
        data: keys.map(k => ({
          id: k.id,
          name: k.name,
          prefix: k.prefix,
          createdAt: k.created_at.toISOString(),
          lastUsedAt: k.last_used_at?.toISOString() ?? null,
          revokedAt: k.revoked_at?.toISOString() ?? null,
        })),
      };
    });

    app.delete('/:id', { schema: { params: keyParams } }, async request => {
      const { userId } = request.principal!;
      await revokeApiKeyAtOnce(deps, keys, userId, request.params.id);
      return { status: 'success', data: { id: request.params.id, revoked: true } };
    });
  };
}
