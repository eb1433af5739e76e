import { randomUUID } from 'node:crypto';
import { refuse } from '../errors.ts';
import { findProvider, type PaymentType } from '../providers/catalogue.ts';
import { deterministicUuid, requestFingerprint } from '../ids.ts';
import { account, accountStream, type Account } from '../domain/account.ts';
import type { GatewaySettings } from '../config.ts';
import { gatewayBill } from '../domain/gateway-fees.ts';
import type { Credit } from '../domain/payments-payables.ts';
import { payableClaim, payableClaimStream } from '../domain/payments-payable-claims.ts';
import {
  billRelease,
  payableFor,
  receiving,
  receivingStream,
  type HeldBill,
  type Payable,
} from '../domain/payments-receiving.ts';
import { handleStreams, streamRead } from '../store/commands/handle-streams.ts';
import {
  checkedState,
  handleCommand,
  load,
  nothingLoaded,
  type CommandContext,
  type EventSourcing,
} from '../store/commands/handle.ts';
import { createGatewayPayment, gatewayMethodFor, intoHoldingAccount } from './gateway-payment.ts';
import { payTo, typeFor } from './payments-pay-to.ts';
import { order } from '../domain/payments-order.ts';
import { choiceRefusal, payment, paymentStream, type ChosenMethod, type Payment } from '../domain/payments.ts';
import { recordPayment, type NewPayment, type Receiver } from './payments-record.ts';
import { reserveBill } from './payments-bills.ts';
import type { CommandDeps } from './deps.ts';
import { paymentsProjection } from '../projections/payments.ts';

/**
 * The payments capability's workflows, as the routes, the sagas and the timers call them: a payment created
 * (createPayment), its method chosen on the payment page (choosePaymentMethod), the payable a synchronised credit pays
 * (matchPayable) and what an ended payment held freed (releasePayable). Its parts: recording a payment
 * (payments-record.ts), where to pay (payments-pay-to.ts), reserving a bill (payments-bills.ts).
 */

/** Payment lifetime when the caller gives none. */
export const defaultExpiresInMinutes = 60;

const accountNotFound = () => refuse('ACCOUNT_NOT_FOUND', { message: 'walletAccountId account not found' });

/** What the request asked for, whatever its key order: the same Idempotency-Key must come with the same request. */
export function requestHashOf(input: NewPayment): string {
  const { amount, walletAccountId, redirectUrl, orderId, type, expiresInMinutes } = input;
  return requestFingerprint([amount, walletAccountId, redirectUrl, orderId, type ?? null, expiresInMinutes ?? null]);
}

/** A payment this request already created (same Idempotency-Key): the same request answers it again. */
function replayOf(existing: Payment, requestHash: string | null): string {
  if (existing.status === 'NONE') throw new Error('the payment was not recorded');
  if (existing.requestHash !== requestHash) throw refuse('IDEMPOTENCY_KEY_REUSED');
  return existing.paymentId;
}

/** The caller's linked account that takes the payment, and the payment type it takes; else 404 or 400. */
function receivingAccount(state: Account, ownerId: string, asked: string | undefined) {
  if (state.status !== 'linked' || state.ownerId !== ownerId) throw accountNotFound();
  const provider = findProvider(state.providerCode);
  if (!provider) throw accountNotFound();
  const type = typeFor(provider, asked);
  if (!state.isActive)
    throw refuse('ACCOUNT_INACTIVE', { message: 'The receiving account is inactive: relogin needed' });
  return { linked: state, type };
}

/**
 * Creates a payment into one of the caller's linked accounts, or through the payment gateway (walletAccountId
 * GATEWAY: src/commands/gateway-payment.ts): checks the account and type, prepares where to pay, then records it
 * (recordPayment). With an Idempotency-Key the payment id is derived from it, so a repeat answers the first payment.
 */
export async function createPayment(
  deps: CommandDeps,
  ownerId: string,
  input: NewPayment,
  gatewaySettings: GatewaySettings,
): Promise<{ paymentId: string; payment: Exclude<Payment, { status: 'NONE' }> }> {
  // only a request with an Idempotency-Key can be repeated: only its body is compared with a repeat's
  const requestHash = input.idempotencyKey ? requestHashOf(input) : null;
  const paymentId = input.idempotencyKey
    ? deterministicUuid(`payment:${ownerId}:${input.idempotencyKey}`)
    : randomUUID();
  const now = deps.clock.now(); // the one instant of this request: the payment, its expiry and its events
  const context: CommandContext = { actor: `user:${ownerId}`, now, correlationId: paymentId };
  // a random id has no stream yet; a key's id may have one already
  const paymentLoaded = input.idempotencyKey
    ? await load(deps, paymentStream(paymentId), payment)
    : nothingLoaded(payment);
  if (paymentLoaded.state.status !== 'NONE')
    return { paymentId: replayOf(paymentLoaded.state, requestHash), payment: paymentLoaded.state };

  const expiresAt = new Date(now.getTime() + (input.expiresInMinutes ?? defaultExpiresInMinutes) * 60_000);
  const request = { paymentId, ownerId, input, requestHash, paymentLoaded, context, now, expiresAt };
  let created: Payment;
  if (input.walletAccountId === 'GATEWAY') {
    created = await createGatewayPayment(deps, request, gatewaySettings);
  } else {
    const accountId = accountStream(input.walletAccountId);
    const { linked, type } = receivingAccount(await checkedState(deps, accountId, account), ownerId, input.type);
    const where = type === null ? null : await payTo(deps, linked, type, context);
    const recheck = (state: Account) => void receivingAccount(state, ownerId, input.type);
    created = await recordPayment(deps, { ...request, type }, { linked, where, recheck }, null);
  }
  // ours, or a twin's with the same Idempotency-Key: the same request answers it, another body is refused
  // no wait for the read model here: a read that follows (status, page, QR image) waits for it (paymentRow)
  return { paymentId: replayOf(created, requestHash), payment: created as Exclude<Payment, { status: 'NONE' }> };
}

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
  return reserveBill(linked, where, bill, async reservation => {
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

/** The payable a synchronised credit pays on the account (payableFor says in which order), read from its two streams. */
export async function matchPayable(deps: EventSourcing, accountId: string, credit: Credit): Promise<Payable | null> {
  const onReceiving = (await load(deps, receivingStream(accountId), receiving)).state;
  const claim = (await load(deps, payableClaimStream(accountId, credit.amount), payableClaim)).state;
  return payableFor(credit, onReceiving, claim);
}

/** Frees the bill a payment that ended held, where it is held (billRelease): its total's claim, or its number. */
export async function releasePayable(
  deps: EventSourcing,
  ended: HeldBill & { reason: 'completed' | 'expired'; now: Date },
  context: CommandContext,
): Promise<void> {
  const release = billRelease(ended, ended.reason, ended.now);
  if (release === null) return;
  if (release.on === 'claim') await handleCommand(deps, release.streamId, payableClaim, release.command, context);
  else await handleCommand(deps, release.streamId, receiving, release.command, context);
}
