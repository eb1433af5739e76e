import type { FastifyInstance } from 'fastify';

/**
 * Headers every answer carries: `nosniff` (a JSON or CSV answer is never run as a script or page), and under an https
 * base URL `Strict-Transport-Security`, so a browser that came once never goes back to plain http.
 */
export function registerResponseHeaders(app: FastifyInstance, publicBaseUrl: string) {
  const https = publicBaseUrl.startsWith('https://');
  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-content-type-options', 'nosniff');
    if (https) reply.header('strict-transport-security', 'max-age=31536000');
  });
}

/** The plugin's answers are never stored by a browser or a proxy: they carry secrets (a new key, a webhook secret) or a person's data. */
export function noStore(app: FastifyInstance) {
  app.addHook('onSend', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });
}
