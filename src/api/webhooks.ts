import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { listDeliveries, redeliver, sendTestEvent } from '../webhooks/delivery-log.ts';
import { listWebhookEndpoints, type WebhookEndpointRow } from '../projections/webhook-endpoints.ts';
import { addWebhookEndpoint, removeWebhookEndpoint } from '../commands/webhook-endpoints.ts';
import { text } from '../text.ts';
import { defaultWebhookEvents, webhookEventTypes } from '../domain/webhook-events.ts';
import type { AppDeps } from './deps.ts';
import { pagination } from './presenters.ts';
import { pageNumber, pageSize } from './query-params.ts';

const createBody = z.object({
  url: text.trim().min(1).max(2048),
  /** the kinds to receive; absent: every payment and transfer kind (`ledger.checkpoint`, `ledger.integrity` only for an admin's endpoint) */
  events: z.array(z.enum(webhookEventTypes)).min(1).max(webhookEventTypes.length).optional(),
  /** the account kinds of these accounts only, mutation.created of these types only; strict: a misspelt filter is a 400, not none */
  filters: z
    .strictObject({
      accountIds: z.array(z.uuid()).min(1).max(100).optional(),
      mutationTypes: z
        .array(z.enum(['CREDIT', 'DEBIT']))
        .min(1)
        .max(2)
        .optional(),
    })
    .optional(),
});
const endpointParams = z.object({ id: z.uuid() });
const deliveryParams = z.object({ id: z.uuid(), deliveryId: z.uuid() });
/** The delivery log's filters (the dashboard's page reads the same ones). */
export const deliveriesQuery = z.object({
  status: z.enum(['pending', 'succeeded', 'failed', 'cancelled']).optional(),
  page: pageNumber,
  limit: pageSize(20),
});

type Surface = 'key' | 'dashboard';

/** An endpoint's filters on the account kinds as it shows them; null: none (every account, both mutation types). */
function filtersOf(e: WebhookEndpointRow) {
  if (!e.account_ids && !e.mutation_types) return null;
  return {
    ...(e.account_ids ? { accountIds: e.account_ids } : {}),
    ...(e.mutation_types ? { mutationTypes: e.mutation_types } : {}),
  };
}

/** Who asks: the key's owner on /api/v1, the session's user on the dashboard; and the actor their events record. */
function callerOf(surface: Surface, request: FastifyRequest) {
  if (surface === 'key') return { ownerId: request.owner!.userId, actor: `api-key:${request.owner!.keyId}` };
  return { ownerId: request.principal!.userId, actor: `user:${request.principal!.userId}` };
}

/**
 * Webhook endpoints, their delivery log and redelivery, one route set on both surfaces, registered inside the
 * surface's plugin (`/api/v1/webhooks` behind the API key, `/api/dashboard/webhooks` behind the session): every id
 * is looked up within the caller's own endpoints (another owner's: 404).
 */
export function webhookRoutes(deps: AppDeps, surface: Surface) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();

    app.post('/', { schema: { body: createBody } }, async request => {
      const { ownerId, actor } = callerOf(surface, request);
      const created = await addWebhookEndpoint(deps, deps.config.webhooks, ownerId, request.body, actor);
      return { status: 'success', data: created };
    });

    app.get('/', async request => {
      const endpoints = await listWebhookEndpoints(deps.pool, callerOf(surface, request).ownerId);
      return {
        status: 'success',
        data: endpoints.map(e => ({
          id: e.id,
          url: e.url,
          events: e.events ?? [...defaultWebhookEvents],
          filters: filtersOf(e),
          createdAt: e.created_at.toISOString(),
          disabled: e.disabled_at !== null,
          disabledAt: e.disabled_at?.toISOString() ?? null,
          disabledStatusCode: e.disabled_status_code,
        })),
      };
    });

    app.delete('/:id', { schema: { params: endpointParams } }, async request => {
      const { ownerId, actor } = callerOf(surface, request);
      await removeWebhookEndpoint(deps, ownerId, request.params.id, actor);
      return { status: 'success', data: { id: request.params.id, removed: true } };
    });

    app.get('/:id/deliveries', { schema: { params: endpointParams, querystring: deliveriesQuery } }, async request => {
      const q = request.query;
      const { rows, total } = await listDeliveries(deps.pool, {
        ownerId: callerOf(surface, request).ownerId,
        endpointId: request.params.id,
        ...q,
      });
      return { status: 'success', data: rows, pagination: pagination(total, q.page, q.limit) };
    });

    app.post(
      '/:id/deliveries/:deliveryId/redeliver',
      { schema: { params: deliveryParams } },
      async (request, reply) => {
        const { ownerId } = callerOf(surface, request);
        const delivery = await redeliver(
          deps.pool,
          { clock: deps.clock, delays: deps.config.webhooks.retryDelaysMs },
          {
            ownerId,
            endpointId: request.params.id,
            deliveryId: request.params.deliveryId,
          },
        );
        return reply.code(202).send({ status: 'success', data: delivery });
      },
    );

    app.post('/:id/test', { schema: { params: endpointParams } }, async (request, reply) => {
      const { ownerId } = callerOf(surface, request);
      const delivery = await sendTestEvent(deps.pool, deps, { ownerId, endpointId: request.params.id });
      return reply.code(202).send({ status: 'success', data: delivery });
    });
  };
}
