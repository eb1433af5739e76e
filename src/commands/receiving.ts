import { Conflict } from '../errors.ts';
import { PayableReleased, PayableReserved, type ReceivingEvent } from '../events/payment.ts';
import type { Decider } from './handle.ts';

export const receivingStream = (accountId: string) => `receiving-${accountId}`;

/** Unique codes are 1 to 999: the customer pays amount + code, so pending bills of one account differ. */
export const maxUniqueCode = 999;

export type Payable = { paymentId: string; uniqueCode: number; totalAmount: number; vaNumber: string | null; expiresAt: string };

/** The payables of one receiving account that pending payments hold (JSON only: snapshotted). */
export type Receiving = { accountId: string | null; payables: Payable[] };

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

/** The payables still held at `at`: a payable lapses with its payment's expiry even before it is released. */
export const heldAt = (state: Receiving, at: string) => state.payables.filter(p => p.expiresAt > at);

function evolve(state: Receiving, event: ReceivingEvent): Receiving {
  switch (event.type) {
    case 'PayableReserved': {
      const d = event.data;
      const kept = heldAt(state, d.reservedAt); // lapsed payables are dropped as time goes by
      return { accountId: d.accountId, payables: [...kept, { paymentId: d.paymentId, uniqueCode: d.uniqueCode, totalAmount: d.totalAmount, vaNumber: d.vaNumber, expiresAt: d.expiresAt }] };
    }
    case 'PayableReleased':
      return { ...state, payables: state.payables.filter(p => p.paymentId !== event.data.paymentId) };
    default: {
      const never: never = event;
      return never;
    }
  }
}

function decide(state: Receiving, command: ReceivingCommand): ReceivingEvent[] {
  const at = command.now.toISOString();
  if (command.type === 'ReleasePayable') {
    if (!state.payables.some(p => p.paymentId === command.paymentId) || state.accountId === null) return [];
    return [PayableReleased({ accountId: state.accountId, paymentId: command.paymentId, reason: command.reason, releasedAt: at })];
  }
  if (state.payables.some(p => p.paymentId === command.paymentId)) return []; // a retried reservation
  const held = heldAt(state, at);
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
    if (held.some(p => p.vaNumber === command.vaNumber)) throw vaNumberTaken();
    return [reserve(0)];
  }
  const taken = new Set(held.filter(p => p.vaNumber === null).map(p => p.totalAmount));
  for (let i = 0; i < maxUniqueCode; i++) {
    const code = ((command.firstCode - 1 + i) % maxUniqueCode) + 1;
    if (!taken.has(command.amount + code)) return [reserve(code)];
  }
  throw noFreeCode(command.amount);
}

export const receiving: Decider<Receiving, ReceivingCommand, ReceivingEvent> = {
  snapshot: { name: 'receiving', version: 1, every: 200 },
  cached: true,
  initialState: () => ({ accountId: null, payables: [] }),
  evolve,
  decide,
};
