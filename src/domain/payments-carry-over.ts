import { PayableReleased, type ReceivingEvent } from '../events/payments-receiving.ts';
import type { Decider } from './decider.ts';
import type { ReservedPayable } from './payments-payable-claims.ts';

/**
 * The unique-code bills a receiving stream still holds from before claims (PayableReserved with no virtual account's
 * number, not released), as they were reserved: the carry-over (src/commands/payments-carry-over.ts) claims each total
 * with them and releases them here. The stream's virtual accounts are the `receiving` decider's.
 */
export type LegacyReservations = { accountId: string | null; pending: ReadonlyMap<string, ReservedPayable> };

export type LegacyReservationsCommand = { type: 'ReleaseCarried'; paymentId: string; now: Date };

export const legacyReservations: Decider<LegacyReservations, LegacyReservationsCommand, ReceivingEvent> = {
  // its bills are carried one append each: the state the last append left is where the next one starts
  cached: true,
  initialState: () => ({ accountId: null, pending: new Map() }),
  evolve(state, event) {
    const { paymentId } = event.data;
    if (event.type === 'PayableReserved') {
      if (event.data.vaNumber !== null) return state;
      return { accountId: event.data.accountId, pending: new Map(state.pending).set(paymentId, event.data) };
    }
    if (!state.pending.has(paymentId)) return state;
    const pending = new Map(state.pending);
    pending.delete(paymentId);
    return { ...state, pending };
  },
  decide(state, command) {
    if (!state.pending.has(command.paymentId) || state.accountId === null) return []; // carried already
    return [
      PayableReleased({
        accountId: state.accountId,
        paymentId: command.paymentId,
        reason: 'carried',
        releasedAt: command.now.toISOString(),
      }),
    ];
  },
};
