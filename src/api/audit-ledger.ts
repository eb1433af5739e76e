import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { cosignaturesOf, listCosignatures, saveCosignature } from '../audit/cosignatures.ts';
import { logLine } from '../audit/export.ts';
import { checkpointsFrom, latestLedgerCheckpoint } from '../audit/ledger-checkpoint-rows.ts';
import { checkpointHash } from '../audit/ledger-format.ts';
import { refuse } from '../errors.ts';
import { START, type Position } from '../store/event-store.ts';
import { positionText } from '../store/subscriber.ts';
import type { AppDeps } from './deps.ts';
import { pageSize } from './query-params.ts';

const seq = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const position = z
  .string()
  .regex(/^\d{1,20}\/\d{1,20}$/, 'a position of the log, commit/prepare')
  .transform((text): Position => {
    const [commit, prepare] = text.split('/');
    return { commit: BigInt(commit!), prepare: BigInt(prepare!) };
  });

const checkpointsQuery = z.object({ from: seq.default(0), limit: pageSize(1000, 1000) });
const eventsQuery = z.object({
  after: position.optional().describe("The position of the event before the page (a checkpoint's lastPosition)"),
  index: seq.default(0).describe('The index of the first event of the page (that checkpoint’s `to`)'),
  limit: pageSize(1000, 5000),
});
const cosignatureBody = z.object({
  checkpointHash: z.string().regex(/^[0-9a-f]{64}$/),
  seq: z.int().min(0).max(Number.MAX_SAFE_INTEGER),
  witnessKeyId: z.string().regex(/^[0-9a-f]{16}$/),
  signature: z
    .string()
    .regex(/^[A-Za-z0-9+/]{86}==$/, 'an Ed25519 signature, base64 (64 bytes)')
    .describe('Ed25519 over `ledger-cosignature:v1:<checkpointHash>`, base64'),
});
const sinceQuery = z.object({ fromSeq: seq.default(0) });

/**
 * The newest checkpoint with its hash (its identity: what a re-signed checkpoint of the same seq differs by) and the
 * witnesses' cosignatures of it (published as posted: checked by whoever reads them).
 */
export async function latestWithCosignatures(deps: Pick<AppDeps, 'pool'>) {
  const latest = await latestLedgerCheckpoint(deps.pool);
  if (!latest)
    throw refuse('NOT_FOUND', { message: 'No checkpoint yet: the first is signed within a minute of the first event' });
  const hash = checkpointHash(latest);
  return { ...latest, hash, cosignatures: await cosignaturesOf(deps.pool, hash) };
}

/**
 * What a witness reads and posts (the auditor surface, /api/audit): the checkpoints from a seq, the log's events as
 * export lines without their view from a position on (a page at a time, so a witness reads only what is new), the
 * newest checkpoint with its cosignatures, and its own cosignature of a checkpoint.
 */
export function auditLedgerRoutes(deps: AppDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();
    app.get('/ledger/checkpoints/latest', async () => ({
      status: 'success',
      data: await latestWithCosignatures(deps),
    }));

    app.get('/ledger/checkpoints', { schema: { querystring: checkpointsQuery } }, async request => {
      const { from, limit } = request.query;
      return { status: 'success', data: { checkpoints: await checkpointsFrom(deps.pool, from, limit) } };
    });

    app.get('/ledger/events', { schema: { querystring: eventsQuery } }, async request => {
      const { after = START, index, limit } = request.query;
      const page = await deps.store.readLog(after, limit);
      const last = page.at(-1);
      return {
        status: 'success',
        data: {
          events: page.map((e, i) => logLine(index + i, e)),
          next:
            page.length === limit && last ? { after: positionText(last.position), index: index + page.length } : null,
        },
      };
    });

    app.get('/ledger/cosignatures', { schema: { querystring: sinceQuery } }, async request => ({
      status: 'success',
      data: { cosignatures: await listCosignatures(deps.pool, request.query.fromSeq) },
    }));

    app.post('/ledger/cosignatures', { schema: { body: cosignatureBody } }, async (request, reply) => {
      const given = request.body;
      const [checkpoint] = await checkpointsFrom(deps.pool, given.seq, 1);
      if (checkpoint?.seq !== given.seq) throw refuse('NOT_FOUND', { message: `No checkpoint ${given.seq}` });
      if (checkpointHash(checkpoint) !== given.checkpointHash)
        throw refuse('CONFLICT', {
          message: `Checkpoint ${given.seq} has another hash: this cosignature is of a checkpoint the service does not hold`,
        });
      const created = await saveCosignature(deps.pool, given, deps.clock.now());
      const kept = (await cosignaturesOf(deps.pool, given.checkpointHash)).find(
        c => c.witnessKeyId === given.witnessKeyId,
      )!;
      return reply.code(created ? 201 : 200).send({ status: 'success', data: kept });
    });
  };
}
