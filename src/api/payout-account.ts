import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { choosePayoutAccount, currentPayoutAccount } from '../commands/payout-account.ts';
import { findOwnedAccount } from '../projections/accounts.ts';
import type { AppDeps } from './deps.ts';

const chooseBody = z.object({ accountId: z.uuid() });

/** The platform's WALLET-A account withdrawals are paid from: one of the admin's own linked accounts. */
export function adminPayoutAccountRoutes(deps: AppDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();

    const presentChosen = async () => {
      const chosen = await currentPayoutAccount(deps);
      if (!chosen) return null;
      const row = await findOwnedAccount(deps.pool, chosen.ownerId, chosen.accountId);
      // isActive false: its provider session needs a relogin before it can pay; null once the account is deleted
      return {
        accountId: chosen.accountId,
        ownerId: chosen.ownerId,
        accountName: row?.account_name ?? null,
        balance: row?.balance ?? null,
        isActive: row?.is_active ?? null,
      };
    };

    app.get('/', async () => ({ status: 'success', data: await presentChosen() }));

    app.post('/', { schema: { body: chooseBody } }, async request => {
      await choosePayoutAccount(deps, request.principal!.userId, request.body.accountId);
      return { status: 'success', data: await presentChosen() };
    });
  };
}
