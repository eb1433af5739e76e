import type { FastifyInstance } from 'fastify';
import { endSession } from '../../commands/login.ts';
import { refuse } from '../../errors.ts';
import { listAccounts } from '../../projections/accounts.ts';
import { listApiKeys } from '../../projections/api-keys.ts';
import { listPayments } from '../../projections/payments.ts';
import { listWebhookEndpoints } from '../../projections/webhook-endpoints.ts';
import { overviewHtml } from '../../web/pages/overview.ts';
import type { AppDeps } from '../deps.ts';
import type { ApiKeyCache } from '../key-cache.ts';
import { liveSessionsOf } from '../session-auth.ts';
import { apiKeyPages } from './api-key-pages.ts';
import { noticeOf, pathId, seeOther, sendPage } from './page-reply.ts';
import { frameOf } from './page-surface.ts';
import { webhookPages } from './webhook-pages.ts';

/** What the overview says after a form that changed something (`?done=`). */
const doneNotices: Record<string, string> = {
  'session-ended': 'Perangkat itu dikeluarkan; sesinya tidak berlaku lagi.',
};

/** The dashboard's overview with the viewer's devices, then its API keys and webhooks, under /dashboard. */
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

    await app.register(apiKeyPages(deps, keys));
    await app.register(webhookPages(deps));
  };
}
