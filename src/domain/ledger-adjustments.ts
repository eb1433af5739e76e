import { refuse } from '../errors.ts';
import {
  HoldingOpeningBooked,
  LedgerAdjustmentBooked,
  type LedgerAdjustmentEvent,
} from '../events/ledger-adjustments.ts';
import type { Decider } from './decider.ts';
import { ledgerAccount } from './gateway-ledger.ts';

/**
 * The entries that bring a holding account's cash in the ledger to its provider's balance, against the platform's
 * equity (docs/decisions.md, "Opening balances"): a platform stream of its own, so the ledger's merchants' streams and
 * the suspense never carry the platform's own money.
 */
export const ledgerAdjustmentsStream = 'gateway-ledger-adjustments';

/** The entries booked, by id: a request repeated books nothing. */
export type LedgerAdjustments = { entries: Record<string, { accountId: string; amount: number }> };

export type LedgerAdjustmentCommand =
  | {
      type: 'BookHoldingOpening';
      entryId: string;
      accountId: string;
      /** the provider's balance as last synchronised, and when */
      providerBalance: number;
      providerBalanceAt: Date;
      /** the account's cash in the ledger now (read under the account's lock) */
      ledgerCash: number;
      adminId: string;
      now: Date;
    }
  | {
      type: 'BookLedgerAdjustment';
      entryId: string;
      accountId: string;
      amount: number;
      effectiveAt: Date;
      reason: string;
      /** the platform's accounts now: the holding accounts marked and the payout account */
      holdingAccountIds: readonly string[];
      ledgerCash: number;
      adminId: string;
      now: Date;
    };

const postingsOf = (accountId: string, amount: number) => [
  { account: ledgerAccount.holding(accountId), amount },
  { account: ledgerAccount.equity, amount: -amount },
];

function adjust(state: LedgerAdjustments, c: Extract<LedgerAdjustmentCommand, { type: 'BookLedgerAdjustment' }>) {
  if (state.entries[c.entryId]) return [];
  const invalid = (message: string) => refuse('LEDGER_ADJUSTMENT_INVALID', { message });
  if (!c.holdingAccountIds.includes(c.accountId))
    throw invalid(`${c.accountId} is not one of the platform's holding accounts`);
  if (c.effectiveAt.getTime() > c.now.getTime()) throw invalid('An entry takes effect no later than now');
  // no platform account below zero: a correction takes out no more than the ledger holds
  if (c.ledgerCash + c.amount < 0)
    throw refuse('HOLDING_CASH_SHORT', {
      message: `The account's cash in the ledger (${c.ledgerCash}) does not cover ${-c.amount}`,
    });
  const { entryId, accountId, amount, reason } = c;
  return [
    LedgerAdjustmentBooked({
      entryId,
      accountId,
      amount,
      effectiveAt: c.effectiveAt.toISOString(),
      reason,
      bookedBy: c.adminId,
      bookedAt: c.now.toISOString(),
      postings: postingsOf(accountId, amount),
    }),
  ];
}

export const ledgerAdjustments: Decider<LedgerAdjustments, LedgerAdjustmentCommand, LedgerAdjustmentEvent> = {
  cached: true,
  initialState: () => ({ entries: {} }),
  evolve(state, event) {
    switch (event.type) {
      case 'HoldingOpeningBooked':
      case 'LedgerAdjustmentBooked': {
        const { entryId, accountId, amount } = event.data;
        return { entries: { ...state.entries, [entryId]: { accountId, amount } } };
      }
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide(state, c) {
    switch (c.type) {
      case 'BookHoldingOpening': {
        // the difference only: a marking after a release books what the provider holds beyond the ledger's cash
        const amount = c.providerBalance - c.ledgerCash;
        if (state.entries[c.entryId] || amount === 0) return [];
        const { entryId, accountId, providerBalance, ledgerCash } = c;
        return [
          HoldingOpeningBooked({
            entryId,
            accountId,
            amount,
            providerBalance,
            ledgerCash,
            effectiveAt: c.providerBalanceAt.toISOString(),
            bookedBy: c.adminId,
            bookedAt: c.now.toISOString(),
            postings: postingsOf(accountId, amount),
          }),
        ];
      }
      case 'BookLedgerAdjustment':
        return adjust(state, c);
      default: {
        const never: never = c;
        return never;
      }
    }
  },
};
