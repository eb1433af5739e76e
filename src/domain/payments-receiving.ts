import { refuse } from '../errors.ts';
import { PayableReleased, PayableReserved, type ReceivingEvent } from '../events/payments-receiving.ts';
import type { Decider } from './decider.ts';
import { payableClaimStream, type PayableClaim, type PayableClaimCommand } from './payments-payable-claims.ts';
import { Payables, type Credit, type Payable, type PayablesJson } from './payments-payables.ts';

export const receivingStream = (accountId: string) => `receiving-${accountId}`;

export type { Payable } from './payments-payables.ts';

/**
 * The virtual accounts of one receiving account that pending payments hold (src/domain/payments-payables.ts). The stream
 * also holds the unique-code bills reserved there before claims: they fold as they did, and were carried over to their
 * claims (src/commands/payments-carry-over.ts), so nothing reads them any more.
 */
export type Receiving = { accountId: string | null; payables: Payables };

export type ReceivingCommand =
  | {
      type: 'ReservePayable';
      accountId: string;
      paymentId: string;
      amount: number;
      /** a virtual account payment: its own number, no unique code (a unique-code bill claims its total instead) */
      vaNumber: string;
      expiresAt: Date;
      now: Date;
    }
  | { type: 'ReleasePayable'; paymentId: string; reason: 'completed' | 'expired'; now: Date };

export const vaNumberTaken = () => refuse('VA_NUMBER_TAKEN');

/** Every payable of the account, lapsed or not, in reservation order (a pass over all of them). */
export const payablesOf = (state: Receiving): Payable[] => state.payables.all();

/** The payables still held at `at`: a payable lapses with its payment's expiry even before it is released. */
export const heldAt = (state: Receiving, at: string) => state.payables.heldAt(at);

/** The payable a payment holds (lapsed or not), if the account still keeps it. */
export const findPayable = (state: Receiving, paymentId: string): Payable | undefined => state.payables.find(paymentId);

/**
 * The payable a synchronised credit pays on its account, the one place that says in which order bills are looked for:
 * a virtual account's bill whose number the credit's reference carries and whose total it equals (the receiving
 * stream), then the claim on a total of exactly the amount. Of these, the first still held when the money was booked,
 * else the first.
 */
export function payableFor(credit: Credit, onReceiving: Receiving, claim: PayableClaim): Payable | null {
  const candidates = [...onReceiving.payables.carriedBy(credit), ...(claim.holder ? [claim.holder] : [])];
  return candidates.find(p => p.expiresAt >= credit.occurredAt) ?? candidates[0] ?? null;
}

/** A bill an ended payment held on its account: a virtual account's number, or a unique code's total (vaNumber null). */
export type HeldBill = { accountId: string; paymentId: string; totalAmount: number; vaNumber: string | null };

/** Where a bill is held and the command that frees it there: the receiving stream for a number, else its total's claim. */
export type BillRelease =
  | { on: 'receiving'; streamId: string; command: ReceivingCommand }
  | { on: 'claim'; streamId: string; command: PayableClaimCommand };

/**
 * How an ended payment's bill is freed; nothing to write for a unique code's total whose payment expired: the claim
 * lapses with its holder's expiry by itself (heldAtTime), and a credit that still finds the lapsed holder completes
 * nothing (its payment is EXPIRED) and goes on as an unmatched one. Its events would be a sixth of a payment's bytes.
 */
export function billRelease(bill: HeldBill, reason: 'completed', now: Date): BillRelease;
export function billRelease(bill: HeldBill, reason: 'completed' | 'expired', now: Date): BillRelease | null;
export function billRelease(bill: HeldBill, reason: 'completed' | 'expired', now: Date): BillRelease | null {
  const { accountId, paymentId } = bill;
  if (bill.vaNumber === null && reason === 'expired') return null;
  if (bill.vaNumber !== null)
    return {
      on: 'receiving',
      streamId: receivingStream(accountId),
      command: { type: 'ReleasePayable', paymentId, reason, now },
    };
  return {
    on: 'claim',
    streamId: payableClaimStream(accountId, bill.totalAmount),
    command: { type: 'ReleaseTotal', accountId, paymentId, reason, now },
  };
}

/** The payable a synchronised credit pays among those the receiving stream holds (payableFor, no claim). */
export const matchCredit = (state: Receiving, credit: Credit): Payable | null =>
  payableFor(credit, state, { holder: null });

function evolve(state: Receiving, event: ReceivingEvent): Receiving {
  switch (event.type) {
    case 'PayableReserved': {
      const { accountId, paymentId, uniqueCode, totalAmount, vaNumber, expiresAt, reservedAt } = event.data;
      return {
        accountId,
        payables: state.payables.reserve({ paymentId, uniqueCode, totalAmount, vaNumber, expiresAt }, reservedAt),
      };
    }
    case 'PayableReleased': {
      const payables = state.payables.release(event.data.paymentId);
      return payables === state.payables ? state : { ...state, payables };
    }
    default: {
      const never: never = event;
      return never;
    }
  }
}

function decide(state: Receiving, command: ReceivingCommand): ReceivingEvent[] {
  const at = command.now.toISOString();
  if (command.type === 'ReleasePayable') {
    if (!findPayable(state, command.paymentId) || state.accountId === null) return [];
    return [
      PayableReleased({
        accountId: state.accountId,
        paymentId: command.paymentId,
        reason: command.reason,
        releasedAt: at,
      }),
    ];
  }
  if (state.payables.find(command.paymentId)) return []; // a retried reservation
  if (state.payables.vaNumberHeld(command.vaNumber, at)) throw vaNumberTaken();
  return [
    PayableReserved({
      accountId: command.accountId,
      paymentId: command.paymentId,
      uniqueCode: 0, // a virtual account's bill takes no code
      totalAmount: command.amount,
      vaNumber: command.vaNumber,
      expiresAt: command.expiresAt.toISOString(),
      reservedAt: at,
    }),
  ];
}

export const receiving: Decider<Receiving, ReceivingCommand, ReceivingEvent> = {
  // a busy account holds thousands of payables: its snapshot is written less often the bigger it is
  snapshot: {
    name: 'receiving',
    version: 5,
    every: 200,
    size: state => state.payables.size,
    revive: json => {
      const { accountId, payables } = json as { accountId: string | null; payables: PayablesJson };
      return { accountId, payables: Payables.fromJSON(payables) };
    },
  },
  cached: true,
  // a busy account's reservations race: one at a time from this process, and more attempts across processes
  serialised: true,
  attempts: 20,
  initialState: () => ({ accountId: null, payables: Payables.none }),
  evolve,
  decide,
};
