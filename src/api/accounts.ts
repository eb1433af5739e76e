import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { linkAccount } from '../commands/link-account.ts';
import { sendOtpLoginCode, verifyOtpLoginCode } from '../commands/otp-login-steps.ts';
import { changeAccount, deleteAccount, refreshAccount } from '../commands/manage-account.ts';
import { refuse } from '../errors.ts';
import { findOwnedAccount, listAccounts } from '../projections/accounts.ts';
import { text } from '../text.ts';
import type { AppDeps } from './deps.ts';
import {
  isOtpAction,
  isVerifyAction,
  otpSendInputOf,
  otpSentAnswer,
  otpVerifiedAnswer,
  otpVerifyInputOf,
  walletOfSendAction,
  type OtpSendLimits,
} from './otp-flows.ts';
import { parseBody } from './validation.ts';
import { pagination, presentAccount } from './presenters.ts';
import { pageNumber, pageSize } from './query-params.ts';

const interval = z.int().min(5).max(1440);
const label = text.trim().min(1).max(100);
const digits = text.trim().regex(/^[0-9]{4,20}$/, 'digits only');
const phone = text.trim().regex(/^\+?[0-9]{8,15}$/, 'a phone number');

/** A new account's fields as the route checks them; the document says them too (src/api/schemas/accounts.ts). */
export const createBody = z.object({
  type: z.enum(['bank', 'ewallet']),
  providerCode: text.trim().min(1).max(40),
  accountName: label,
  intervalMinutes: interval,
  accountNumber: digits.optional(),
  username: text.min(1).max(100).optional(),
  password: text.min(1).max(200).optional(),
  phoneNumber: phone.optional(),
  pin: text.regex(/^[0-9]{6}$/, '6 digits').optional(),
});

const listQuery = z.object({
  type: z.enum(['bank', 'ewallet']).optional(),
  isActive: z
    .enum(['true', 'false'])
    .transform(v => v === 'true')
    .optional(),
  providerCode: text.max(40).optional(),
  search: text.max(100).optional(),
  page: pageNumber,
  limit: pageSize(10),
});

const patchBody = z
  .object({
    accountName: label,
    intervalMinutes: interval,
    username: text.min(1).max(100),
    password: text.min(1).max(200),
  })
  .partial()
  .strict()
  .refine(b => Object.keys(b).length > 0, 'nothing to change');

const idParams = z.object({ id: z.uuid() });

/** Create (no action) or one step of an e-wallet OTP login (action): the body is parsed once the action is known. */
const postBody = z.looseObject({ action: text.max(60).optional() });

/** An account of the owner's as the API presents it; another's is not found. */
async function ownedAccount(deps: AppDeps, ownerId: string, accountId: string) {
  const row = await findOwnedAccount(deps.pool, ownerId, accountId);
  if (!row) throw refuse('ACCOUNT_NOT_FOUND');
  return presentAccount(row);
}

/** A wallet linked by OTP instead: which action starts it, and the fields it asks. */
function specialFlowAnswer(provider: { providerCode: string; name: string }) {
  const code = provider.providerCode === 'WALLET-B' ? 'wallet-b' : 'wallet-c';
  return {
    status: 'special_flow',
    nextAction: {
      action: `${code}-send-otp`,
      message: `${provider.name} is linked by OTP: POST /api/v1/accounts with action ${code}-send-otp, then ${code}-verify-otp`,
      fields: ['phoneNumber', 'providerCode', 'accountName', 'intervalMinutes'],
    },
  };
}

/** /api/v1/accounts: link, list, read, change, delete and refresh; every id is scoped to the key's owner. */
export function accountRoutes(deps: AppDeps, sendLimits: OtpSendLimits) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();

    const presentOwned = (ownerId: string, accountId: string) => ownedAccount(deps, ownerId, accountId);

    app.post('/', { schema: { body: postBody }, preHandler: sendLimits.refuseSpent }, async (request, reply) => {
      const { userId } = request.owner!;
      const { action } = request.body;
      if (action !== undefined) {
        if (!isOtpAction(action))
          throw refuse('VALIDATION_ERROR', {
            message: `Unknown action ${action}`,
            errors: [{ path: 'body.action', message: 'unknown action' }],
          });
        if (isVerifyAction(action))
          return otpVerifiedAnswer(
            await verifyOtpLoginCode(deps, deps.config.otp, userId, otpVerifyInputOf(action, request.body)),
          );
        const input = otpSendInputOf(walletOfSendAction(action), request.body);
        return otpSentAnswer(
          input,
          await sendOtpLoginCode(deps, deps.config.otp, userId, input, () => sendLimits.count(request, reply)),
        );
      }
      const outcome = await linkAccount(deps, userId, parseBody(createBody, request.body));
      if (outcome.kind === 'special-flow') return specialFlowAnswer(outcome.provider);
      return { status: 'success', accountId: outcome.accountId, data: await presentOwned(userId, outcome.accountId) };
    });

    app.get('/', { schema: { querystring: listQuery } }, async request => {
      const q = request.query;
      const { rows, total } = await listAccounts(deps.pool, { ownerId: request.owner!.userId, ...q });
      return { status: 'success', data: rows.map(presentAccount), pagination: pagination(total, q.page, q.limit) };
    });

    app.get('/:id', { schema: { params: idParams } }, async request => ({
      status: 'success',
      data: await presentOwned(request.owner!.userId, request.params.id),
    }));

    app.patch('/:id', { schema: { params: idParams, body: patchBody } }, async request => {
      await changeAccount(deps, request.owner!.userId, request.params.id, request.body);
      return { status: 'success', data: await presentOwned(request.owner!.userId, request.params.id) };
    });

    app.delete('/:id', { schema: { params: idParams } }, async request => {
      await deleteAccount(deps, request.owner!.userId, request.params.id);
      return { status: 'success', data: { id: request.params.id, deleted: true } };
    });

    app.get('/:id/refresh', { schema: { params: idParams } }, async request => {
      const outcome = await refreshAccount(deps, request.owner!.userId, request.params.id);
      return { status: 'success', outcome, data: await presentOwned(request.owner!.userId, request.params.id) };
    });
  };
}
