import type { FastifyInstance } from 'fastify';
import type { AppDeps } from './deps.ts';

/** Liveness answers while the process serves; readiness only when its database, event store and subscribers are fine. */
export function healthRoutes(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    app.get('/health', async () => ({ status: 'ok' }));
    app.get('/ready', async (_request, reply) => {
      const { checks, subscribers, details } = await deps.readiness();
      const ready = Object.values(checks).every(Boolean);
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks, subscribers, ...(details ? { details } : {}) });
    });
  };
}
