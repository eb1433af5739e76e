import type { PaymentType } from '../providers/catalogue.ts';
import { account, accountStream, type Account, type LinkedAccount } from '../domain/account.ts';
import type { AccountEvent } from '../events/account.ts';
import type { OrderEvent } from '../events/payments-order.ts';
import type { PaymentEvent } from '../events/payments.ts';
import type { ReceivingEvent } from '../events/payments-receiving.ts';
import {
  handleStreams,
  streamRead,
  type LoadedStreams,
  type StreamRead,
  type StreamsDecision,
} from '../store/commands/handle-streams.ts';
import { load, type CommandContext, type Loaded } from '../store/commands/handle.ts';
import type { PayTo } from './payments-pay-to.ts';
import { order, orderStream, type Order } from '../domain/payments-order.ts';
import { payment, paymentStream, type Payment, type PaymentDetails } from '../domain/payments.ts';
import { reserveBill, type Bill, type Reservation } from './payments-bills.ts';
import type { CommandDeps } from './deps.ts';

/**
 * Recording a payment once its request is checked: the order claimed, a unique amount reserved, the payment appended,
 * all in one append. Direct payments (src/commands/payments.ts) and gateway payments
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

/** The payment an order opened before this one, and what became of it: still waiting for money, paid, or ended unpaid. */
type PreviousPayment = { paymentId: string; outcome: 'pending' | 'paid' | 'unpaid' };

/** What became of the payment an order opened before: still waiting for money, paid, or ended unpaid. */
function outcomeOf(previous: Payment, openedAt: string, now: Date): PreviousPayment['outcome'] {
  if (previous.status === 'NONE') return now.getTime() - Date.parse(openedAt) < 60_000 ? 'pending' : 'unpaid'; // its create may be in flight
  if (previous.status === 'COMPLETED') return 'paid';
  return previous.status === 'PENDING' && now.toISOString() < previous.expiresAt ? 'pending' : 'unpaid';
}

/** Reads the payment the order opened last, before the decision, which takes it as read. */
async function previousPayment(deps: CommandDeps, opened: Order, now: Date): Promise<PreviousPayment> {
  const paymentId = opened.paymentId!;
  const previous = (await load(deps, paymentStream(paymentId), payment)).state;
  return { paymentId, outcome: outcomeOf(previous, opened.openedAt!, now) };
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
  billed: Bill | null,
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

/** The streams a payment is recorded on: its order and itself, the receiving account guarded, its bill's reservation. */
type RecordingReads = {
  order: StreamRead<Order, OrderEvent>;
  payment: StreamRead<Payment, PaymentEvent>;
  account?: StreamRead<Account, AccountEvent>;
  bill?: StreamRead<unknown, ReceivingEvent>;
};

/** What recording a payment decides over its streams; it answers the order as read when it needs its previous payment. */
type Recording = {
  p: PaymentRequest;
  receiver: Receiver | null;
  gateway: GatewayBill | null;
  reservation: Reservation | null;
  previous: PreviousPayment | null;
};

/**
 * The one decision that records a payment: the order claimed for it (one pending payment per orderId: the order's
 * previous payment comes read, else the decision asks for it), its bill reserved where its reservation says, the payment
 * created, the receiving account guarded as checked. A twin with the same Idempotency-Key recorded it already: nothing.
 */
function decideRecording(
  { p, receiver, gateway, reservation, previous }: Recording,
  loaded: LoadedStreams<RecordingReads>,
): StreamsDecision<RecordingReads, Loaded<Order> | null> {
  if (loaded.payment.state.status !== 'NONE') return { append: {}, result: null };
  if (receiver) receiver.recheck(loaded.account!.state); // deleted or deactivated since: refused now
  const opened = loaded.order.state.paymentId;
  const other = opened !== null && opened !== p.paymentId;
  if (other && previous?.paymentId !== opened) return { append: {}, result: loaded.order };
  const reserved = reservation ? reservation.reserve(loaded.bill!.state) : null;
  const details = paymentDetails(p, receiver, reserved?.bill ?? null, gateway);
  return {
    append: {
      order: order.decide(loaded.order.state, {
        type: 'OpenOrderPayment',
        ownerId: p.ownerId,
        orderId: p.input.orderId,
        paymentId: p.paymentId,
        previous: other ? previous!.outcome : 'unpaid',
        now: p.now,
      }),
      bill: reserved?.events ?? [],
      payment: payment.decide(loaded.payment.state, { type: 'CreatePayment', payment: details }),
    },
    guard: receiver ? ['account'] : [],
    result: null,
  };
}

/** Records the payment in one append (decideRecording), its order's previous payment read first when it has one. */
async function record(deps: CommandDeps, recording: Recording): Promise<Payment> {
  const { p, receiver, reservation } = recording;
  let orderLoaded: Loaded<Order> | undefined;
  for (;;) {
    const reads: RecordingReads = {
      order: streamRead(orderStream(p.ownerId, p.input.orderId), order, { loaded: orderLoaded }),
      payment: streamRead(paymentStream(p.paymentId), payment, { loaded: p.paymentLoaded }),
      // payTo may have captured the account's static QRIS: the cache holds what it left
      ...(receiver ? { account: streamRead(accountStream(receiver.linked.accountId), account) } : {}),
      ...(reservation ? { bill: reservation.read } : {}),
    };
    const { result, states } = await handleStreams(
      deps,
      reads,
      loaded => decideRecording(recording, loaded),
      p.context,
    );
    if (result === null) return states.payment;
    orderLoaded = result;
    recording = { ...recording, previous: await previousPayment(deps, result.state, p.now) };
  }
}

/**
 * Records the payment in one append: claims the order (one pending payment per orderId), reserves the bill where the
 * receiving account takes it when the payment is billed (reserveBill), and records the payment, guarded on the account
 * as checked. A payment with no receiving account yet (a gateway payment whose payer chooses) claims the order alone.
 */
export function recordPayment(
  deps: CommandDeps,
  p: PaymentRequest,
  receiver: Receiver | null,
  gateway: GatewayBill | null,
): Promise<Payment> {
  const recording = { p, receiver, gateway, reservation: null, previous: null };
  if (!receiver?.where) return record(deps, recording);
  const amount = billedAmount(p.input, gateway)!;
  const bill = {
    paymentId: p.paymentId,
    amount,
    expiresAt: p.expiresAt,
    now: p.now,
    highestCode: gateway?.highestCode,
  };
  return reserveBill(receiver.linked, receiver.where, bill, reservation => record(deps, { ...recording, reservation }));
}
