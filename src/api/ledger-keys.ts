import type { FastifyInstance } from 'fastify';
import { publishedKeys } from '../audit/published-keys.ts';
import type { AppDeps } from './deps.ts';

/** How long a cache may keep the answer: a rotation is seen within a minute, and a busy caller costs one read a minute. */
const maxAgeSeconds = 60;

/**
 * GET /.well-known/ledger-keys, for anyone and without credentials: every key the ledger's chain has used, as its rows
 * say (the first as the database's owner registered it, each later one from the rotation checkpoint signed by the key
 * before it and by itself). An auditor pins the first and follows the rest; verify-log does the same.
 */
export function ledgerKeyRoutes(deps: Pick<AppDeps, 'pool' | 'digestKey'>) {
  return async function (app: FastifyInstance) {
    app.get('/.well-known/ledger-keys', async (_request, reply) => {
      const chain = await publishedKeys(deps.pool, deps.digestKey.publicKey);
      reply.header('cache-control', `public, max-age=${maxAgeSeconds}`);
      return { status: 'success', data: { algorithm: 'Ed25519', keys: chain?.keys ?? [] } };
    });
  };
}
