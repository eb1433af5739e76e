import { DomainError, InvalidInput, NotFound } from '../errors.ts';
import { findProvider, type PaymentType } from '../providers/catalogue.ts';
import { account, accountStream, type LinkedAccount } from './account.ts';
import { handleCommand, load, type CommandContext } from './handle.ts';
import { billOf, payTo, reservePayable, reservations, typeFor } from './pay-to.ts';
import { choiceRefusal, payment, paymentStream, type Payment } from './payment.ts';
import { findPayable, receiving, receivingStream } from './receiving.ts';
import type { SyncDeps } from './sync-account.ts';

/**
 * Makes the bill of a payment of `type`: where to pay (payTo), then a payable amount unique on the receiving account
 * (a unique code, or the virtual account's own number) held until the payment expires.
 */
async function bill(
  deps: SyncDeps,
  linked: LinkedAccount,
  type: PaymentType,
  payment: { paymentId: string; amount: number; expiresAt: Date; now: Date },
  context: CommandContext,
) {
  const where = await payTo(deps, linked, type, context);
  const reserved = await reservations(linked.accountId, () =>
    handleCommand(deps, receivingStream(linked.accountId), receiving, reservePayable(linked, where, payment), { ...context, attempts: 20 }),
  );
  const payable = findPayable(reserved.state, payment.paymentId);
  if (!payable) throw new DomainError(503, 'UNAVAILABLE', 'The payable amount lapsed before the payment was recorded; try again');
  return { type, ...billOf(where, payable) };
}

/**
 * The payer's choice on the payment page of a payment created without a type: one of the receiving provider's
 * types, billed then (unique code or VA number, QR). Choosing the same type again answers the same bill.
 */
export async function choosePaymentMethod(deps: SyncDeps, paymentId: string, asked: string): Promise<Exclude<Payment, { status: 'NONE' }>> {
  const current = (await load(deps, paymentStream(paymentId), payment)).state;
  if (current.status === 'NONE') throw new NotFound('Payment not found', 'PAYMENT_NOT_FOUND');
  if (current.status === 'PENDING' && current.type !== null && current.type === asked) return current;
  const context: CommandContext = { actor: 'payer', now: deps.clock.now(), correlationId: paymentId };
  const linked = (await load(deps, accountStream(current.receivingAccountId), account)).state;
  const provider = linked.status === 'linked' ? findProvider(linked.providerCode) : undefined;
  if (linked.status !== 'linked' || !provider) throw new InvalidInput('The receiving account of this payment is gone', [], 'ACCOUNT_NOT_FOUND');
  const type = typeFor(provider, asked)!;
  const refusal = choiceRefusal(current, deps.clock.now());
  if (refusal) throw refusal;
  if (!linked.isActive) throw new InvalidInput('The receiving account is inactive: relogin needed', [], 'ACCOUNT_INACTIVE');
  const billed = await bill(deps, linked, type, { paymentId, amount: current.amount, expiresAt: new Date(current.expiresAt), now: deps.clock.now() }, context);
  const chosen = await handleCommand(deps, paymentStream(paymentId), payment, { type: 'ChoosePaymentMethod', method: billed, now: deps.clock.now() }, context);
  // the page reloads right after: let the payments read model show the bill
  await deps.readModels.waitFor(chosen.position, undefined, ['payments']);
  return chosen.state as Exclude<Payment, { status: 'NONE' }>;
}

