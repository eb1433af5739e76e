import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  allocateSuspenseCredit,
  refundSuspenseCredit,
  untransferSuspenseCredit,
} from '../commands/gateway-suspense.ts';
import { refuse } from '../errors.ts';
import { listSuspense, type SuspenseRow } from '../projections/gateway-suspense.ts';
import { text } from '../text.ts';
import type { AppDeps } from './deps.ts';

const listQuery = z.object({ status: z.enum(['OPEN', 'ALLOCATED', 'REFUNDED', 'TRANSFERRED']).optional() });
const suspenseParams = z.object({ id: z.uuid() });
const note = text.trim().min(1).max(1000).optional();
// exactly one of a gateway payment (its merchant, its method's fee) or a merchant
const allocateBody = z.union([
  z.object({ paymentId: z.uuid(), note }).strict(),
  z.object({ userId: z.uuid(), note }).strict(),
]);
const refundBody = z.object({ reference: text.trim().min(1).max(200), note });
const untransferBody = z.object({
  reason: text
    .trim()
    .min(1)
    .max(1000)
    .describe("Why the credit was not the hand transfer's destination side (a customer's payment, another transfer's)"),
});

export const presentSuspense = (row: SuspenseRow) => ({
  id: row.id,
  mutationId: row.mutationId,
  holdingAccountId: row.accountId,
  amount: row.amount,
  senderName: row.senderName,
  reference: row.reference,
  receivedAt: row.receivedAt.toISOString(),
  status: row.status,
  suggestion: row.status === 'OPEN' ? row.suggestion : null,
  allocation:
    row.status === 'ALLOCATED'
      ? { merchantId: row.merchantId, paymentId: row.paymentId, fee: row.fee, net: row.net }
      : null,
  refundReference: row.refundReference,
  note: row.note,
  resolvedBy: row.resolvedBy,
  resolvedAt: row.resolvedAt?.toISOString() ?? null,
  untransferred: row.untransferred,
});

/**
 * The platform's suspense in the admin console: list, allocate to a merchant, record a refund, give back a credit a hand
 * transfer took.
 */
export function adminSuspenseRoutes(deps: AppDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();

    const shown = async (id: string) => {
      const [row] = await listSuspense(deps.pool, { id });
      if (!row) throw refuse('SUSPENSE_NOT_FOUND');
      return { status: 'success', data: presentSuspense(row) };
    };

    app.get('/', { schema: { querystring: listQuery } }, async request => ({
      status: 'success',
      data: (await listSuspense(deps.pool, { status: request.query.status })).map(presentSuspense),
    }));

    app.post('/:id/allocate', { schema: { params: suspenseParams, body: allocateBody } }, async request => {
      const { note: why, ...target } = request.body;
      await allocateSuspenseCredit(
        deps,
        deps.config.gateway,
        request.principal!.userId,
        request.params.id,
        target,
        why ?? null,
      );
      return shown(request.params.id);
    });

    app.post('/:id/refund', { schema: { params: suspenseParams, body: refundBody } }, async request => {
      await refundSuspenseCredit(
        deps,
        request.principal!.userId,
        request.params.id,
        request.body.reference,
        request.body.note ?? null,
      );
      return shown(request.params.id);
    });

    app.post('/:id/untransfer', { schema: { params: suspenseParams, body: untransferBody } }, async request => {
      await untransferSuspenseCredit(deps, request.principal!.userId, request.params.id, request.body.reason);
      return shown(request.params.id);
    });
  };
}
