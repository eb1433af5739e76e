import type { FastifyInstance } from 'fastify';
import { refuse } from '../errors.ts';
import type { ServiceMetrics } from '../metrics.ts';
import { isOperator } from './operator-access.ts';

/**
 * Counts every answer by method, route pattern (never the raw URL: ids would make a series each) and status, with
 * its time, and serves the registry at GET /metrics in Prometheus' text format. Registered on the root instance, so
 * its hook sees every route. Served to the operator only (METRICS_TOKEN as a bearer token, else loopback): it tells
 * traffic and failures to whoever could read it.
 */
export function registerMetrics(app: FastifyInstance, metrics: ServiceMetrics, token: string | undefined): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const method = request.method;
    metrics.httpRequests.inc({ method, route, status_code: String(reply.statusCode) });
    metrics.httpDuration.observe({ method, route }, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { schema: {} }, async (request, reply) => {
    if (!isOperator(request, token)) {
      if (token) reply.header('www-authenticate', 'Bearer');
      throw refuse(token ? 'UNAUTHORIZED' : 'FORBIDDEN', {
        message: token
          ? 'Metrics need METRICS_TOKEN as a bearer token'
          : 'Metrics are served on loopback only; set METRICS_TOKEN to read them from elsewhere',
      });
    }
    const text = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(text);
  });
}
