import { Conflict } from '../errors.ts';
import { PayableReleased, PayableReserved, type ReceivingEvent } from '../events/payment.ts';
import type { Decider } from './handle.ts';
import { chunkIndexOf, heldBy, indexOf, moveIndex } from './receiving-index.ts';

export const receivingStream = (accountId: string) => `receiving-${accountId}`;

/** Unique codes are 1 to 999: the customer pays amount + code, so pending bills of one account differ. */
export const maxUniqueCode = 999;

export type Payable = { paymentId: string; uniqueCode: number; totalAmount: number; vaNumber: string | null; expiresAt: string };

/**
 * The payables of one receiving account that pending payments hold, in reservation order, and when lapsed ones were
 * last dropped (JSON only: snapshotted). The payables are kept in chunks of at most `chunkSize`: a reservation or a
 * release copies one chunk and the list of chunks, not every pending payable of a busy account.
 */
export type Receiving = { accountId: string | null; chunks: Payable[][]; droppedAt: string | null };

const chunkSize = 64;

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
  new Conflict(`Every unique code for ${amount} is held by a pending payment on this account; try again later or another amount`, 'NO_UNIQUE_CODE');
export const vaNumberTaken = () => new Conflict('The virtual account number is taken', 'VA_NUMBER_TAKEN');

/** Every payable of the account, lapsed or not, in reservation order (a pass over all of them). */
export const payablesOf = (state: Receiving): Payable[] => state.chunks.flat();

/** The payables still held at `at`: a payable lapses with its payment's expiry even before it is released. */
export const heldAt = (state: Receiving, at: string) => payablesOf(state).filter(p => p.expiresAt > at);

/** The payable a payment holds (lapsed or not), if the account still keeps it. */
export const findPayable = (state: Receiving, paymentId: string): Payable | undefined => indexOf(state.chunks).ids.get(paymentId);

const chunked = (payables: Payable[]): Payable[][] =>
  Array.from({ length: Math.ceil(payables.length / chunkSize) }, (_, i) => payables.slice(i * chunkSize, (i + 1) * chunkSize));

function appended(chunks: Payable[][], added: Payable): Payable[][] {
  const last = chunks.at(-1);
  if (!last || last.length >= chunkSize) return [...chunks, [added]];
  const next = chunks.slice();
  next[next.length - 1] = [...last, added];
  return next;
}

function without(chunks: Payable[][], removed: Payable): Payable[][] {
  const at = chunkIndexOf(chunks, removed);
  if (at < 0) return chunks;
  const rest = chunks[at]!.filter(p => p !== removed);
  const next = chunks.slice();
  if (rest.length > 0) next[at] = rest;
  else next.splice(at, 1);
  return next;
}

/**
 * Lapsed payables are dropped at most once a minute. Under a steady stream of payments the oldest lapses at nearly every
 * reservation, and dropping them each time was a pass over every pending payable, and a new index, per payment
 * (745 µs at 3,600 pending, 5.4 ms at 14,400: bench/receiving-payables.ts). Until then a lapsed payable holds nothing:
 * decide and the matching look at expiresAt.
 */
const dropLapsedEveryMs = 60_000;

const dropsLapsed = (state: Receiving, at: string) =>
  state.chunks.length > 0 && (state.droppedAt === null || Date.parse(at) - Date.parse(state.droppedAt) >= dropLapsedEveryMs);

function evolve(state: Receiving, event: ReceivingEvent): Receiving {
  switch (event.type) {
    case 'PayableReserved': {
      const d = event.data;
      const added: Payable = { paymentId: d.paymentId, uniqueCode: d.uniqueCode, totalAmount: d.totalAmount, vaNumber: d.vaNumber, expiresAt: d.expiresAt };
      if (dropsLapsed(state, d.reservedAt))
        return { accountId: d.accountId, chunks: chunked([...heldAt(state, d.reservedAt), added]), droppedAt: d.reservedAt };
      const chunks = appended(state.chunks, added);
      moveIndex(state.chunks, chunks, { added });
      return { accountId: d.accountId, chunks, droppedAt: state.droppedAt };
    }
    case 'PayableReleased': {
      const removed = findPayable(state, event.data.paymentId);
      if (!removed) return state;
      const chunks = without(state.chunks, removed);
      if (chunks === state.chunks) return state;
      moveIndex(state.chunks, chunks, { removed });
      return { ...state, chunks };
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
    return [PayableReleased({ accountId: state.accountId, paymentId: command.paymentId, reason: command.reason, releasedAt: at })];
  }
  const index = indexOf(state.chunks);
  if (index.ids.has(command.paymentId)) return []; // a retried reservation
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
    if (heldBy(index.vaNumbers.get(command.vaNumber), at)) throw vaNumberTaken();
    return [reserve(0)];
  }
  for (let i = 0; i < maxUniqueCode; i++) {
    const code = ((command.firstCode - 1 + i) % maxUniqueCode) + 1;
    if (!heldBy(index.totals.get(command.amount + code), at)) return [reserve(code)];
  }
  throw noFreeCode(command.amount);
}

export const receiving: Decider<Receiving, ReceivingCommand, ReceivingEvent> = {
  // a busy account holds thousands of payables: its snapshot is written less often the bigger it is
  snapshot: { name: 'receiving', version: 4, every: 200, size: state => state.chunks.reduce((n, chunk) => n + chunk.length, 0) },
  cached: true,
  initialState: () => ({ accountId: null, chunks: [], droppedAt: null }),
  evolve,
  decide,
};
