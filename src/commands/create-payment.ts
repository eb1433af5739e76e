import { createHash, randomUUID } from 'node:crypto';
import { DomainError, Forbidden, InvalidInput, NotFound, Unprocessable } from '../errors.ts';
import { findProvider, type PaymentType } from '../providers/catalogue.ts';
import { deterministicUuid } from '../sagas/event-id.ts';
import { account, accountStream, type Account, type LinkedAccount } from './account.ts';
import { StreamDeleted, WrongExpectedRevision } from '../store/event-store.ts';
import { handleCommandsTogether, streamCommand, type StreamCommand } from './handle-together.ts';
import { cachedState, load, nothingLoaded, type CommandContext } from './handle.ts';
import { billOf, payTo, reservePayable, reservations, typeFor } from './pay-to.ts';
import { order, orderStream } from './order.ts';
import { payment, paymentStream, type ChosenMethod, type Payment, type PaymentDetails } from './payment.ts';
import { findPayable, receiving, receivingStream } from './receiving.ts';
import type { SyncDeps } from './sync-account.ts';

export type NewPayment = {
  amount: number;
  walletAccountId: string;
  redirectUrl: string;
  orderId: string;
  type?: string | undefined;
  expiresInMinutes?: number | undefined;
  idempotencyKey?: string | undefined;
};

/** Payment lifetime when the caller gives none (DESIGN section 4). */
export const defaultExpiresInMinutes = 60;

const accountNotFound = () => new NotFound('walletAccountId account not found', 'ACCOUNT_NOT_FOUND');

/** What the request asked for, whatever its key order: the same Idempotency-Key must come with the same request. */
export function requestHashOf(input: NewPayment): string {
  const { amount, walletAccountId, redirectUrl, orderId, type, expiresInMinutes } = input;
  const canonical = JSON.stringify([amount, walletAccountId, redirectUrl, orderId, type ?? null, expiresInMinutes ?? null]);
  return createHash('sha256').update(canonical).digest('hex');
}

/** A payment this request already created (same Idempotency-Key): the same request answers it again. */
function replayOf(existing: Payment, requestHash: string | null): string {
  if (existing.status === 'NONE') throw new Error('not a payment');
  if (existing.requestHash !== requestHash)
    throw new Unprocessable('This Idempotency-Key was used with another request body', 'IDEMPOTENCY_KEY_REUSED');
  return existing.paymentId;
}

/** Whether the payment an order opened before still waits for money. */
async function stillPending(deps: SyncDeps, paymentId: string, openedAt: string, now: Date): Promise<boolean> {
  const previous = (await load(deps, paymentStream(paymentId), payment)).state;
  if (previous.status === 'NONE') return now.getTime() - Date.parse(openedAt) < 60_000; // its create may be in flight
  return previous.status === 'PENDING' && now.toISOString() < previous.expiresAt;
}

/** The caller's linked account that takes the payment, and the payment type it takes; else 404 or 400. */
function receivingAccount(state: Account, ownerId: string, asked: string | undefined) {
  if (state.status !== 'linked' || state.ownerId !== ownerId) throw accountNotFound();
  const provider = findProvider(state.providerCode);
  if (!provider) throw accountNotFound();
  const type = typeFor(provider, asked);
  if (!state.isActive) throw new InvalidInput('The receiving account is inactive: relogin needed', [], 'ACCOUNT_INACTIVE');
  return { linked: state, type };
}

/** The payment as created: billed when its type is known, else waiting for the payer's choice. */
function paymentDetails(
  p: { paymentId: string; ownerId: string; input: NewPayment; linked: LinkedAccount; type: PaymentType | null; requestHash: string | null; now: Date; expiresAt: Date },
  billed: Omit<ChosenMethod, 'paymentId' | 'chosenAt' | 'type'> | null,
): PaymentDetails {
  return {
    paymentId: p.paymentId,
    ownerId: p.ownerId,
    orderId: p.input.orderId,
    receivingAccountId: p.linked.accountId,
    providerCode: p.linked.providerCode,
    type: p.type,
    methodSelection: p.type === null ? 'payer' : 'fixed',
    amount: p.input.amount,
    uniqueCode: billed?.uniqueCode ?? null,
    totalAmount: billed?.totalAmount ?? null,
    accountNumber: billed?.accountNumber ?? null,
    qrisPayload: billed?.qrisPayload ?? null,
    redirectUrl: p.input.redirectUrl,
    expiresAt: p.expiresAt.toISOString(),
    createdAt: p.now.toISOString(),
    requestHash: p.requestHash,
  };
}

/**
 * Creates a payment into one of the caller's linked accounts: checks the account and type, claims the order
 * (one pending payment per orderId), prepares where to pay, reserves a payable amount unique on that account,
 * and records the payment. With an Idempotency-Key the payment id is derived from it, so a repeat answers
 * the first payment.
 */
export async function createPayment(
  deps: SyncDeps,
  ownerId: string,
  input: NewPayment,
): Promise<{ paymentId: string; payment: Exclude<Payment, { status: 'NONE' }> }> {
  if (input.walletAccountId === 'GATEWAY') throw new Forbidden('Gateway access is not approved for this account', 'GATEWAY_NOT_APPROVED');
  // only a request with an Idempotency-Key can be repeated: only its body is compared with a repeat's
  const requestHash = input.idempotencyKey ? requestHashOf(input) : null;
  const paymentId = input.idempotencyKey ? deterministicUuid(`payment:${ownerId}:${input.idempotencyKey}`) : randomUUID();
  const context: CommandContext = { actor: `user:${ownerId}`, now: deps.clock.now(), correlationId: paymentId };
  // a random id has no stream yet; a key's id may have one already
  let paymentLoaded = nothingLoaded(payment);
  if (input.idempotencyKey) {
    paymentLoaded = await load(deps, paymentStream(paymentId), payment);
    const existing = paymentLoaded.state;
    if (existing.status !== 'NONE') return { paymentId: replayOf(existing, requestHash), payment: existing };
  }

  const accountId = accountStream(input.walletAccountId);
  let accountLoaded = cachedState(deps, accountId, account) ?? (await load(deps, accountId, account));
  const { linked, type } = receivingAccount(accountLoaded.state, ownerId, input.type);
  const where = type === null ? null : await payTo(deps, linked, type, context);
  // payTo may have captured the account's static QRIS: what it left is what the append is guarded on
  accountLoaded = cachedState(deps, accountId, account) ?? accountLoaded;

  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + (input.expiresInMinutes ?? defaultExpiresInMinutes) * 60_000);
  const orderId = orderStream(ownerId, input.orderId);
  const receivingId = receivingStream(linked.accountId);
  let orderLoaded = cachedState(deps, orderId, order) ?? nothingLoaded(order);
  let receivingStale = false;
  let created: { state: Payment } | undefined;
  for (let attempt = 1; !created; attempt++) {
    const previous = orderLoaded.state.paymentId;
    const previousStillPending = previous !== null && previous !== paymentId && (await stillPending(deps, previous, orderLoaded.state.openedAt!, now));
    const opened = order.decide(orderLoaded.state, { type: 'OpenOrderPayment', ownerId, orderId: input.orderId, paymentId, previousStillPending, now });
    // the order, the payable amount and the payment in one append, guarded on the account as decided on
    const createTogether = async () => {
      const parts: StreamCommand[] = [streamCommand(deps, orderId, order, orderLoaded, opened)];
      let payable: { uniqueCode: number; totalAmount: number } | null = null;
      if (type !== null && where !== null) {
        const receivingLoaded = (!receivingStale && cachedState(deps, receivingId, receiving)) || (await load(deps, receivingId, receiving));
        const reserved = receiving.decide(receivingLoaded.state, reservePayable(linked, where, { paymentId, amount: input.amount, expiresAt, now }));
        payable = reserved[0]?.type === 'PayableReserved' ? reserved[0].data : findPayable(receivingLoaded.state, paymentId) ?? null;
        if (!payable) throw new DomainError(503, 'UNAVAILABLE', 'The payable amount lapsed before the payment was recorded; try again');
        parts.push(streamCommand(deps, receivingId, receiving, receivingLoaded, reserved));
      }
      const details = paymentDetails({ paymentId, ownerId, input, linked, type, requestHash, now, expiresAt }, payable && where && billOf(where, payable));
      const createdEvents = payment.decide(paymentLoaded.state, { type: 'CreatePayment', payment: details });
      parts.push(streamCommand(deps, paymentStream(paymentId), payment, paymentLoaded, createdEvents));
      const done = await handleCommandsTogether(deps, parts, [{ streamId: accountId, revision: accountLoaded.revision }], context);
      return { state: done.states.at(-1) as Payment };
    };
    try {
      // reservations on one receiving account from this process go one at a time instead of racing into retries
      created = type === null ? await createTogether() : await reservations(linked.accountId, createTogether);
    } catch (err) {
      if (!(err instanceof WrongExpectedRevision || err instanceof StreamDeleted) || attempt >= 5) throw err;
      // someone wrote one of the streams since it was loaded: load that one again and decide again
      if (err.streamId === accountId) {
        accountLoaded = await load(deps, accountId, account);
        receivingAccount(accountLoaded.state, ownerId, input.type); // deleted or deactivated meanwhile: refused now
      } else if (err.streamId === orderId) orderLoaded = await load(deps, orderId, order);
      else if (err.streamId === receivingId) receivingStale = true;
      else paymentLoaded = await load(deps, paymentStream(paymentId), payment); // a twin with the same Idempotency-Key
      if (paymentLoaded.state.status !== 'NONE') return { paymentId: replayOf(paymentLoaded.state, requestHash), payment: paymentLoaded.state };
    }
  }
  // no wait for the read model: what reads a payment next (status, page, QR image) falls back to its stream
  return { paymentId, payment: created.state as Exclude<Payment, { status: 'NONE' }> };
}
