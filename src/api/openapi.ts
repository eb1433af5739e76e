import { readFileSync } from 'node:fs';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

/** The surface a path belongs to: its tag in the reference, and how a caller identifies itself there. */
const surfaces: { prefix: string; tag: string; security: Record<string, string[]>[] }[] = [
  { prefix: '/api/v1/', tag: 'key surface (x-api-key)', security: [{ apiKey: [] }] },
  { prefix: '/api/auth/', tag: 'dashboard session', security: [{ session: [] }] },
  { prefix: '/api/dashboard/', tag: 'dashboard', security: [{ session: [] }] },
  { prefix: '/api/admin/', tag: 'admin console (ADMIN only)', security: [{ session: [] }] },
];

type TransformInput = Parameters<typeof jsonSchemaTransform>[0];

/** Routes of a guarded prefix that anyone may call. */
const open = new Set(['/api/auth/register', '/api/auth/login']);

/**
 * The zod schemas in JSON Schema, tagged by surface with its security (routes outside the surfaces are public), at the
 * path the interface names: a prefix's own route is registered as `/prefix/` and answers without the slash too.
 */
function transform(input: TransformInput) {
  const { schema, url: registered } = jsonSchemaTransform(input);
  const url = registered.length > 1 ? registered.replace(/\/$/, '') : registered;
  const surface = surfaces.find(s => url.startsWith(s.prefix));
  const tags = surface ? [surface.tag] : ['public'];
  return { schema: { ...schema, tags, ...(surface && !open.has(url) ? { security: surface.security } : {}) }, url };
}

/**
 * OpenAPI 3.1 of every route, generated from the routes' zod schemas as they are registered (DESIGN section 13):
 * registered before any route. The document is served at /openapi.json, and a reference page (swagger-ui, its assets
 * from the npm package: no CDN) at /docs.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Account sync, payment and gateway service',
        version,
        description: 'The interface of `shared/spec/service-interface.md`: the key surface under /api/v1, the dashboard session under /api/auth and /api/dashboard, the admin console under /api/admin.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'An API key of the dashboard (/api/v1)' },
          session: { type: 'apiKey', in: 'cookie', name: 'svc_token', description: 'The dashboard session (/api/auth, /api/dashboard, /api/admin)' },
        },
      },
    },
    transform,
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true, uiConfig: { docExpansion: 'list', deepLinking: true } });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
