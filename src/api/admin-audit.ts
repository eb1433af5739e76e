import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { listDigests } from '../audit/digests.ts';
import { auditPage } from '../audit/stream-pages.ts';
import { refuse } from '../errors.ts';
import { latestWithCosignatures } from './audit-ledger.ts';
import type { AppDeps } from './deps.ts';
import { pageSize, streamRevision } from './query-params.ts';

const streamParams = z.object({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9:_.-]{0,199}$/, 'a stream id: letters, digits, -, _, : and .'),
});
const pageQuery = z.object({
  fromRevision: streamRevision,
  limit: pageSize(100, 1000),
});

/**
 * The auditors' routes of the admin console. GET /api/admin/streams/:id: a stream's events as `cli stream` shows them (who, when, why, caused by
 * what; secrets and sealed values replaced), a page at a time from `fromRevision`; `nextRevision` is where the next
 * page starts, null at the end. A stream without events answers 404.
 */
export function adminAuditRoutes(deps: AppDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();
    app.get('/streams/:id', { schema: { params: streamParams, querystring: pageQuery } }, async request => {
      const { id } = request.params;
      const { fromRevision, limit } = request.query;
      const page = await auditPage(deps.store, id, fromRevision, limit);
      if (!page) throw refuse('STREAM_NOT_FOUND');
      return { status: 'success', data: { streamId: id, ...page } };
    });

    // the daily digests with the key that signs them: an auditor keeps the public key and checks the log against it later
    app.get('/digests', async () => ({
      status: 'success',
      data: {
        keyId: deps.digestKey.keyId,
        publicKey: deps.digestKey.publicKey,
        algorithm: 'Ed25519',
        signed: 'daily-digest:v1:<day>:<events>:<root>',
        days: await listDigests(deps.pool),
      },
    }));

    // the newest signed checkpoint of the log: whoever keeps it can later prove the log up to it unchanged
    app.get('/ledger/checkpoints/latest', async () => ({
      status: 'success',
      data: await latestWithCosignatures(deps),
    }));
  };
}
