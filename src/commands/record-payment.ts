import { refuse } from '../errors.ts';
import type { PaymentType } from '../providers/catalogue.ts';
import { account, accountStream, type Account, type LinkedAccount } from '../domain/account.ts';
import { handleStreams, streamRead } from '../store/commands/handle-streams.ts';
import { load, type CommandContext, type Loaded } from '../store/commands/handle.ts';
import { billOf, reservePayable, type PayTo } from './pay-to.ts';
import { order, orderStream, type Order } from '../domain/order.ts';
import { payment, paymentStream, type ChosenMethod, type Payment, type PaymentDetails } from '../domain/payment.ts';
import { payableClaim } from '../domain/payable-claims.ts';
import { withUniqueCode } from './payable-claims.ts';
import { findPayable, receiving, receivingStream } from '../domain/receiving.ts';
import type { CommandDeps } from './deps.ts';

/**
 * Recording a payment once its request is checked: the order claimed, a unique amount reserved, the payment appended,
 * all in one append. Direct payments (src/commands/create-payment.ts) and gateway payments
 * (src/commands/gateway-payment.ts) both record through it.
 */

export type NewPayment = {
  amount: number;
  walletAccountId: string;
  redirectUrl: string;
  orderId: string;
  type?: string | undefined;
  expiresInMinutes?: number | undefined;
  idempotencyKey?: string | undefined;
};

/** What became of the payment an order opened before: still waiting for money, paid, or ended unpaid. */
async function previousOutcome(
  deps: CommandDeps,
  paymentId: string,
  openedAt: string,
  now: Date,
): Promise<'pending' | 'paid' | 'unpaid'> {
  const previous = (await load(deps, paymentStream(paymentId), payment)).state;
  if (previous.status === 'NONE') return now.getTime() - Date.parse(openedAt) < 60_000 ? 'pending' : 'unpaid'; // its create may be in flight
  if (previous.status === 'COMPLETED') return 'paid';
  return previous.status === 'PENDING' && now.toISOString() < previous.expiresAt ? 'pending' : 'unpaid';
}

/** Where a payment is recorded: the receiving account, checked again as it is when the payment is appended. */
export type Receiver = {
  linked: LinkedAccount;
  /** where to pay, when the type is known; null while the payer has not chosen */
  where: PayTo | null;
  /** refuses an account that changed meanwhile (deleted, deactivated, no longer a holding account) */
  recheck(state: Account): void;
};

/** What one create request fixed before recording: the ids, the request's hash and times. */
export type PaymentRequest = {
  paymentId: string;
  ownerId: string;
  input: NewPayment;
  type: PaymentType | null;
  requestHash: string | null;
  paymentLoaded: Loaded<Payment>;
  context: CommandContext;
  now: Date;
  expiresAt: Date;
};

/** The payment as created: billed when its type is known (a payable reserved), else waiting for the payer's choice. */
function paymentDetails(
  p: PaymentRequest,
  receiver: Receiver | null,
  billed: Omit<ChosenMethod, 'paymentId' | 'chosenAt' | 'type' | 'gateway'> | null,
  gateway: GatewayBill | null,
): PaymentDetails {
  return {
    paymentId: p.paymentId,
    ownerId: p.ownerId,
    orderId: p.input.orderId,
    receivingAccountId: receiver?.linked.accountId ?? null,
    providerCode: receiver?.linked.providerCode ?? 'GATEWAY',
    type: p.type,
    methodSelection: p.type === null ? 'payer' : 'fixed',
    amount: billedAmount(p.input, gateway),
    uniqueCode: billed?.uniqueCode ?? null,
    totalAmount: billed?.totalAmount ?? null,
    accountNumber: billed?.accountNumber ?? null,
    qrisPayload: billed?.qrisPayload ?? null,
    redirectUrl: p.input.redirectUrl,
    expiresAt: p.expiresAt.toISOString(),
    createdAt: p.now.toISOString(),
    requestHash: p.requestHash,
    gateway: gateway?.terms ?? null,
  };
}

/** The amount billed: the request's, or for a gateway payment with its method known the amount its fee mode makes. */
const billedAmount = (input: NewPayment, gateway: GatewayBill | null) => gateway?.amount ?? input.amount;

/**
 * A gateway payment as created: its terms (the request's amount, the fee mode, the fee once the method is known) and
 * the amount billed (the request's, raised when the buyer pays the fee); amount null while the payer has not chosen.
 * `highestCode`: the highest unique code that keeps the bill within its method's maximum (gatewayBill).
 */
export type GatewayBill = {
  terms: PaymentDetails['gateway'] & {};
  amount: number | null;
  highestCode?: number | null;
};

/** The order's claim for this payment: refused while another payment of the order is pending or after it was paid. */
async function openOrder(deps: CommandDeps, p: PaymentRequest, state: Order) {
  const previous = state.paymentId;
  const outcome =
    previous !== null && previous !== p.paymentId
      ? await previousOutcome(deps, previous, state.openedAt!, p.now)
      : 'unpaid';
  return order.decide(state, {
    type: 'OpenOrderPayment',
    ownerId: p.ownerId,
    orderId: p.input.orderId,
    paymentId: p.paymentId,
    previous: outcome,
    now: p.now,
  });
}

/**
 * Records the payment in one append: claims the order (one pending payment per orderId), reserves a payable amount
 * unique on the receiving account when the payment is billed, and records the payment, guarded on the account as
 * checked. A payment with no receiving account yet (a gateway payment whose payer chooses) claims the order alone.
 */
export async function recordPayment(
  deps: CommandDeps,
  p: PaymentRequest,
  receiver: Receiver | null,
  gateway: GatewayBill | null,
): Promise<Payment> {
  const orderRead = streamRead(orderStream(p.ownerId, p.input.orderId), order);
  const paymentRead = streamRead(paymentStream(p.paymentId), payment, { loaded: p.paymentLoaded });
  if (!receiver) {
    const { states } = await handleStreams(
      deps,
      { order: orderRead, payment: paymentRead },
      async loaded => {
        if (loaded.payment.state.status !== 'NONE') return { append: {}, result: null }; // a twin with the same Idempotency-Key
        const opened = await openOrder(deps, p, loaded.order.state);
        return {
          append: {
            order: opened,
            payment: payment.decide(loaded.payment.state, {
              type: 'CreatePayment',
              payment: paymentDetails(p, null, null, gateway),
            }),
          },
          result: null,
        };
      },
      p.context,
    );
    return states.payment;
  }
  const { linked, where } = receiver;
  if (where && where.vaNumber === null) {
    // a unique-code bill claims its total on a stream of its own: payments into one account are recorded in parallel
    const amount = billedAmount(p.input, gateway)!;
    const bill = { accountId: linked.accountId, amount, now: p.now, highestCode: gateway?.highestCode };
    return withUniqueCode(deps, bill, async (claim, uniqueCode) => {
      const reads = {
        account: streamRead(accountStream(linked.accountId), account),
        order: orderRead,
        claim,
        payment: paymentRead,
      };
      const { states } = await handleStreams(
        deps,
        reads,
        async loaded => {
          if (loaded.payment.state.status !== 'NONE') return { append: {}, result: null }; // a twin with the same Idempotency-Key
          receiver.recheck(loaded.account.state);
          const opened = await openOrder(deps, p, loaded.order.state);
          const claimed = payableClaim.decide(loaded.claim.state, {
            type: 'ClaimTotal',
            accountId: linked.accountId,
            paymentId: p.paymentId,
            amount,
            uniqueCode,
            expiresAt: p.expiresAt,
            now: p.now,
          });
          const details = paymentDetails(
            p,
            receiver,
            billOf(where, { uniqueCode, totalAmount: amount + uniqueCode }),
            gateway,
          );
          const created = payment.decide(loaded.payment.state, { type: 'CreatePayment', payment: details });
          return { append: { order: opened, claim: claimed, payment: created }, guard: ['account'], result: null };
        },
        p.context,
      );
      return states.payment;
    });
  }
  // a virtual account's bill (its own number): reserved on the account's receiving stream
  const reads = {
    // payTo may have captured the account's static QRIS: the cache holds what it left
    account: streamRead(accountStream(linked.accountId), account),
    order: orderRead,
    receiving: streamRead(receivingStream(linked.accountId), receiving),
    payment: paymentRead,
  };
  const { states } = await handleStreams(
    deps,
    reads,
    async loaded => {
      if (loaded.payment.state.status !== 'NONE') return { append: {}, result: null }; // a twin with the same Idempotency-Key
      receiver.recheck(loaded.account.state); // deleted or deactivated since: refused now
      const opened = await openOrder(deps, p, loaded.order.state);
      const amount = billedAmount(p.input, gateway);
      const reserved = where
        ? receiving.decide(
            loaded.receiving.state,
            reservePayable(linked, where, { paymentId: p.paymentId, amount, expiresAt: p.expiresAt, now: p.now }),
          )
        : [];
      const payable =
        where &&
        (reserved[0]?.type === 'PayableReserved' ? reserved[0].data : findPayable(loaded.receiving.state, p.paymentId));
      if (where && !payable) throw refuse('PAYABLE_LAPSED');
      const details = paymentDetails(p, receiver, where && payable ? billOf(where, payable) : null, gateway);
      const created = payment.decide(loaded.payment.state, { type: 'CreatePayment', payment: details });
      return { append: { order: opened, receiving: reserved, payment: created }, guard: ['account'], result: null };
    },
    p.context,
  );
  return states.payment;
}
