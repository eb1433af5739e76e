import { PayoutAccountChosen, type PayoutAccountEvent } from '../events/withdrawal-payout.ts';
import type { Decider } from './decider.ts';

/** The platform's one payout account: withdrawals are paid from it through WALLET-A. */
export const payoutAccountStream = 'gateway-payout-account';

export type PayoutAccount = { accountId: string; ownerId: string } | null;

export type ChoosePayoutAccount = {
  type: 'ChoosePayoutAccount';
  accountId: string;
  ownerId: string;
  adminId: string;
  now: Date;
};

export const payoutAccount: Decider<PayoutAccount, ChoosePayoutAccount, PayoutAccountEvent> = {
  cached: true,
  initialState: () => null,
  evolve: (_state, event) => ({ accountId: event.data.accountId, ownerId: event.data.ownerId }),
  decide(state, command) {
    if (state?.accountId === command.accountId) return [];
    const { accountId, ownerId, adminId } = command;
    return [PayoutAccountChosen({ accountId, ownerId, chosenBy: adminId, chosenAt: command.now.toISOString() })];
  },
};
