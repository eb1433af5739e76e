import { refuse } from '../errors.ts';
import { PayableReleased, PayableReserved, type ReceivingEvent } from '../events/payments-receiving.ts';
import type { EventOf } from '../events/event.ts';
import type { Decider } from './decider.ts';
import type { Payable } from './payments-payables.ts';

/**
 * A unique-code bill's claim on its total (docs/decisions.md, "Unique codes without a hot stream"): stream
 * `payable-<accountId>-<totalAmount>` holds the payment that bills that total on that account now. Payments into one
 * account with other totals write other streams, so they are recorded in parallel, in one process and across
 * instances; two payments reaching for one total meet on one stream revision, and one of them takes the next code.
 * The events are the receiving stream's own (PayableReserved, PayableReleased), on a stream of one total.
 */
export const payableClaimStream = (accountId: string, totalAmount: number) => `payable-${accountId}-${totalAmount}`;

/** Unique codes are 1 to 999: the customer pays amount + code, so pending bills of one account differ. */
export const maxUniqueCode = 999;

export const noFreeCode = (amount: number) =>
  refuse('NO_UNIQUE_CODE', {
    message: `Every unique code for ${amount} is held by a pending payment on this account; try again later or another amount`,
  });

/** The payment holding the total (null: free); a lapsed holder (past its payment's expiry) holds nothing. */
export type PayableClaim = { holder: Payable | null };

export type PayableClaimCommand =
  | {
      type: 'ClaimTotal';
      accountId: string;
      paymentId: string;
      amount: number;
      uniqueCode: number;
      expiresAt: Date;
      now: Date;
    }
  | { type: 'ReleaseTotal'; accountId: string; paymentId: string; reason: 'completed' | 'expired'; now: Date }
  /** a unique-code bill reserved on the receiving stream before claims, claimed as it was reserved there */
  | { type: 'CarryTotal'; reserved: ReservedPayable };

/** A bill's reservation as PayableReserved records it. */
export type ReservedPayable = EventOf<typeof PayableReserved>['data'];

/** The total is held by another pending payment: the caller tries the next code. */
export class TotalHeld extends Error {
  constructor(readonly totalAmount: number) {
    super(`total ${totalAmount} is held`);
  }
}

/** Whether the claim's holder still holds it at `at` (its payment's expiry not reached). */
export const heldAtTime = (claim: PayableClaim, at: string) => claim.holder !== null && claim.holder.expiresAt > at;

export const payableClaim: Decider<PayableClaim, PayableClaimCommand, ReceivingEvent> = {
  // busy totals are claimed again and again: their last state is kept (a bounded cache), a read only finds what is new
  cached: true,
  // a total is usually free and never claimed before: its stream is not read unless it turns out to exist
  likelyNew: true,
  // written when a bill takes the total and when it lets go of it
  shortLived: true,
  initialState: () => ({ holder: null }),
  evolve(state, event) {
    if (event.type === 'PayableReserved') {
      const { paymentId, uniqueCode, totalAmount, vaNumber, expiresAt } = event.data;
      return { holder: { paymentId, uniqueCode, totalAmount, vaNumber, expiresAt } };
    }
    return state.holder?.paymentId === event.data.paymentId ? { holder: null } : state;
  },
  decide(state, command) {
    if (command.type === 'CarryTotal') {
      // carried already; or a newer claim holds the total, so the older bill had lapsed by then and stays lapsed
      if (state.holder !== null) return [];
      return [PayableReserved(command.reserved)];
    }
    const at = command.now.toISOString();
    if (command.type === 'ReleaseTotal') {
      if (state.holder?.paymentId !== command.paymentId) return [];
      return [
        PayableReleased({
          accountId: command.accountId,
          paymentId: command.paymentId,
          reason: command.reason,
          releasedAt: at,
        }),
      ];
    }
    if (state.holder?.paymentId === command.paymentId) return []; // a retried claim
    const totalAmount = command.amount + command.uniqueCode;
    if (heldAtTime(state, at)) throw new TotalHeld(totalAmount);
    const { accountId, paymentId, uniqueCode } = command;
    return [
      PayableReserved({
        accountId,
        paymentId,
        uniqueCode,
        totalAmount,
        vaNumber: null,
        expiresAt: command.expiresAt.toISOString(),
        reservedAt: at,
      }),
    ];
  },
};
