import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { createApiKey } from '../../commands/api-key.ts';
import { revokeApiKeyAtOnce } from '../../commands/api-key-revocation.ts';
import { refuse, type DomainError } from '../../errors.ts';
import { listApiKeys } from '../../projections/api-keys.ts';
import { text } from '../../text.ts';
import { apiKeysHtml, type NewKey } from '../../web/pages/api-keys.ts';
import type { AppDeps } from '../deps.ts';
import type { ApiKeyCache } from '../key-cache.ts';
import { noticeOf, orShowRefusal, pathId, seeOther, sendPage } from './page-reply.ts';
import { frameOf } from './page-surface.ts';
import { postedForm } from './posted-form.ts';

const keyForm = z.object({
  name: text.trim().min(1, 'Nama API key wajib diisi').max(100, 'Nama API key maksimal 100 karakter').prefault(''),
});
const doneNotices: Record<string, string> = {
  'key-revoked': 'API key dicabut. Panggilan dengan kunci itu kini ditolak.',
};
/** The name as typed, to show again after a refusal. */
const typedName = (request: FastifyRequest) => {
  const name = (request.body as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name : '';
};

/** The viewer's API keys; the secret of a new key is shown once, on the answer to the form that made it. */
async function keysPage(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  opts: { created?: NewKey; error?: DomainError; name?: string } = {},
) {
  const list = await listApiKeys(deps.pool, request.viewer!.user.id);
  const notice = opts.created ? null : noticeOf(request, doneNotices, opts.error);
  return sendPage(
    reply,
    { ...frameOf(request, 'API key', 'api-keys'), notice },
    apiKeysHtml(list, request.viewer!.csrf, opts.created ?? null, opts.name),
    { status: opts.error?.status ?? (opts.created ? 201 : 200) },
  );
}

/** The dashboard's API keys: made by a form, revoked at once (the key cache forgets them too). */
export function apiKeyPages(deps: AppDeps, keys: ApiKeyCache) {
  return async function (app: FastifyInstance) {
    app.get('/api-keys', (request, reply) => keysPage(deps, request, reply));
    app.post('/api-keys', (request, reply) =>
      orShowRefusal(
        async () => {
          const { name } = postedForm(request, keyForm);
          const created = await createApiKey(deps, request.viewer!.user.id, name);
          return keysPage(deps, request, reply, { created: { name: created.name, key: created.key } });
        },
        error => keysPage(deps, request, reply, { error, name: typedName(request) }),
      ),
    );
    app.post<{ Params: { id: string } }>('/api-keys/:id/revoke', async (request, reply) => {
      const keyId = pathId(request.params.id, () => refuse('NOT_FOUND', { words: 'API key tidak ditemukan' }));
      await revokeApiKeyAtOnce(deps, keys, request.viewer!.user.id, keyId);
      return seeOther(reply, '/dashboard/api-keys', 'key-revoked');
    });
  };
}
