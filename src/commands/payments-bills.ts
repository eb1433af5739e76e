import { randomInt } from 'node:crypto';
import { refuse } from '../errors.ts';
import type { ReceivingEvent } from '../events/payments-receiving.ts';
import type { LinkedAccount } from '../domain/account.ts';
import { streamRead, type StreamRead } from '../store/commands/handle-streams.ts';
import {
  maxUniqueCode,
  noFreeCode,
  payableClaim,
  payableClaimStream,
  TotalHeld,
  type PayableClaim,
} from '../domain/payments-payable-claims.ts';
import { billOf, type PayTo } from './payments-pay-to.ts';
import { findPayable, receiving, receivingStream, type ReceivingCommand } from '../domain/payments-receiving.ts';

/** What a payment's bill shows: its unique code and total, and where to pay them. */
export type Bill = ReturnType<typeof billOf>;

/** The bill a payment asks for: its amount before any code, held until its expiry; codes at most `highestCode`. */
export type BillRequest = {
  paymentId: string;
  amount: number;
  expiresAt: Date;
  now: Date;
  highestCode?: number | null | undefined;
};

/**
 * A bill's reservation as one append takes it: the stream that holds it (the claim on its total for a unique-code bill,
 * the account's receiving stream for a virtual account's number) and, from that stream's state, the events that
 * reserve it there and the bill they make. A payment billed as it is created and one billed at the payer's choice
 * reserve through it alike.
 */
export type Reservation = {
  read: StreamRead<unknown, ReceivingEvent>;
  reserve(state: unknown): { events: ReceivingEvent[]; bill: Bill };
};

/** A reservation on a stream of state `S`: built together, the state handed back is the one `read` loads. */
function reservation<S>(
  read: StreamRead<S, ReceivingEvent>,
  reserve: (state: S) => { events: ReceivingEvent[]; bill: Bill },
): Reservation {
  return { read, reserve: state => reserve(state as S) };
}

/**
 * Runs `record` with the reservation of the payment's bill where `where` says to pay: a unique-code bill claims its
 * total (withUniqueCode: while the total tried is held, `record` runs again with the next code), a virtual account's
 * bill holds its number on the account's receiving stream.
 */
export function reserveBill<T>(
  linked: LinkedAccount,
  where: PayTo,
  bill: BillRequest,
  record: (reservation: Reservation) => Promise<T>,
): Promise<T> {
  if (where.vaNumber !== null) return record(onReceivingStream(linked, where.vaNumber, where, bill));
  return withUniqueCode({ accountId: linked.accountId, ...bill }, (claim, uniqueCode) =>
    record(
      reservation(claim, state => ({
        events: payableClaim.decide(state, {
          type: 'ClaimTotal',
          accountId: linked.accountId,
          paymentId: bill.paymentId,
          amount: bill.amount,
          uniqueCode,
          expiresAt: bill.expiresAt,
          now: bill.now,
        }),
        bill: billOf(where, { uniqueCode, totalAmount: bill.amount + uniqueCode }),
      })),
    ),
  );
}

/** A virtual account's bill: its number held on the receiving stream (a retried reservation finds it held already). */
function onReceivingStream(linked: LinkedAccount, vaNumber: string, where: PayTo, bill: BillRequest): Reservation {
  const command: ReceivingCommand = {
    type: 'ReservePayable',
    accountId: linked.accountId,
    paymentId: bill.paymentId,
    amount: bill.amount,
    vaNumber,
    expiresAt: bill.expiresAt,
    now: bill.now,
  };
  return reservation(streamRead(receivingStream(linked.accountId), receiving), state => {
    const events = receiving.decide(state, command);
    const payable = events[0]?.type === 'PayableReserved' ? events[0].data : findPayable(state, bill.paymentId);
    if (!payable) throw refuse('PAYABLE_LAPSED');
    return { events, bill: billOf(where, payable) };
  });
}

/**
 * Bills a unique-code payment: from a random code on, the first total no claim holds is claimed by `record`, which
 * appends the claim with the payment's own events in one append. A total claimed meanwhile (the append refused, the
 * claim read again and held) moves on to the next code; every code held: 409 NO_UNIQUE_CODE. `highestCode` (at most
 * 999) keeps the total within a method's maximum: the codes are 1 to it.
 */
async function withUniqueCode<T>(
  bill: { accountId: string; amount: number; now: Date; highestCode?: number | null | undefined },
  record: (claim: StreamRead<PayableClaim, ReceivingEvent>, uniqueCode: number) => Promise<T>,
): Promise<T> {
  const codes = Math.min(maxUniqueCode, bill.highestCode ?? maxUniqueCode);
  const first = codes > 0 ? randomInt(1, codes + 1) : 1;
  for (let i = 0; i < codes; i++) {
    const code = ((first - 1 + i) % codes) + 1;
    const totalAmount = bill.amount + code;
    // a total this process saw held is refused by the claim's decision on its cached state (TotalHeld), unwritten
    const claim = streamRead(payableClaimStream(bill.accountId, totalAmount), payableClaim);
    try {
      return await record(claim, code);
    } catch (err) {
      if (!(err instanceof TotalHeld)) throw err;
    }
  }
  throw noFreeCode(bill.amount);
}
