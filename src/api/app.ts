import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { accountRoutes } from './accounts.ts';
import { apiKeyRoutes } from './api-keys.ts';
import { paymentPageRoutes } from './payment-page.ts';
import { paymentRoutes } from './payments.ts';
import { mutationRoutes } from './mutations.ts';
import { providerRoutes } from './providers.ts';
import { authRoutes } from './auth.ts';
import type { AppDeps } from './deps.ts';
import { registerErrorHandling } from './errors.ts';
import { healthRoutes } from './health.ts';
import { requireApiKey } from './key-auth.ts';
import { apiKeyCache } from './key-cache.ts';
import { webhookRoutes } from './webhooks.ts';

/** Builds the HTTP app without listening, so tests use `inject` against real dependencies. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    bodyLimit: 1024 * 1024,
    trustProxy: false,
    return503OnClosing: true,
  });
  // While closing, answers end their keep-alive connection, so close() does not wait for idle clients.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  await app.register(cookie);
  await app.register(rateLimit, {
    global: false,
    hook: 'preHandler', // after the body is parsed: limits can be keyed on what the request is about
    errorResponseBuilder: (request, context) => {
      const message = request.url.startsWith('/api/auth')
        ? 'Terlalu banyak percobaan, coba lagi nanti'
        : `Too many requests, retry in ${Math.ceil(context.ttl / 1000)} s`;
      return Object.assign(new Error(message), { statusCode: 429 });
    },
  });
  const keys = apiKeyCache(deps.clock);
  requireApiKey(deps, app, keys);
  await app.register(healthRoutes(deps));
  await app.register(authRoutes(deps), { prefix: '/api/auth' });
  await app.register(apiKeyRoutes(deps, keys), { prefix: '/api/dashboard/api-keys' });
  await app.register(providerRoutes, { prefix: '/api/v1/providers' });
  await app.register(accountRoutes(deps), { prefix: '/api/v1/accounts' });
  await app.register(mutationRoutes(deps), { prefix: '/api/v1/mutations' });
  await app.register(webhookRoutes(deps)); // /api/v1/webhooks and /api/dashboard/webhooks
  await app.register(paymentRoutes(deps), { prefix: '/api/v1/payments' });
  await app.register(paymentPageRoutes(deps));
  return app;
}
