import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { payWithdrawal, rejectWithdrawal, requestWithdrawal } from '../commands/gateway-withdrawals.ts';
import { refuse } from '../errors.ts';
import { payOutWithdrawal } from '../commands/withdrawal-payout.ts';
import { lastPayoutFailures, type PayoutFailureRow } from '../projections/withdrawal-payouts.ts';
import {
  findGatewayWithdrawal,
  listGatewayWithdrawals,
  type GatewayWithdrawalRow,
} from '../projections/gateway-ledger.ts';
import { presentWithdrawal } from '../projections/withdrawal-presenter.ts';
import { listWithdrawalsAfter } from '../projections/withdrawal-pages.ts';
import { text } from '../text.ts';
import type { AppDeps } from './deps.ts';
import { cursorLimit, cursorPage, pageCursor } from './page-cursor.ts';

/** A withdrawal as a merchant asks for it (the dashboard's JSON route and its page take the same). */
export const withdrawalRequestBody = z.object({
  amount: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  bankCode: text.trim().min(1).max(32),
  accountNumber: text.trim().regex(/^[0-9]{4,34}$/, 'digits only, 4 to 34 of them'),
  accountHolderName: text.trim().min(1).max(100),
});
const withdrawalParams = z.object({ id: z.uuid() });
const requestHeaders = z.object({ 'idempotency-key': text.trim().min(1).max(255).optional() });
const withdrawalStatus = z.enum(['REQUESTED', 'PAID', 'REJECTED']);
const listQuery = z.object({ status: withdrawalStatus.optional() });
const keyListQuery = z.object({
  status: withdrawalStatus.optional(),
  cursor: pageCursor.optional(),
  limit: cursorLimit,
});
/** An admin's reason to pay although the bank named someone other than the requested holder. */
const holderOverride = z
  .object({ reason: text.trim().min(1).max(1000) })
  .describe(
    "Pay although the bank's holder name differs from the requested holder: the admin's reason, kept with the payout",
  );
// the platform account the money left, always named: the ledger books the payout out of that account's cash
const paidBody = z.object({
  reference: text.trim().min(1).max(200),
  holdingAccountId: z.uuid().describe('The platform account the money left (its ledger cash is credited)'),
  holderOverride: holderOverride.optional(),
  transferredAt: z.iso
    .datetime({ offset: true })
    .optional()
    .describe(
      'When the money left the account (ISO 8601 with its offset; not after now): the ledger books the payout then. Absent: now',
    ),
});
// no body: through the payout account, no override
const payBody = z
  .object({
    holdingAccountId: z
      .uuid()
      .optional()
      .describe('The WALLET-A account to pay through: the payout account (absent) or a WALLET-A holding account'),
    holderOverride: holderOverride.optional(),
  })
  .nullish();
const rejectBody = z.object({ note: text.trim().min(1).max(1000) });

/**
 * A merchant asks for a withdrawal in the dashboard: with an Idempotency-Key a repeat finds the first withdrawal and
 * answers as the first request was answered (the same key with another body: 422 IDEMPOTENCY_KEY_REUSED).
 */
async function requested(
  deps: AppDeps,
  merchantId: string,
  body: z.output<typeof withdrawalRequestBody>,
  headers: z.output<typeof requestHeaders>,
) {
  const { minWithdrawal } = deps.config.gateway;
  const { id, holderName, destinationChecked, holderMatches } = await requestWithdrawal(
    deps,
    merchantId,
    body,
    minWithdrawal,
    headers['idempotency-key'],
  );
  return {
    status: 'success',
    data: { id, status: 'REQUESTED' as const, holderName, destinationChecked, holderMatches },
  };
}

/**
 * /api/v1/gateway/withdrawals: the key owner's withdrawals, newest first a page at a time (src/api/page-cursor.ts).
 * Read only: the interface has withdrawals asked for in the dashboard alone, so an API key, which lives on a
 * merchant's server, can never send the balance to a bank account of its choosing.
 */
export function keyWithdrawalRoutes(deps: AppDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();

    app.get('/', { schema: { querystring: keyListQuery } }, async request => {
      const { cursor, limit, status } = request.query;
      const rows = await listWithdrawalsAfter(deps.pool, {
        merchantId: request.owner!.userId,
        status,
        after: cursor,
        limit: limit + 1,
      });
      const page = cursorPage(rows, limit, row => ({ at: row.requested_at, id: row.id }));
      return { status: 'success', data: page.rows.map(presentWithdrawal), pagination: page.pagination };
    });
  };
}

/**
 * A merchant's withdrawals in the dashboard: ask for a payout of part of the available balance, and follow it. Another merchant's withdrawal is as unknown as one that never was.
 */
export function dashboardWithdrawalRoutes(deps: AppDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();

    app.post('/', { schema: { body: withdrawalRequestBody, headers: requestHeaders } }, async (request, reply) =>
      reply.code(201).send(await requested(deps, request.principal!.userId, request.body, request.headers)),
    );

    app.get('/', async request => ({
      status: 'success',
      data: (await listGatewayWithdrawals(deps.pool, { merchantId: request.principal!.userId })).map(presentWithdrawal),
    }));

    app.get('/:id', { schema: { params: withdrawalParams } }, async request => {
      const row = await findGatewayWithdrawal(deps.pool, request.params.id);
      if (!row || row.merchant_id !== request.principal!.userId) throw refuse('WITHDRAWAL_NOT_FOUND');
      return { status: 'success', data: presentWithdrawal(row) };
    });
  };
}

/** Withdrawals in the admin console: the list (by status), payout (by an admin other than the requester) and refusal. */
export function adminWithdrawalRoutes(deps: AppDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();
    const present = (row: GatewayWithdrawalRow, failure: PayoutFailureRow | undefined) => ({
      ...presentWithdrawal(row),
      merchantId: row.merchant_id,
      processedBy: row.processed_by,
      destinationChecked: row.checked_holder_name !== null,
      holderOverride: row.holder_override,
      // the last payout through WALLET-A that left it requested (kept once paid, as its history)
      payoutFailure: failure
        ? {
            transferId: failure.transfer_id,
            outcome: failure.outcome,
            reason: failure.reason,
            at: failure.failed_at.toISOString(),
          }
        : null,
    });
    const presentAll = async (rows: GatewayWithdrawalRow[]) => {
      const failures = await lastPayoutFailures(
        deps.pool,
        rows.map(r => r.id),
      );
      return rows.map(row => present(row, failures.get(row.id)));
    };

    /** The withdrawal as the read model shows it (the command answers once it caught up with the decision). */
    const decided = async (withdrawalId: string) => ({
      status: 'success',
      data: (await presentAll([(await findGatewayWithdrawal(deps.pool, withdrawalId))!]))[0],
    });

    app.get('/', { schema: { querystring: listQuery } }, async request => ({
      status: 'success',
      data: await presentAll(await listGatewayWithdrawals(deps.pool, { status: request.query.status })),
    }));

    // paid from the platform's WALLET-A payout account; a failed or unconfirmed transfer leaves it requested (502)
    app.post('/:id/pay', { schema: { params: withdrawalParams, body: payBody } }, async request => {
      await payOutWithdrawal(deps, request.principal!.userId, request.params.id, {
        holdingAccountId: request.body?.holdingAccountId,
        holderOverride: request.body?.holderOverride,
      });
      return decided(request.params.id);
    });

    app.post('/:id/paid', { schema: { params: withdrawalParams, body: paidBody } }, async request => {
      const { reference, holdingAccountId, holderOverride, transferredAt } = request.body;
      await payWithdrawal(deps, request.principal!.userId, request.params.id, reference, {
        holdingAccountId,
        holderOverride,
        transferredAt: transferredAt === undefined ? undefined : new Date(transferredAt),
      });
      return decided(request.params.id);
    });

    app.post('/:id/reject', { schema: { params: withdrawalParams, body: rejectBody } }, async request => {
      await rejectWithdrawal(deps, request.principal!.userId, request.params.id, request.body.note);
      return decided(request.params.id);
    });
  };
}
