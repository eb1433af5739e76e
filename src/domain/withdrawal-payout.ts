import { refuse } from '../errors.ts';
import {
  WithdrawalPayoutBarred,
  WithdrawalPayoutFailed,
  WithdrawalPayoutStarted,
  type WithdrawalPayoutEvent,
} from '../events/withdrawal-payout.ts';
import type { Decider } from './decider.ts';
import type { HolderOverride } from './holder-name.ts';

export const withdrawalPayoutStream = (withdrawalId: string) => `withdrawal-payout-${withdrawalId}`;

/**
 * The payouts of one withdrawal through WALLET-A: how many failed moving nothing (each next payout a new transfer), the
 * last failure, and the transfer begun and not known to have failed (`inFlight`: the withdrawal cannot be rejected).
 */
export type WithdrawalPayout = {
  failures: number;
  last: { transferId: string; outcome: 'FAILED' | 'UNCONFIRMED'; reason: string } | null;
  inFlight: string | null;
  /** rejected or paid elsewhere: no payout through WALLET-A may begin */
  barred: boolean;
  /** the override of a holder mismatch the transfer in flight was begun with (its outcome is recorded with it) */
  holderOverride: HolderOverride | null;
};

type RecordPayoutFailure = {
  type: 'RecordPayoutFailure';
  withdrawalId: string;
  merchantId: string;
  transferId: string;
  outcome: 'FAILED' | 'UNCONFIRMED';
  reason: string;
  /** the failures counted when the transfer's id was derived: a concurrent payout that recorded this one already records nothing */
  attempt: number;
  adminId: string;
  now: Date;
};
type StartPayout = {
  type: 'StartPayout';
  withdrawalId: string;
  merchantId: string;
  transferId: string;
  accountId: string;
  adminId: string;
  holderOverride?: { reason: string } | undefined;
  now: Date;
};
type BarPayout = { type: 'BarPayout'; withdrawalId: string; merchantId: string; adminId: string; now: Date };

export const withdrawalPayout: Decider<
  WithdrawalPayout,
  RecordPayoutFailure | StartPayout | BarPayout,
  WithdrawalPayoutEvent
> = {
  cached: true,
  initialState: () => ({ failures: 0, last: null, inFlight: null, barred: false, holderOverride: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'WithdrawalPayoutStarted':
        return { ...state, inFlight: event.data.transferId, holderOverride: event.data.holderOverride ?? null };
      case 'WithdrawalPayoutBarred':
        return { ...state, barred: true };
      case 'WithdrawalPayoutFailed': {
        const { transferId, outcome, reason } = event.data;
        const failed = outcome === 'FAILED';
        return {
          ...state,
          failures: state.failures + (failed ? 1 : 0),
          last: { transferId, outcome, reason },
          inFlight: failed && state.inFlight === transferId ? null : state.inFlight,
          holderOverride: failed && state.inFlight === transferId ? null : state.holderOverride,
        };
      }
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide(state, c) {
    const at = c.now.toISOString();
    switch (c.type) {
      case 'StartPayout': {
        if (state.barred)
          throw refuse('WITHDRAWAL_NOT_REQUESTED', { message: 'The withdrawal was rejected or paid already' });
        if (state.inFlight === c.transferId) return [];
        const { withdrawalId, merchantId, transferId, accountId, holderOverride } = c;
        return [
          WithdrawalPayoutStarted({
            withdrawalId,
            merchantId,
            transferId,
            accountId,
            startedBy: c.adminId,
            startedAt: at,
            ...(holderOverride ? { holderOverride: { reason: holderOverride.reason, by: c.adminId } } : {}),
          }),
        ];
      }
      case 'BarPayout':
        if (state.inFlight !== null) throw refuse('WITHDRAWAL_PAYOUT_IN_FLIGHT');
        return state.barred
          ? []
          : [
              WithdrawalPayoutBarred({
                withdrawalId: c.withdrawalId,
                merchantId: c.merchantId,
                barredBy: c.adminId,
                barredAt: at,
              }),
            ];
      case 'RecordPayoutFailure': {
        if (c.attempt !== state.failures) return [];
        if (state.last?.transferId === c.transferId && state.last.outcome === c.outcome) return [];
        const { withdrawalId, merchantId, transferId, outcome, reason } = c;
        return [
          WithdrawalPayoutFailed({
            withdrawalId,
            merchantId,
            transferId,
            outcome,
            reason,
            attemptedBy: c.adminId,
            failedAt: at,
          }),
        ];
      }
      default: {
        const never: never = c;
        return never;
      }
    }
  },
};
