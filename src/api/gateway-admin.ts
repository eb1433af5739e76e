import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  approveGatewayAccess,
  deactivateGatewayAccess,
  rejectGatewayAccess,
} from '../commands/gateway-access-decisions.ts';
import { markHoldingAccount, unmarkHoldingAccount } from '../commands/holding-accounts.ts';
import {
  findGatewayAccess,
  listGatewayAccess,
  listHoldingAccounts,
  type GatewayAccessRow,
} from '../projections/gateway-access.ts';
import { text } from '../text.ts';
import type { AppDeps } from './deps.ts';

const userParams = z.object({ userId: z.uuid() });
const accountParams = z.object({ accountId: z.uuid() });
const noteBody = z.object({ note: text.trim().min(1).max(1000) });
const listQuery = z.object({ status: z.enum(['PENDING', 'APPROVED', 'REJECTED']).optional() });
const holdingBody = z.object({ accountId: z.uuid() });

function presentRequest(row: GatewayAccessRow & { name?: string | null; email?: string | null }) {
  return {
    userId: row.user_id,
    ...(row.name !== undefined ? { name: row.name, email: row.email } : {}),
    status: row.status,
    note: row.note,
    feeToCustomer: row.fee_to_customer,
    business: row.business,
    createdAt: row.created_at?.toISOString() ?? null,
    requestedAt: row.requested_at?.toISOString() ?? null,
    processedAt: row.processed_at?.toISOString() ?? null,
  };
}

/**
 * The gateway in the admin console: access review (approve, reject with a note), deactivation of an
 * approved merchant (-> REJECTED with a note), and the holding accounts (an admin's own linked accounts, marked).
 */
export function adminGatewayRoutes(deps: AppDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();
    const adminOf = (request: { principal: { userId: string } | null }) => request.principal!.userId;

    /** The request as the read model shows it once the decision is made. */
    const decided = async (userId: string) => ({
      status: 'success',
      data: presentRequest((await findGatewayAccess(deps.pool, userId))!),
    });

    app.get('/access-requests', { schema: { querystring: listQuery } }, async request => ({
      status: 'success',
      data: (await listGatewayAccess(deps.pool, request.query.status)).map(presentRequest),
    }));

    app.post('/access-requests/:userId/approve', { schema: { params: userParams } }, async request => {
      await approveGatewayAccess(deps, adminOf(request), request.params.userId);
      return decided(request.params.userId);
    });

    app.post('/access-requests/:userId/reject', { schema: { params: userParams, body: noteBody } }, async request => {
      await rejectGatewayAccess(deps, adminOf(request), request.params.userId, request.body.note);
      return decided(request.params.userId);
    });

    app.post('/merchants/:userId/deactivate', { schema: { params: userParams, body: noteBody } }, async request => {
      await deactivateGatewayAccess(deps, adminOf(request), request.params.userId, request.body.note);
      return decided(request.params.userId);
    });

    const presentHolding = async () =>
      (await listHoldingAccounts(deps.pool)).map(h => ({
        accountId: h.account_id,
        providerCode: h.provider_code,
        accountName: h.account_name,
        methods: h.methods,
        // false while its provider session needs a relogin; null once the account is deleted
        isActive: h.is_active,
        markedAt: h.marked_at.toISOString(),
      }));

    app.get('/holding-accounts', async () => ({ status: 'success', data: await presentHolding() }));

    app.post('/holding-accounts', { schema: { body: holdingBody } }, async (request, reply) => {
      await markHoldingAccount(deps, adminOf(request), request.body.accountId);
      const marked = (await presentHolding()).find(h => h.accountId === request.body.accountId);
      return reply.code(201).send({ status: 'success', data: marked });
    });

    app.delete('/holding-accounts/:accountId', { schema: { params: accountParams } }, async request => {
      await unmarkHoldingAccount(deps, adminOf(request), request.params.accountId);
      return { status: 'success', data: { accountId: request.params.accountId } };
    });
  };
}
