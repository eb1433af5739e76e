import type { FastifyInstance } from 'fastify';
import type { ServiceMetrics } from '../metrics.ts';

/**
 * Counts every answer by method, route pattern (never the raw URL: ids would make a series each) and status, with
 * its time, and serves the registry at GET /metrics in Prometheus' text format. Registered on the root instance, so
 * its hook sees every route; public like /health and /ready (nothing in it names a user, a key or an amount).
 */
export function registerMetrics(app: FastifyInstance, metrics: ServiceMetrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const method = request.method;
    metrics.httpRequests.inc({ method, route, status_code: String(reply.statusCode) });
    metrics.httpDuration.observe({ method, route }, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const text = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(text);
  });
}
