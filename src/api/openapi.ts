import { readFileSync } from 'node:fs';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
// registers ErrorResponse and SessionErrorResponse (zod's registry): the components the refusals refer to
import './schemas/error-response.ts';
import { operations, type Success } from './schemas/operations.ts';
import { documentedOperations } from './schemas/index-requests.ts';

type Security = Record<string, string[]>[];

/** The surface a path belongs to: how a caller identifies itself there (longest prefix first). */
const surfaces: { prefix: string; security: Security }[] = [
  { prefix: '/api/v1/', security: [{ apiKey: [] }] },
  { prefix: '/api/auth/', security: [{ session: [] }] },
  { prefix: '/api/dashboard/', security: [{ session: [] }] },
  { prefix: '/api/admin/', security: [{ session: [] }] },
  { prefix: '/api/audit/', security: [{ auditorToken: [] }] },
  // the operator's views: the bearer of METRICS_TOKEN (or, without one, a client on the service's own machine)
  { prefix: '/metrics', security: [{ operatorToken: [] }] },
  // everyone may ask; the operator gets the details
  { prefix: '/ready', security: [{}, { operatorToken: [] }] },
];

/** Routes of a guarded prefix that anyone may call. */
const open = new Set(['/api/auth/register', '/api/auth/login']);

/** The reference's sections, by path prefix (the first that matches). */
const tags: { prefix: string; name: string; description: string }[] = [
  {
    prefix: '/api/auth/',
    name: 'session',
    description: 'The dashboard session: register, sign in, the signed-in user (cookie svc_token)',
  },
  { prefix: '/api/v1/providers', name: 'providers', description: 'Bank and e-wallet providers' },
  {
    prefix: '/api/v1/accounts/{id}/transfer',
    name: 'transfers',
    description: 'Transfers out of WALLET-A accounts (QRIS and bank)',
  },
  {
    prefix: '/api/v1/accounts',
    name: 'accounts',
    description: 'Linked bank and e-wallet accounts, and the e-wallet OTP logins',
  },
  { prefix: '/api/v1/mutations', name: 'mutations', description: 'Transactions of the linked accounts' },
  { prefix: '/api/v1/webhooks', name: 'webhooks', description: 'Webhook endpoints and their deliveries' },
  { prefix: '/api/v1/payments', name: 'payments', description: 'Payment requests' },
  { prefix: '/api/v1/gateway', name: 'gateway', description: 'The payment gateway: access, balance, statement' },
  {
    prefix: '/api/dashboard/',
    name: 'dashboard',
    description: 'What the dashboard does for its signed-in user: API keys, webhooks, gateway access and withdrawals',
  },
  {
    prefix: '/api/admin/',
    name: 'admin',
    description: 'The admin console (ADMIN users only): gateway operations and audit',
  },
  {
    prefix: '/api/audit/',
    name: 'audit',
    description:
      "What a witness reads of the ledger and posts (an auditor's token only): checkpoints, events, cosignatures",
  },
  {
    prefix: '/pay/',
    name: 'payment page',
    description: "The hosted payment page and what the payer's browser reads (the payment id is the credential)",
  },
  {
    prefix: '/.well-known/ledger-keys',
    name: 'ledger keys',
    description: "The ledger's public keys, for anyone checking its signed checkpoints (docs/auditing.md)",
  },
  {
    prefix: '/api/providers/',
    name: 'provider notifications',
    description:
      "What providers call when money lands (the provider's signature is the credential): a hint that checks the account",
  },
  { prefix: '/', name: 'service', description: 'Health, readiness, metrics and this document' },
];

const statusText: Record<number, string> = {
  400: 'Bad request: the input is refused (see code and errors)',
  401: 'No valid credential',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict with the current state',
  413: 'Request body too large',
  415: 'Unsupported content type',
  422: 'Unprocessable',
  429: 'Too many requests (see Retry-After)',
  500: 'Internal error',
  502: 'The provider failed',
  503: 'Unavailable: retry after Retry-After seconds',
};

const retryAfter = { 'retry-after': { description: 'Seconds to wait before trying again', type: 'integer' } };
const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const unsafe = (method: string) => !['GET', 'HEAD', 'OPTIONS'].includes(method);

type TransformInput = Parameters<typeof jsonSchemaTransform>[0];

/** A union zod left one branch of (an optional value's `undefined` is dropped) says that branch alone. */
function withoutLoneAnyOf<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutLoneAnyOf) as T;
  if (value === null || typeof value !== 'object') return value;
  const { anyOf, ...rest } = value as Record<string, unknown>;
  if (Array.isArray(anyOf) && anyOf.length === 1) return withoutLoneAnyOf({ ...rest, ...(anyOf[0] as object) }) as T;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutLoneAnyOf(v)])) as T;
}
type Schema = Record<string, unknown> & { response?: Record<string, unknown> };

/** The statuses besides success an operation answers: those of its kind of route, and those its handler adds. */
function errorStatuses(method: string, path: string, schema: Schema, security: Security, own: number[] = []): number[] {
  const statuses = new Set(own);
  const hasInput = unsafe(method) || ['body', 'querystring', 'params', 'headers'].some(k => schema[k] !== undefined);
  if (hasInput) statuses.add(400);
  if (security.length > 0 && !security.some(s => Object.keys(s).length === 0)) statuses.add(401);
  if (path.startsWith('/api/admin/')) statuses.add(403);
  // the session surfaces refuse a write from another origin's page
  if (unsafe(method) && /^\/api\/(auth|dashboard|admin)\//.test(path)) statuses.add(403);
  // a path id that is no URL text or longer than the router takes is refused before any handler (400)
  if (path.includes('{')) [400, 404].forEach(s => statuses.add(s));
  if (unsafe(method)) [413, 415].forEach(s => statuses.add(s));
  [500, 503].forEach(s => statuses.add(s));
  return [...statuses].sort((a, b) => a - b);
}

function errorResponseOf(status: number, path: string, method: string) {
  const headers = status === 429 || status === 503 ? { headers: retryAfter } : {};
  // not ready: the readiness body (src/api/schemas/health.ts), for a probe that need not wait
  if (status === 503 && path === '/ready') return { description: 'Not ready: the same body, status not_ready' };
  if (status === 404 && method === 'GET' && /^\/pay\/\{paymentId\}$/.test(path))
    return {
      description: 'No such payment: a page saying so',
      content: { 'text/html': { schema: { type: 'string' } } },
    };
  const envelope = path.startsWith('/api/auth/') ? 'SessionErrorResponse' : 'ErrorResponse';
  return {
    description: statusText[status] ?? 'Error',
    ...headers,
    content: { 'application/json': { schema: ref(envelope) } },
  };
}

function successResponse(success: Success | undefined) {
  const { status = 200, description = 'Success', mediaType = 'application/json', headers } = success ?? {};
  if (status >= 300 && status < 400) return { [status]: { type: 'null', description, headers } };
  const schema =
    mediaType === 'application/json'
      ? { type: 'object' }
      : mediaType === 'image/png'
        ? { type: 'string', contentMediaType: 'image/png' }
        : { type: 'string' };
  return { [status]: { description, ...(headers ? { headers } : {}), content: { [mediaType]: { schema } } } };
}

/** `get /api/v1/accounts/{id}/refresh` → `getApiV1AccountsByIdRefresh`: unique and stable while the path is. */
function operationIdOf(method: string, path: string): string {
  const words = path
    .split(/[/.\-_]/)
    .filter(Boolean)
    .map(w => (w.startsWith('{') ? `by-${w.slice(1, -1)}` : w))
    .flatMap(w => w.split('-'));
  return method.toLowerCase() + words.map(w => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/**
 * The bodies a handler checks by hand and the successes it answers (src/api/schemas/index-requests.ts), in JSON Schema
 * through the same registry as the route schemas: a body by media type, a success's schema under its description.
 */
function documentedIo(
  input: TransformInput,
  key: string,
  response: Record<string, unknown>,
): { body?: unknown; response: Record<string, unknown> } {
  const table = documentedOperations[key];
  if (!table) return { response: {} };
  const toJson = (schema: Record<string, unknown>) =>
    withoutLoneAnyOf(
      (jsonSchemaTransform({ ...input, schema } as TransformInput) as unknown as { schema: Schema }).schema,
    );
  const bodies = Object.entries(table.body ?? {});
  const body =
    bodies.length === 0
      ? undefined
      : {
          content: Object.fromEntries(
            bodies.map(([mediaType, zod]) => [mediaType, { schema: toJson({ body: zod }).body }]),
          ),
        };
  const successes = Object.entries(table.responses ?? {}).map(([status, zod]) => {
    // the JSON answer described; the other media types the route answers (CSV, PNG) kept
    const { content, ...described } = (response[status] ?? { description: 'Success' }) as {
      content?: Record<string, unknown>;
    };
    return [
      status,
      {
        ...described,
        content: {
          ...content,
          'application/json': { schema: toJson({ response: { [status]: zod } }).response![status] },
        },
      },
    ];
  });
  return { ...(body ? { body } : {}), response: Object.fromEntries(successes) };
}

/**
 * The zod schemas in JSON Schema, at the path the interface names (a prefix's own route is registered as `/prefix/`
 * and answers without the slash too), with what every operation says besides: its id, summary, tag, security, and
 * the statuses it answers with their bodies (the error envelope named once, as a component).
 */
function transform(input: TransformInput) {
  const transformed = withoutLoneAnyOf(jsonSchemaTransform(input) as { schema?: Schema; url: string });
  const { url: registered } = transformed;
  const schema = transformed.schema ?? {};
  const url = registered.length > 1 ? registered.replace(/\/$/, '') : registered;
  if (schema.hide) return { schema, url };
  const route = (input as TransformInput & { route?: { method: string | string[] } }).route;
  const method = [route?.method ?? 'GET'].flat().find(m => m !== 'HEAD') ?? 'GET';
  const path = url.replace(/:(\w+)/g, '{$1}');
  const notes = operations[`${method} ${path}`];
  const surface = surfaces.find(s => path.startsWith(s.prefix));
  const security = surface && !open.has(path) ? surface.security : [];
  const errors = Object.fromEntries(
    errorStatuses(method, path, schema, security, notes?.errors).map(s => [s, errorResponseOf(s, path, method)]),
  );
  // the documented successes are the route's serialisers too (src/api/documented-responses.ts): documentedIo says them
  const documentedStatuses = Object.keys(documentedOperations[`${method} ${path}`]?.responses ?? {});
  const routeResponses = Object.fromEntries(
    Object.entries(schema.response ?? {}).filter(([status]) => !documentedStatuses.includes(status)),
  );
  const response = { ...successResponse(notes?.success), ...routeResponses, ...errors };
  const documented = documentedIo(input, `${method} ${path}`, response);
  Object.assign(response, documented.response);
  return {
    schema: {
      ...schema,
      ...(documented.body ? { body: documented.body } : {}),
      operationId: operationIdOf(method, path),
      ...(schema.summary || notes ? { summary: schema.summary ?? notes?.summary } : {}),
      tags: [tags.find(t => path.startsWith(t.prefix))!.name],
      security,
      response,
    } as FastifySchema,
    url,
  };
}

/** The components the route schemas and the envelopes name, without the input twins nothing refers to. */
function transformObject(input: Parameters<typeof jsonSchemaTransformObject>[0]) {
  const document = jsonSchemaTransformObject(input);
  const schemas: Record<string, unknown> = ('components' in document ? document.components?.schemas : undefined) ?? {};
  const used = new Set<string>();
  const visit = (text: string) => {
    for (const [, id] of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      if (used.has(id!)) continue;
      used.add(id!);
      visit(JSON.stringify(schemas[id!] ?? {}));
    }
  };
  visit(JSON.stringify({ ...document, components: {} }));
  for (const id of Object.keys(schemas)) if (!used.has(id)) delete schemas[id];
  if ('paths' in document) addLinks(document.paths as Paths);
  return document;
}

type Paths = Record<string, Record<string, { responses?: Record<string, Record<string, unknown>> }>>;

/** The links of the operation tables on their responses (@fastify/swagger keeps none): a link to no operation is a bug. */
function addLinks(paths: Paths) {
  const operationOf = (key: string) => {
    const [method, path] = key.split(' ') as [string, string];
    return { operation: paths[path]?.[method.toLowerCase()], operationId: operationIdOf(method, path) };
  };
  for (const [key, { links }] of Object.entries(documentedOperations)) {
    for (const [status, named] of Object.entries(links ?? {})) {
      const response = operationOf(key).operation?.responses?.[status];
      if (!response) throw new Error(`links of ${key} ${status}: the document has no such response`);
      response.links = Object.fromEntries(
        Object.entries(named!).map(([name, { operation, ...link }]) => {
          const target = operationOf(operation);
          if (!target.operation) throw new Error(`link ${name} of ${key}: the document has no operation ${operation}`);
          return [name, { operationId: target.operationId, ...link }];
        }),
      );
    }
  }
}

/**
 * OpenAPI 3.1 of every route, generated from the routes' zod schemas as they are registered:
 * registered before any route. The document is served at /openapi.json, and a reference page (swagger-ui, its assets
 * from the npm package: no CDN) at /docs. `npm run openapi:lint` checks it with redocly's recommended rules.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Account sync, payment and gateway service',
        version,
        description:
          'The interface of this service: the key surface under /api/v1, the dashboard session under /api/auth and /api/dashboard, the admin console under /api/admin. Errors: docs/reference/errors.md.',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: '/', description: 'This service (paths are relative to its base URL)' }],
      tags: tags.map(({ name, description }) => ({ name, description })),
      components: {
        securitySchemes: {
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'x-api-key',
            description: 'An API key of the dashboard (/api/v1)',
          },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: 'svc_token',
            description: 'The dashboard session (/api/auth, /api/dashboard, /api/admin)',
          },
          auditorToken: {
            type: 'http',
            scheme: 'bearer',
            description: "An auditor's token (`npm run cli -- auditor create <name>`), for /api/audit only",
          },
          operatorToken: {
            type: 'http',
            scheme: 'bearer',
            description:
              "METRICS_TOKEN, for /metrics and the details of /ready (without one set: a client on the service's own machine)",
          },
        },
      },
    },
    transform,
    transformObject,
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    uiConfig: { docExpansion: 'list', deepLinking: true },
  });
  app.get('/openapi.json', { schema: { summary: 'This OpenAPI document' } }, async () => app.swagger());
}
