import type pg from 'pg';
import { handleCommand } from '../store/commands/handle.ts';
import { payment, paymentStream } from '../domain/payments.ts';
import { releasePayable } from '../commands/payments.ts';
import { paymentMethod } from '../domain/payment-methods.ts';
import { duePayments, paymentsProjection } from '../projections/payments.ts';
import type { CommandDeps } from '../commands/deps.ts';
import type { SagaDeps } from '../sagas/all.ts';
import { onTheClock } from './on-the-clock.ts';

export type PaymentExpiryTimer = {
  /** Expires every pending payment whose expiresAt has passed on the clock; answers how many it expired. */
  tick(): Promise<number>;
  stop(): Promise<void>;
};

/**
 * Not a reaction (src/sagas/reaction.ts): nothing is handed an event here; the clock drives it, its work list is a read
 * model's due rows, and a tick answers how many it expired.
 *
 * The durable timer of payments: the due list is the payments read model (pending, expiresAt <= now), so nothing
 * is lost across restarts; the payment's decider expires it only if it is still pending, so a payment that the
 * money completed first stays completed.
 */
export function startPaymentExpiry(
  deps: SagaDeps & { pool: pg.Pool; readModels: CommandDeps['readModels'] },
  options: { tickMs?: number; batch?: number } = {},
): PaymentExpiryTimer {
  const expireDue = async () => {
    // the work list is the payments read model: let it catch up with every payment written so far
    await deps.readModels.waitFor(await deps.store.headPosition(), 5000, [paymentsProjection]);
    let expired = 0;
    for (const { id } of await duePayments(deps.pool, deps.clock.now(), options.batch ?? 500)) {
      const now = deps.clock.now();
      const context = { actor: 'system:payment-expiry', now, correlationId: id };
      const result = await handleCommand(deps, paymentStream(id), payment, { type: 'ExpirePayment', now }, context);
      if (result.state.status !== 'EXPIRED') continue;
      const { receivingAccountId, totalAmount, type, accountNumber } = result.state;
      // a payment whose payer never chose a method (a gateway payment's account, too) holds no bill anywhere
      if (receivingAccountId !== null && totalAmount !== null && type !== null) {
        const vaNumber = paymentMethod(type).va ? accountNumber : null;
        const bill = { accountId: receivingAccountId, paymentId: id, totalAmount, vaNumber };
        await releasePayable(deps, { ...bill, reason: 'expired', now }, context);
      }
      if (result.events.length > 0) expired++;
    }
    return expired;
  };

  return onTheClock(expireDue, options.tickMs ?? 1000, deps.log, 'payment expiry tick');
}
