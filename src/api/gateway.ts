import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { changeGatewayFeeMode, requestGatewayAccess } from '../commands/gateway-access-decisions.ts';
import type { GatewaySettings } from '../config.ts';
import type { Queryable } from '../db/pool.ts';
import { paymentMethodOf } from '../domain/payment-methods.ts';
import { findGatewayBalance } from '../projections/gateway-ledger.ts';
import { findGatewayAccess, servedGatewayMethods, type GatewayAccessRow } from '../projections/gateway-access.ts';
import { text } from '../text.ts';
import type { AppDeps } from './deps.ts';

/** How a method is named to merchants: QRIS, or the virtual account's bank (src/domain/payment-methods.ts). */
export const methodLabel = (type: string) => paymentMethodOf(type)?.merchantLabel ?? type;

function presentAccess(row: GatewayAccessRow | null) {
  return {
    status: row?.status ?? 'NONE',
    note: row?.note ?? null,
    // the access came to be with its first request; a later request after a rejection moves requestedAt only
    createdAt: row?.created_at?.toISOString() ?? null,
    requestedAt: row?.requested_at?.toISOString() ?? null,
    processedAt: row?.processed_at?.toISOString() ?? null,
    feeToCustomer: row?.fee_to_customer ?? false,
  };
}

/** The interface's Gateway information for one merchant, from the read models. */
export async function gatewayInformation(db: Queryable, settings: GatewaySettings, merchantId: string) {
  const access = await findGatewayAccess(db, merchantId);
  const approved = access?.status === 'APPROVED';
  const methods = approved ? await servedGatewayMethods(db) : [];
  return {
    access: presentAccess(access),
    walletAccountId: 'GATEWAY',
    methods: methods.map(value => ({ value, label: methodLabel(value) })),
    balance: await findGatewayBalance(db, merchantId),
    fee: settings.vaFee,
    qrisFee: { rate: settings.qrisFee.rateBp / 10_000, flat: settings.qrisFee.flat },
    minWithdrawal: settings.minWithdrawal,
    row: access,
  };
}

const information = async (deps: AppDeps, merchantId: string) => {
  const { row: _row, ...info } = await gatewayInformation(deps.pool, deps.config.gateway, merchantId);
  return info;
};

/** GET /api/v1/gateway: the key owner's access, the methods served now, balances and the numbers. */
export function gatewayRoutes(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    app.get('/', async request => ({ status: 'success', data: await information(deps, request.owner!.userId) }));
  };
}

const optionalText = (max: number) =>
  text
    .trim()
    .max(max)
    .optional()
    .transform(v => (v ? v : null));
/** The business data of an access request (the dashboard's JSON route and its page take the same). */
export const accessRequestBody = z.object({
  businessName: text.trim().min(1).max(200),
  businessType: text.trim().min(1).max(100),
  phone: text.trim().regex(/^\+?[0-9][0-9 -]{5,19}$/, 'a phone number'),
  address: text.trim().min(1).max(500),
  website: optionalText(2000).pipe(z.url({ protocol: /^https?$/, error: 'an http or https URL' }).nullable()),
  description: optionalText(2000),
});
const settingsBody = z.object({ feeToCustomer: z.boolean() });

/**
 * The merchant's gateway in the dashboard: what /api/v1/gateway shows plus the request, the access request (NONE or
 * REJECTED -> PENDING, else 409) and the fee mode.
 */
export function dashboardGatewayRoutes(deps: AppDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();

    app.get('/', async request => {
      const { row, ...info } = await gatewayInformation(deps.pool, deps.config.gateway, request.principal!.userId);
      return { status: 'success', data: { ...info, request: row?.business ?? null } };
    });

    app.post('/access-request', { schema: { body: accessRequestBody } }, async (request, reply) => {
      const userId = request.principal!.userId;
      await requestGatewayAccess(deps, userId, request.body);
      return reply
        .code(201)
        .send({ status: 'success', data: presentAccess(await findGatewayAccess(deps.pool, userId)) });
    });

    app.patch('/settings', { schema: { body: settingsBody } }, async request => {
      const userId = request.principal!.userId;
      await changeGatewayFeeMode(deps, userId, request.body.feeToCustomer);
      return { status: 'success', data: presentAccess(await findGatewayAccess(deps.pool, userId)) };
    });
  };
}
