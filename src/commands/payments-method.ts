import type { GatewaySettings } from '../config.ts';
import { refuse } from '../errors.ts';
import { findProvider, type PaymentType } from '../providers/catalogue.ts';
import { account, accountStream, type Account } from '../domain/account.ts';
import type { Receiver } from './payments-record.ts';
import { gatewayBill } from '../domain/gateway-fees.ts';
import { gatewayMethodFor, intoHoldingAccount } from './gateway-payment.ts';
import { handleStreams, streamRead } from '../store/commands/handle-streams.ts';
import { load, type CommandContext } from '../store/commands/handle.ts';
import { payTo, typeFor } from './payments-pay-to.ts';
import { choiceRefusal, payment, paymentStream, type ChosenMethod, type Payment } from '../domain/payments.ts';
import { reserveBill } from './payments-bills.ts';
import type { CommandDeps } from './deps.ts';
import { paymentsProjection } from '../projections/payments.ts';

type PendingPayment = Extract<Payment, { status: 'PENDING' }>;

/** The payment's receiving account, still linked and active; else 400. */
function receivingOf(state: Account) {
  const provider = state.status === 'linked' ? findProvider(state.providerCode) : undefined;
  if (state.status !== 'linked' || !provider) throw refuse('RECEIVING_ACCOUNT_GONE');
  if (!state.isActive)
    throw refuse('ACCOUNT_INACTIVE', { message: 'The receiving account is inactive: relogin needed' });
  return { linked: state, provider };
}

/**
 * Records the payer's choice in one append: the bill reserved where the receiving account takes it (a unique code, at
 * most `highestCode` for a gateway bill, or the virtual account's own number: reserveBill) and the chosen method,
 * guarded on the account as checked.
 */
function recordChoice(
  deps: CommandDeps,
  current: PendingPayment,
  type: PaymentType,
  receiver: Receiver & { where: NonNullable<Receiver['where']> },
  gateway: { chosen: ChosenMethod['gateway']; highestCode: number | null } | null,
  context: CommandContext,
): Promise<Payment> {
  const { linked, where } = receiver;
  const now = context.now;
  const amount = gateway?.chosen?.amount ?? current.amount;
  const bill = {
    paymentId: current.paymentId,
    amount,
    expiresAt: new Date(current.expiresAt),
    now,
    highestCode: gateway?.highestCode,
  };
  return reserveBill(deps, linked, where, bill, async reservation => {
    const reads = {
      account: streamRead(accountStream(linked.accountId), account),
      bill: reservation.read,
      payment: streamRead(paymentStream(current.paymentId), payment),
    };
    const chosen = await handleStreams(
      deps,
      reads,
      loaded => {
        const state = loaded.payment.state;
        if (state.status === 'PENDING' && state.type === type) return { append: {}, result: null }; // chosen meanwhile, the same
        const refused = choiceRefusal(state, now);
        if (refused) throw refused;
        receiver.recheck(loaded.account.state); // deleted or deactivated since: refused now
        const reserved = reservation.reserve(loaded.bill.state);
        const method = payment.decide(state, {
          type: 'ChoosePaymentMethod',
          method: { type, ...reserved.bill, gateway: gateway?.chosen ?? null },
          now,
        });
        return { append: { bill: reserved.events, payment: method }, guard: ['account'], result: null };
      },
      context,
    );
    // the page reloads right after: let the payments read model show the bill
    await deps.readModels.waitFor(chosen.position, undefined, [paymentsProjection]);
    return chosen.states.payment;
  });
}

/**
 * The payer's choice on the payment page of a payment created without a type, billed then: one of the receiving
 * provider's types, or for a gateway payment one of the methods the holding accounts serve, which fixes the holding
 * account and the bill (the fee, raised for the buyer when the merchant chose so). Choosing the same type again
 * answers the same bill.
 */
export async function choosePaymentMethod(
  deps: CommandDeps,
  paymentId: string,
  asked: string,
  settings: GatewaySettings,
): Promise<Exclude<Payment, { status: 'NONE' }>> {
  const current = (await load(deps, paymentStream(paymentId), payment)).state;
  if (current.status === 'NONE') throw refuse('PAYMENT_NOT_FOUND');
  if (current.status === 'PENDING' && current.type !== null && current.type === asked) return current;
  const context: CommandContext = { actor: 'payer', now: deps.clock.now(), correlationId: paymentId };
  const refusal = choiceRefusal(current, context.now);
  if (refusal || current.status !== 'PENDING') throw refusal;
  let chosen: Payment;
  if (current.gateway) {
    const type = gatewayMethodFor(asked);
    const bill = gatewayBill(type, current.gateway.baseAmount, current.gateway.feeToCustomer, settings);
    const { amount, fee, highestCode } = bill;
    chosen = await intoHoldingAccount(deps, type, context, receiver => {
      const { accountId: receivingAccountId, providerCode } = receiver.linked;
      const gateway = { chosen: { receivingAccountId, providerCode, amount, fee }, highestCode };
      return recordChoice(deps, current, type, { ...receiver, where: receiver.where! }, gateway, context);
    });
  } else {
    const { linked, provider } = receivingOf(
      (await load(deps, accountStream(current.receivingAccountId!), account)).state,
    );
    const type = typeFor(provider, asked)!;
    const where = await payTo(deps, linked, type, context);
    chosen = await recordChoice(
      deps,
      current,
      type,
      { linked, where, recheck: state => void receivingOf(state) },
      null,
      context,
    );
  }
  return chosen as Exclude<Payment, { status: 'NONE' }>;
}
