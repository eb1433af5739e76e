import type { FastifyInstance } from 'fastify';
import type { AppDeps } from './deps.ts';
import { isOperator } from './operator-access.ts';

/** Liveness answers while the process serves; readiness only when its database, event store and subscribers are fine. */
export function healthRoutes(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    app.get('/health', async () => ({ status: 'ok' }));
    // ready or not for anyone (a load balancer's probe); what is wrong only for the operator (isOperator)
    app.get('/ready', async (request, reply) => {
      const { checks, subscribers, details } = await deps.readiness();
      const ready = Object.values(checks).every(Boolean);
      const status = ready ? 'ready' : 'not_ready';
      if (!isOperator(request, deps.config.metricsToken)) return reply.code(ready ? 200 : 503).send({ status });
      return reply.code(ready ? 200 : 503).send({ status, checks, subscribers, ...(details ? { details } : {}) });
    });
  };
}
