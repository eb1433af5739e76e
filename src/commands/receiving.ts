import { Conflict } from '../errors.ts';
import { PayableReleased, PayableReserved, type ReceivingEvent } from '../events/payment.ts';
import type { Decider } from './handle.ts';
import { indexOf, moveIndex } from './receiving-index.ts';

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
      // lapsed payables are dropped as time goes by, once the oldest has lapsed (a cheap test on a busy account;
      // decide looks at expiresAt anyway, so one that lingers a while holds nothing)
      const oldest = state.payables[0];
      const kept = oldest && oldest.expiresAt <= d.reservedAt ? heldAt(state, d.reservedAt) : state.payables;
      const added: Payable = { paymentId: d.paymentId, uniqueCode: d.uniqueCode, totalAmount: d.totalAmount, vaNumber: d.vaNumber, expiresAt: d.expiresAt };
      const payables = [...kept, added];
      if (kept === state.payables) moveIndex(kept, payables, added);
      return { accountId: d.accountId, payables };
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
    if (!indexOf(state.payables).ids.has(command.paymentId) || state.accountId === null) return [];
    return [PayableReleased({ accountId: state.accountId, paymentId: command.paymentId, reason: command.reason, releasedAt: at })];
  }
  const index = indexOf(state.payables);
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
    if ((index.vaNumbers.get(command.vaNumber) ?? '') > at) throw vaNumberTaken();
    return [reserve(0)];
  }
  for (let i = 0; i < maxUniqueCode; i++) {
    const code = ((command.firstCode - 1 + i) % maxUniqueCode) + 1;
    if (!((index.totals.get(command.amount + code) ?? '') > at)) return [reserve(code)];
  }
  throw noFreeCode(command.amount);
}

export const receiving: Decider<Receiving, ReceivingCommand, ReceivingEvent> = {
  // a busy account holds thousands of payables: its snapshot is written less often the bigger it is
  snapshot: { name: 'receiving', version: 2, every: 200, size: state => state.payables.length },
  cached: true,
  initialState: () => ({ accountId: null, payables: [] }),
  evolve,
  decide,
};
