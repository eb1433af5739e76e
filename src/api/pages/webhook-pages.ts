import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { addWebhookEndpoint, removeWebhookEndpoint } from '../../commands/webhook-endpoints.ts';
import { refuse, type DomainError } from '../../errors.ts';
import { findWebhookEndpoint, listWebhookEndpoints } from '../../projections/webhook-endpoints.ts';
import { text } from '../../text.ts';
import { listDeliveries, redeliver, sendTestEvent } from '../../webhooks/delivery-log.ts';
import { deliveryLogHtml, webhooksHtml, type NewEndpoint } from '../../web/pages/webhooks.ts';
import type { AppDeps } from '../deps.ts';
import { deliveriesQuery } from '../webhooks.ts';
import { queryFilters } from './list-filters.ts';
import { noticeOf, orShowRefusal, pathId, seeOther, sendPage } from './page-reply.ts';
import { frameOf } from './page-surface.ts';
import { postedForm } from './posted-form.ts';

const endpointForm = z.object({
  url: text.trim().min(1, 'URL wajib diisi').max(2048, 'URL maksimal 2048 karakter').prefault(''),
});
const deliveryFilter = deliveriesQuery.pick({ status: true, page: true });
const deliveriesPerPage = 20;
const doneNotices: Record<string, string> = {
  'endpoint-removed': 'Endpoint dihapus. Tidak ada lagi pengiriman ke sana.',
  redelivered: 'Pengiriman dijadwalkan ulang sekarang.',
  'test-sent': 'Event uji webhook.test dikirim; hasilnya tampil di log di bawah.',
};
const endpointNotFound = () => refuse('WEBHOOK_ENDPOINT_NOT_FOUND', { words: 'Endpoint webhook tidak ditemukan' });
const deliveryNotFound = () => refuse('WEBHOOK_DELIVERY_NOT_FOUND', { words: 'Pengiriman tidak ditemukan' });
/** The URL as typed, to show again after a refusal. */
const typedUrl = (request: FastifyRequest) => {
  const url = (request.body as { url?: unknown } | undefined)?.url;
  return typeof url === 'string' ? url : '';
};

/** The viewer's webhook endpoints; the signing secret of a new one is shown once. */
async function webhooksPage(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  opts: { added?: NewEndpoint; error?: DomainError; url?: string } = {},
) {
  const list = await listWebhookEndpoints(deps.pool, request.viewer!.user.id);
  const notice = opts.added ? null : noticeOf(request, doneNotices, opts.error);
  return sendPage(
    reply,
    { ...frameOf(request, 'Webhook', 'webhooks'), notice },
    webhooksHtml(list, request.viewer!.csrf, opts.added ?? null, {
      url: opts.url,
      allowPrivate: deps.config.webhooks.allowPrivate,
    }),
    { status: opts.error?.status ?? (opts.added ? 201 : 200) },
  );
}

/** One endpoint's delivery log, filtered by status and paged. */
async function deliveryLogPage(
  deps: AppDeps,
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
) {
  const user = request.viewer!.user;
  const endpoint = await findWebhookEndpoint(deps.pool, user.id, pathId(request.params.id, endpointNotFound));
  if (!endpoint) throw endpointNotFound();
  const { value: filter, refusal } = queryFilters(request, deliveryFilter);
  const limit = deliveriesPerPage;
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
}

/** The dashboard's webhook endpoints: added and removed by a form, each with its delivery log, a test and redelivery. */
export function webhookPages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    app.get('/webhooks', (request, reply) => webhooksPage(deps, request, reply));
    app.post('/webhooks', (request, reply) =>
      orShowRefusal(
        async () => {
          const user = request.viewer!.user;
          const { url } = postedForm(request, endpointForm);
          const added = await addWebhookEndpoint(deps, deps.config.webhooks, user.id, { url }, `user:${user.id}`);
          return webhooksPage(deps, request, reply, { added: { url: added.url, secret: added.secret } });
        },
        error => webhooksPage(deps, request, reply, { error, url: typedUrl(request) }),
      ),
    );
    app.post<{ Params: { id: string } }>('/webhooks/:id/remove', async (request, reply) => {
      const user = request.viewer!.user;
      await removeWebhookEndpoint(deps, user.id, pathId(request.params.id, endpointNotFound), `user:${user.id}`);
      return seeOther(reply, '/dashboard/webhooks', 'endpoint-removed');
    });
    app.get<{ Params: { id: string } }>('/webhooks/:id', (request, reply) => deliveryLogPage(deps, request, reply));
    app.post<{ Params: { id: string } }>('/webhooks/:id/test', async (request, reply) => {
      const endpointId = pathId(request.params.id, endpointNotFound);
      await sendTestEvent(deps.pool, deps, { ownerId: request.viewer!.user.id, endpointId });
      return seeOther(reply, `/dashboard/webhooks/${endpointId}`, 'test-sent');
    });
    app.post<{ Params: { id: string; deliveryId: string } }>(
      '/webhooks/:id/deliveries/:deliveryId/redeliver',
      async (request, reply) => {
        const endpointId = pathId(request.params.id, endpointNotFound);
        const deliveryId = pathId(request.params.deliveryId, deliveryNotFound);
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
