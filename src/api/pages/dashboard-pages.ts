import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createApiKey } from '../../commands/api-key.ts';
import { revokeApiKeyAtOnce } from '../../commands/api-key-revocation.ts';
import { endSession } from '../../commands/login.ts';
import { addWebhookEndpoint, removeWebhookEndpoint } from '../../commands/webhook-endpoints.ts';
import { DomainError, refuse } from '../../errors.ts';
import { listAccounts } from '../../projections/accounts.ts';
import { listApiKeys } from '../../projections/api-keys.ts';
import { listPayments } from '../../projections/payments.ts';
import { findWebhookEndpoint, listWebhookEndpoints } from '../../projections/webhook-endpoints.ts';
import { text } from '../../text.ts';
import { listDeliveries, redeliver, sendTestEvent } from '../../webhooks/delivery-log.ts';
import { apiKeysHtml, type NewKey } from '../../web/pages/api-keys.ts';
import { overviewHtml } from '../../web/pages/overview.ts';
import { deliveryLogHtml, webhooksHtml, type NewEndpoint } from '../../web/pages/webhooks.ts';
import type { AppDeps } from '../deps.ts';
import type { ApiKeyCache } from '../key-cache.ts';
import { liveSessionsOf } from '../session-auth.ts';
import { deliveriesQuery } from '../webhooks.ts';
import { noticeOf, orShowRefusal, pathId, seeOther, sendPage } from './page-reply.ts';
import { queryFilters } from './list-filters.ts';
import { frameOf } from './page-surface.ts';

const keyName = text.trim().min(1, 'Nama API key wajib diisi').max(100, 'Nama API key maksimal 100 karakter');
const webhookUrl = text.trim().min(1, 'URL wajib diisi').max(2048, 'URL maksimal 2048 karakter');
const deliveryFilter = deliveriesQuery.pick({ status: true, page: true });

/** What the pages say after a form that changed something (`?done=`). */
const doneNotices: Record<string, string> = {
  'key-revoked': 'API key dicabut. Panggilan dengan kunci itu kini ditolak.',
  'endpoint-removed': 'Endpoint dihapus. Tidak ada lagi pengiriman ke sana.',
  redelivered: 'Pengiriman dijadwalkan ulang sekarang.',
  'test-sent': 'Event uji webhook.test dikirim; hasilnya tampil di log di bawah.',
  'session-ended': 'Perangkat itu dikeluarkan; sesinya tidak berlaku lagi.',
};
const field = (request: FastifyRequest, name: string): unknown =>
  (request.body as Record<string, unknown> | undefined)?.[name];
/** A text field as typed, to show again after a refusal. */
const typed = (request: FastifyRequest, name: string) =>
  typeof field(request, name) === 'string' ? (field(request, name) as string) : '';

/** The dashboard's overview, API keys and webhooks (with their delivery logs), under /dashboard. */
export function dashboardPages(deps: AppDeps, keys: ApiKeyCache) {
  return async function (app: FastifyInstance) {
    app.get('/', async (request, reply) => {
      const { user, sessionId, csrf } = request.viewer!;
      const firstPage = { ownerId: user.id, page: 1, limit: 1 };
      const [apiKeys, webhooks, accounts, payments, paid, sessions] = await Promise.all([
        listApiKeys(deps.pool, user.id),
        listWebhookEndpoints(deps.pool, user.id),
        listAccounts(deps.pool, firstPage),
        listPayments(deps.pool, firstPage),
        listPayments(deps.pool, { ...firstPage, status: 'COMPLETED' }),
        liveSessionsOf(deps, user.id),
      ]);
      const counts = {
        apiKeys: apiKeys.filter(k => !k.revoked_at).length,
        accounts: accounts.total,
        payments: payments.total,
        paid: paid.total > 0,
        webhooks: webhooks.length,
      };
      return sendPage(
        reply,
        { ...frameOf(request, 'Ringkasan', 'overview'), notice: noticeOf(request, doneNotices) },
        overviewHtml(user, counts, { sessions, current: sessionId, csrf }),
      );
    });

    // signs another of the user's devices out (this one signs out with "Keluar")
    app.post<{ Params: { id: string } }>('/sessions/:id/end', async (request, reply) => {
      const { user } = request.viewer!;
      const notFound = () => refuse('NOT_FOUND', { words: 'Sesi tidak ditemukan' });
      const sessionId = pathId(request.params.id, notFound);
      const live = await liveSessionsOf(deps, user.id);
      if (!live.some(s => s.id === sessionId)) throw notFound();
      await endSession(deps, sessionId, `user:${user.id}`, 'revoked');
      return seeOther(reply, '/dashboard', 'session-ended');
    });

    // API keys: the secret of a new key is shown once, on the answer to the form that made it
    const keysPage = async (
      request: FastifyRequest,
      reply: FastifyReply,
      opts: { created?: NewKey; error?: DomainError; name?: string } = {},
    ) => {
      const list = await listApiKeys(deps.pool, request.viewer!.user.id);
      const notice = opts.created ? null : noticeOf(request, doneNotices, opts.error);
      return sendPage(
        reply,
        { ...frameOf(request, 'API key', 'api-keys'), notice },
        apiKeysHtml(list, request.viewer!.csrf, opts.created ?? null, opts.name),
        {
          status: opts.error?.status ?? (opts.created ? 201 : 200),
        },
      );
    };
    app.get('/api-keys', (request, reply) => keysPage(request, reply));
    app.post('/api-keys', (request, reply) =>
      orShowRefusal(
        async () => {
          const created = await createApiKey(
            deps,
            request.viewer!.user.id,
            keyName.parse(field(request, 'name') ?? ''),
          );
          return keysPage(request, reply, { created: { name: created.name, key: created.key } });
        },
        error => keysPage(request, reply, { error, name: typed(request, 'name') }),
      ),
    );
    app.post<{ Params: { id: string } }>('/api-keys/:id/revoke', async (request, reply) => {
      const keyId = pathId(request.params.id, () => refuse('NOT_FOUND', { words: 'API key tidak ditemukan' }));
      await revokeApiKeyAtOnce(deps, keys, request.viewer!.user.id, keyId);
      return seeOther(reply, '/dashboard/api-keys', 'key-revoked');
    });

    // webhook endpoints: the signing secret of a new one is shown once
    const webhooksPage = async (
      request: FastifyRequest,
      reply: FastifyReply,
      opts: { added?: NewEndpoint; error?: DomainError; url?: string } = {},
    ) => {
      const list = await listWebhookEndpoints(deps.pool, request.viewer!.user.id);
      const notice = opts.added ? null : noticeOf(request, doneNotices, opts.error);
      return sendPage(
        reply,
        { ...frameOf(request, 'Webhook', 'webhooks'), notice },
        webhooksHtml(list, request.viewer!.csrf, opts.added ?? null, {
          url: opts.url,
          allowPrivate: deps.config.webhooks.allowPrivate,
        }),
        {
          status: opts.error?.status ?? (opts.added ? 201 : 200),
        },
      );
    };
    app.get('/webhooks', (request, reply) => webhooksPage(request, reply));
    app.post('/webhooks', (request, reply) =>
      orShowRefusal(
        async () => {
          const user = request.viewer!.user;
          const added = await addWebhookEndpoint(
            deps,
            deps.config.webhooks,
            user.id,
            { url: webhookUrl.parse(field(request, 'url') ?? '') },
            `user:${user.id}`,
          );
          return webhooksPage(request, reply, { added: { url: added.url, secret: added.secret } });
        },
        error => webhooksPage(request, reply, { error, url: typed(request, 'url') }),
      ),
    );

    const endpointNotFound = () => refuse('WEBHOOK_ENDPOINT_NOT_FOUND', { words: 'Endpoint webhook tidak ditemukan' });
    app.post<{ Params: { id: string } }>('/webhooks/:id/remove', async (request, reply) => {
      const user = request.viewer!.user;
      await removeWebhookEndpoint(deps, user.id, pathId(request.params.id, endpointNotFound), `user:${user.id}`);
      return seeOther(reply, '/dashboard/webhooks', 'endpoint-removed');
    });

    app.get<{ Params: { id: string } }>('/webhooks/:id', async (request, reply) => {
      const user = request.viewer!.user;
      const endpoint = await findWebhookEndpoint(deps.pool, user.id, pathId(request.params.id, endpointNotFound));
      if (!endpoint) throw endpointNotFound();
      const { value: filter, refusal } = queryFilters(request, deliveryFilter);
      const limit = 20;
      const { rows, total } = await listDeliveries(deps.pool, {
        ownerId: user.id,
        endpointId: endpoint.id,
        ...filter,
        limit,
      });
      const view = {
        endpoint,
        deliveries: rows,
        status: filter.status ?? '',
        page: filter.page,
        totalPages: Math.ceil(total / limit),
        csrf: request.viewer!.csrf,
      };
      return sendPage(
        reply,
        { ...frameOf(request, 'Log pengiriman webhook', 'webhooks'), notice: noticeOf(request, doneNotices, refusal) },
        deliveryLogHtml(view),
        { status: refusal?.status ?? 200 },
      );
    });

    app.post<{ Params: { id: string } }>('/webhooks/:id/test', async (request, reply) => {
      const endpointId = pathId(request.params.id, endpointNotFound);
      await sendTestEvent(deps.pool, deps, { ownerId: request.viewer!.user.id, endpointId });
      return seeOther(reply, `/dashboard/webhooks/${endpointId}`, 'test-sent');
    });

    app.post<{ Params: { id: string; deliveryId: string } }>(
      '/webhooks/:id/deliveries/:deliveryId/redeliver',
      async (request, reply) => {
        const endpointId = pathId(request.params.id, endpointNotFound);
        const deliveryId = pathId(request.params.deliveryId, () =>
          refuse('WEBHOOK_DELIVERY_NOT_FOUND', { words: 'Pengiriman tidak ditemukan' }),
        );
        await redeliver(
          deps.pool,
          { clock: deps.clock, delays: deps.config.webhooks.retryDelaysMs },
          { ownerId: request.viewer!.user.id, endpointId, deliveryId },
        );
        return seeOther(reply, `/dashboard/webhooks/${endpointId}`, 'redelivered');
      },
    );
  };
}
