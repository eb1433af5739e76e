import { refuse } from '../errors.ts';
import { PayableReleased, PayableReserved, type ReceivingEvent } from '../events/receiving.ts';
import type { Decider } from './decider.ts';
import type { PayableClaim } from './payments-payable-claims.ts';
import { Payables, type Credit, type Payable, type PayablesJson } from './payments-payables.ts';

export const receivingStream = (accountId: string) => `receiving-${accountId}`;

/** Unique codes are 1 to 999: the customer pays amount + code, so pending bills of one account differ. */
export const maxUniqueCode = 999;

export type { Payable } from './payments-payables.ts';

/** The payables of one receiving account that pending payments hold (src/domain/payments-payables.ts). */
export type Receiving = { accountId: string | null; payables: Payables };

export type ReceivingCommand =
  | {
      type: 'ReservePayable';
      accountId: string;
      paymentId: string;
      amount: number;
      /** a virtual account payment: its own number, no unique code */
      vaNumber: string | null;
      /** where the search for a free code starts (drawn outside: deciders draw nothing) */
      firstCode: number;
      expiresAt: Date;
      now: Date;
    }
  | { type: 'ReleasePayable'; paymentId: string; reason: 'completed' | 'expired'; now: Date };

export const noFreeCode = (amount: number) =>
  refuse('NO_UNIQUE_CODE', {
    message: `Every unique code for ${amount} is held by a pending payment on this account; try again later or another amount`,
  });
export const vaNumberTaken = () => refuse('VA_NUMBER_TAKEN');

/** Every payable of the account, lapsed or not, in reservation order (a pass over all of them). */
export const payablesOf = (state: Receiving): Payable[] => state.payables.all();

/** The payables still held at `at`: a payable lapses with its payment's expiry even before it is released. */
export const heldAt = (state: Receiving, at: string) => state.payables.heldAt(at);

/** The payable a payment holds (lapsed or not), if the account still keeps it. */
export const findPayable = (state: Receiving, paymentId: string): Payable | undefined => state.payables.find(paymentId);

/** A payable a credit pays, and whether a claim on its total holds it (else the receiving stream). */
export type MatchedPayable = { payable: Payable; claimed: boolean };

/**
 * The payable a synchronised credit pays on its account, the one place that says in which order bills are looked for:
 * a virtual account's bill whose number the credit's reference carries and whose total it equals (the receiving
 * stream); the claim on a total of exactly the amount; a unique-code bill of that total reserved on the receiving stream
 * before claims, unless the reference carries a bill's number (the money went to that virtual account). Of these, the
 * first still held when the money was booked, else the first.
 */
export function payableFor(credit: Credit, onReceiving: Receiving, claim: PayableClaim): MatchedPayable | null {
  const carried = onReceiving.payables.carriedBy(credit);
  // a credit whose reference names a virtual account's bill went to that account, not to a unique code of its total
  const older = carried.length > 0 ? [] : onReceiving.payables.ofTotal(credit.amount);
  const onStream = (payable: Payable) => ({ payable, claimed: false });
  const claimed = claim.holder ? [{ payable: claim.holder, claimed: true }] : [];
  const candidates = [...carried.map(onStream), ...claimed, ...older.map(onStream)];
  return candidates.find(c => c.payable.expiresAt >= credit.occurredAt) ?? candidates[0] ?? null;
}

/** The payable a synchronised credit pays among those the receiving stream holds (payableFor, no claim). */
export const matchCredit = (state: Receiving, credit: Credit): Payable | null =>
  payableFor(credit, state, { holder: null })?.payable ?? null;

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
  const reserve = (uniqueCode: number) =>
    PayableReserved({
      accountId: command.accountId,
      paymentId: command.paymentId,
      uniqueCode,
      totalAmount: command.amount + uniqueCode,
      vaNumber: command.vaNumber,
      expiresAt: command.expiresAt.toISOString(),
      reservedAt: at,
    });
  if (command.vaNumber !== null) {
    if (state.payables.vaNumberHeld(command.vaNumber, at)) throw vaNumberTaken();
    return [reserve(0)];
  }
  for (let i = 0; i < maxUniqueCode; i++) {
    const code = ((command.firstCode - 1 + i) % maxUniqueCode) + 1;
    if (!state.payables.totalHeld(command.amount + code, at)) return [reserve(code)];
  }
  throw noFreeCode(command.amount);
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
