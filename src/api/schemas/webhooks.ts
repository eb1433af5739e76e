import { z } from 'zod';
import { webhookEventTypes } from '../../domain/webhook-events.ts';
import { pagination } from './accounts.ts';
import type { DocumentedOperation } from './index-requests.ts';

/**
 * The webhook routes of both surfaces (src/api/webhooks.ts) as the service checks them: the URL is an http(s) URL
 * (src/commands/webhook-endpoints.ts and src/domain/webhook-endpoints.ts refuse any other, and any that resolves to a private address), and what they answer.
 */

const isoTime = z.iso.datetime();
const events = z.array(z.enum(webhookEventTypes));

const filters = z
  .object({
    accountIds: z
      .array(z.uuid())
      .min(1)
      .max(100)
      .optional()
      .describe('mutation.created and account.* of these linked accounts only; absent: every account'),
    mutationTypes: z
      .array(z.enum(['CREDIT', 'DEBIT']))
      .min(1)
      .max(2)
      .optional()
      .describe('mutation.created of these types only; absent: both'),
  })
  .strict()
  .meta({
    id: 'WebhookFilters',
    description: 'What an endpoint narrows the account kinds to (the other kinds pass whatever they say)',
    examples: [{ accountIds: ['7d5c2a10-3b4e-4f6a-9c8d-1e2f3a4b5c6d'], mutationTypes: ['CREDIT'] }],
  });

const createRequest = z.object({
  url: z
    .string()
    .max(2048)
    .meta({ format: 'uri', pattern: '^https?://' })
    .describe('An http(s) URL the service may call (not a private address)'),
  events: events
    .min(1)
    .max(webhookEventTypes.length)
    .optional()
    .describe(
      "The kinds to receive; absent: every payment, transfer and withdrawal kind, not the account kinds (mutation.created, account.needs_relogin, account.sync_failed: asked for by name); ledger.checkpoint and ledger.integrity only for an admin's endpoint",
    ),
  filters: filters.optional(),
});

const endpointExample = {
  id: '2c5ea4c0-4067-11e9-8bad-9b1deb4d3b7d',
  url: 'https://shop.example.com/hooks/payments',
  events: ['payment.completed', 'payment.expired'],
  filters: null,
  createdAt: '2026-01-05T03:00:00.000Z',
};

const created = z
  .object({
    status: z.literal('success'),
    data: z.object({
      id: z.uuid(),
      url: z.string(),
      secret: z.string().describe('Signs every delivery; shown only here'),
      events,
      filters: filters.nullable(),
      createdAt: isoTime,
    }),
  })
  .meta({
    id: 'WebhookEndpointCreatedResponse',
    description: 'The endpoint, with its signing secret (shown once)',
    examples: [{ status: 'success', data: { ...endpointExample, secret: 'whsec_3q2+7w==' } }],
  });

const endpoint = z
  .object({
    id: z.uuid(),
    url: z.string(),
    events,
    filters: filters.nullable().describe('null: every account, both mutation types'),
    createdAt: isoTime,
    disabled: z.boolean(),
    disabledAt: isoTime.nullable(),
    disabledStatusCode: z.int().nullable().describe('The answer that disabled it'),
  })
  .meta({
    id: 'WebhookEndpoint',
    description: 'A webhook endpoint',
    examples: [{ ...endpointExample, disabled: false, disabledAt: null, disabledStatusCode: null }],
  });

const list = z.object({ status: z.literal('success'), data: z.array(endpoint) }).meta({
  id: 'WebhookEndpointListResponse',
  description: "The caller's webhook endpoints",
  examples: [
    {
      status: 'success',
      data: [{ ...endpointExample, disabled: false, disabledAt: null, disabledStatusCode: null }],
    },
  ],
});

const removed = z
  .object({ status: z.literal('success'), data: z.object({ id: z.uuid(), removed: z.literal(true) }) })
  .meta({
    id: 'WebhookEndpointRemovedResponse',
    description: 'The endpoint, removed',
    examples: [{ status: 'success', data: { id: endpointExample.id, removed: true } }],
  });

const deliveryExample = {
  id: '8d7f6e5c-4b3a-4291-8a7b-6c5d4e3f2a1b',
  eventId: '1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d',
  type: 'payment.completed',
  status: 'succeeded',
  statusReason: null,
  createdAt: '2026-01-05T03:00:00.000Z',
  nextAttemptAt: null,
  attempts: [
    {
      number: 1,
      attemptedAt: '2026-01-05T03:00:01.000Z',
      state: 'finished',
      manual: false,
      statusCode: 200,
      error: null,
      durationMs: 84,
    },
  ],
};

const delivery = z
  .object({
    id: z.uuid(),
    eventId: z.uuid(),
    type: z.string().describe('The event kind; `webhook.test` for a test event sent on request'),
    status: z.enum(['pending', 'succeeded', 'failed', 'cancelled']),
    statusReason: z.string().nullable(),
    createdAt: isoTime,
    nextAttemptAt: isoTime.nullable(),
    attempts: z.array(
      z.object({
        number: z.int(),
        attemptedAt: isoTime,
        state: z.enum(['in_flight', 'finished', 'interrupted']),
        manual: z.boolean().describe('Asked for by a redeliver'),
        statusCode: z.int().nullable(),
        error: z.string().nullable(),
        durationMs: z.int().nullable(),
      }),
    ),
  })
  .meta({
    id: 'WebhookDelivery',
    description: 'A delivery of an event to an endpoint, with its attempts',
    examples: [deliveryExample],
  });

const deliveries = z.object({ status: z.literal('success'), data: z.array(delivery), pagination }).meta({
  id: 'WebhookDeliveryListResponse',
  description: "A page of an endpoint's deliveries, newest first",
  examples: [
    {
      status: 'success',
      data: [deliveryExample],
      pagination: { total: 1, page: 1, limit: 20, totalPages: 1, hasMore: false },
    },
  ],
});

const redelivered = z.object({ status: z.literal('success'), data: delivery }).meta({
  id: 'WebhookDeliveryResponse',
  description: 'The delivery, queued again',
  examples: [
    { status: 'success', data: { ...deliveryExample, status: 'pending', nextAttemptAt: '2026-01-05T03:10:00.000Z' } },
  ],
});

const tested = z.object({ status: z.literal('success'), data: delivery }).meta({
  id: 'WebhookTestDeliveryResponse',
  description:
    "The test event's delivery, queued: type `webhook.test`, data `{endpointId, url}`, signed and retried like every event",
  examples: [
    {
      status: 'success',
      data: {
        ...deliveryExample,
        type: 'webhook.test',
        status: 'pending',
        nextAttemptAt: '2026-01-05T03:00:00.000Z',
        attempts: [],
      },
    },
  ],
});

const operationsUnder = (prefix: string): Record<string, DocumentedOperation> => ({
  [`POST ${prefix}`]: {
    body: { 'application/json': createRequest },
    responses: { 200: created },
    links: {
      200: {
        Deliveries: {
          operation: `GET ${prefix}/{id}/deliveries`,
          parameters: { id: '$response.body#/data/id' },
          description: "The endpoint's deliveries",
        },
      },
    },
  },
  [`GET ${prefix}`]: { responses: { 200: list } },
  [`DELETE ${prefix}/{id}`]: { responses: { 200: removed } },
  [`GET ${prefix}/{id}/deliveries`]: { responses: { 200: deliveries } },
  [`POST ${prefix}/{id}/deliveries/{deliveryId}/redeliver`]: { responses: { 202: redelivered } },
  [`POST ${prefix}/{id}/test`]: { responses: { 202: tested } },
});

export const webhookOperations: Record<string, DocumentedOperation> = {
  ...operationsUnder('/api/v1/webhooks'),
  ...operationsUnder('/api/dashboard/webhooks'),
};
