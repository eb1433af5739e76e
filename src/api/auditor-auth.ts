import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { refuse } from '../errors.ts';
import { findActiveAuditorByHash } from '../projections/auditors.ts';
import { auditorTokenHash } from '../security/auditor-token.ts';
import type { AppDeps } from './deps.ts';
import { answerNotFound } from './errors.ts';
import { noStore } from './response-headers.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The auditor whose token was given, on every route of the auditor surface. */
    auditorId: string | null;
  }
}

const bearer = /^Bearer\s+(\S+)$/i;

/**
 * The auditor surface (registered with prefix /api/audit): `Authorization: Bearer <auditor token>` guards every route
 * of `routes` and every unknown path under the prefix, before the body is read. An auditor's token opens these routes
 * and nothing else (no other surface reads the header), and no session or API key opens these.
 */
export function auditorSurface(deps: AppDeps, routes: FastifyPluginAsync) {
  return async function (app: FastifyInstance) {
    noStore(app);
    app.decorateRequest('auditorId', null);
    app.addHook('onRequest', async request => {
      const token = bearer.exec(request.headers.authorization ?? '')?.[1];
      const hash = token ? auditorTokenHash(token) : null;
      const auditor = hash ? await findActiveAuditorByHash(deps.pool, hash) : null;
      if (!auditor) throw refuse('UNAUTHORIZED', { message: 'Auditor token invalid or missing' });
      request.auditorId = auditor.id;
    });
    app.setNotFoundHandler(answerNotFound);
    await app.register(routes);
  };
}
