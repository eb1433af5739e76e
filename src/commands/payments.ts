import { randomUUID } from 'node:crypto';
import { refuse } from '../errors.ts';
import { findProvider, type PaymentType } from '../providers/catalogue.ts';
import { deterministicUuid, requestFingerprint } from '../ids.ts';
import { account, accountStream, type Account } from '../domain/account.ts';
import type { GatewaySettings } from '../config.ts';
import { checkedState, load, nothingLoaded, type CommandContext } from '../store/commands/handle.ts';
import { createGatewayPayment } from './gateway-payment.ts';
import { payTo, typeFor } from './payments-pay-to.ts';
import { order } from '../domain/payments-order.ts';
import { payment, paymentStream, type Payment } from '../domain/payments.ts';
import { recordPayment, type NewPayment } from './payments-record.ts';
import { receiving } from '../domain/payments-receiving.ts';
import type { CommandDeps } from './deps.ts';

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
