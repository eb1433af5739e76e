import { createHash, randomUUID } from 'node:crypto';
import { refuse } from '../errors.ts';
import { findProvider, type PaymentType } from '../providers/catalogue.ts';
import { deterministicUuid } from '../ids.ts';
import { account, accountStream, type Account, type LinkedAccount } from './account.ts';
import { handleStreams, streamRead } from './handle-streams.ts';
import { cachedState, load, nothingLoaded, type CommandContext } from './handle.ts';
import { billOf, payTo, reservePayable, typeFor } from './pay-to.ts';
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

const accountNotFound = () => refuse('ACCOUNT_NOT_FOUND', { message: 'walletAccountId account not found' });

/** What the request asked for, whatever its key order: the same Idempotency-Key must come with the same request. */
export function requestHashOf(input: NewPayment): string {
  const { amount, walletAccountId, redirectUrl, orderId, type, expiresInMinutes } = input;
  const canonical = JSON.stringify([amount, walletAccountId, redirectUrl, orderId, type ?? null, expiresInMinutes ?? null]);
  return createHash('sha256').update(canonical).digest('hex');
}

/** A payment this request already created (same Idempotency-Key): the same request answers it again. */
function replayOf(existing: Payment, requestHash: string | null): string {
  if (existing.status === 'NONE') throw new Error('the payment was not recorded');
  if (existing.requestHash !== requestHash)
    throw refuse('IDEMPOTENCY_KEY_REUSED');
  return existing.paymentId;
}

/** What became of the payment an order opened before: still waiting for money, paid, or ended unpaid. */
async function previousOutcome(deps: SyncDeps, paymentId: string, openedAt: string, now: Date): Promise<'pending' | 'paid' | 'unpaid'> {
  const previous = (await load(deps, paymentStream(paymentId), payment)).state;
  if (previous.status === 'NONE') return now.getTime() - Date.parse(openedAt) < 60_000 ? 'pending' : 'unpaid'; // its create may be in flight
  if (previous.status === 'COMPLETED') return 'paid';
  return previous.status === 'PENDING' && now.toISOString() < previous.expiresAt ? 'pending' : 'unpaid';
}

/** The caller's linked account that takes the payment, and the payment type it takes; else 404 or 400. */
function receivingAccount(state: Account, ownerId: string, asked: string | undefined) {
  if (state.status !== 'linked' || state.ownerId !== ownerId) throw accountNotFound();
  const provider = findProvider(state.providerCode);
  if (!provider) throw accountNotFound();
  const type = typeFor(provider, asked);
  if (!state.isActive) throw refuse('ACCOUNT_INACTIVE', { message: 'The receiving account is inactive: relogin needed' });
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
 * Creates a payment into one of the caller's linked accounts: checks the account and type, prepares where to pay,
 * then in one append claims the order (one pending payment per orderId), reserves a payable amount unique on that
 * account and records the payment, guarded on the account as checked. With an Idempotency-Key the payment id is
 * derived from it, so a repeat answers the first payment.
 */
export async function createPayment(
  deps: SyncDeps,
  ownerId: string,
  input: NewPayment,
): Promise<{ paymentId: string; payment: Exclude<Payment, { status: 'NONE' }> }> {
  if (input.walletAccountId === 'GATEWAY') throw refuse('GATEWAY_NOT_APPROVED');
  // only a request with an Idempotency-Key can be repeated: only its body is compared with a repeat's
  const requestHash = input.idempotencyKey ? requestHashOf(input) : null;
  const paymentId = input.idempotencyKey ? deterministicUuid(`payment:${ownerId}:${input.idempotencyKey}`) : randomUUID();
  const context: CommandContext = { actor: `user:${ownerId}`, now: deps.clock.now(), correlationId: paymentId };
  // a random id has no stream yet; a key's id may have one already
  const paymentLoaded = input.idempotencyKey ? await load(deps, paymentStream(paymentId), payment) : nothingLoaded(payment);
  if (paymentLoaded.state.status !== 'NONE') return { paymentId: replayOf(paymentLoaded.state, requestHash), payment: paymentLoaded.state };

  const accountId = accountStream(input.walletAccountId);
  const checked = cachedState(deps, accountId, account) ?? (await load(deps, accountId, account));
  const { linked, type } = receivingAccount(checked.state, ownerId, input.type);
  const where = type === null ? null : await payTo(deps, linked, type, context);

  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + (input.expiresInMinutes ?? defaultExpiresInMinutes) * 60_000);
  const reads = {
    // payTo may have captured the account's static QRIS: the cache holds what it left
    account: streamRead(accountId, account),
    // a payment's order id is usually new: not read unless it turns out to exist (the append refuses it then)
    order: streamRead(orderStream(ownerId, input.orderId), order, { likelyNew: true }),
    receiving: streamRead(receivingStream(linked.accountId), receiving),
    payment: streamRead(paymentStream(paymentId), payment, { loaded: paymentLoaded }),
  };
  const { states } = await handleStreams(
    deps,
    reads,
    async loaded => {
      if (loaded.payment.state.status !== 'NONE') return { append: {}, result: null }; // a twin with the same Idempotency-Key
      receivingAccount(loaded.account.state, ownerId, input.type); // deleted or deactivated since: refused now
      const previous = loaded.order.state.paymentId;
      const outcome = previous !== null && previous !== paymentId ? await previousOutcome(deps, previous, loaded.order.state.openedAt!, now) : 'unpaid';
      const opened = order.decide(loaded.order.state, { type: 'OpenOrderPayment', ownerId, orderId: input.orderId, paymentId, previous: outcome, now });
      const reserved = where ? receiving.decide(loaded.receiving.state, reservePayable(linked, where, { paymentId, amount: input.amount, expiresAt, now })) : [];
      const payable = where && (reserved[0]?.type === 'PayableReserved' ? reserved[0].data : findPayable(loaded.receiving.state, paymentId));
      if (where && !payable) throw refuse('PAYABLE_LAPSED');
      const details = paymentDetails({ paymentId, ownerId, input, linked, type, requestHash, now, expiresAt }, where && payable ? billOf(where, payable) : null);
      const created = payment.decide(loaded.payment.state, { type: 'CreatePayment', payment: details });
      return { append: { order: opened, receiving: reserved, payment: created }, guard: ['account'], result: null };
    },
    // reservations on one receiving account from this process go one at a time instead of racing into retries
    { ...context, queueOn: type === null ? undefined : reads.receiving.streamId },
  );
  // ours, or a twin's with the same Idempotency-Key: the same request answers it, another body is refused
  const created = states.payment;
  // no wait for the read model here: a read that follows (status, page, QR image) waits for it (paymentRow)
  return { paymentId: replayOf(created, requestHash), payment: created as Exclude<Payment, { status: 'NONE' }> };
}
