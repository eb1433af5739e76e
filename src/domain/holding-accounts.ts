import type { PaymentType } from './payment-methods.ts';
import { refuse } from '../errors.ts';
import { HoldingAccountMarked, HoldingAccountUnmarked, type HoldingAccountEvent } from '../events/holding-accounts.ts';
import type { Decider } from './decider.ts';

/** The platform's one list of holding accounts. */
export const holdingAccountsStream = 'gateway-holding-accounts';

/** `markedAt`: since when it holds the gateway's money (credits from before are its owner's history) */
export type HoldingAccount = { accountId: string; providerCode: string; methods: PaymentType[]; markedAt: string };

/** The holding accounts marked now, in marking order. */
export type HoldingAccounts = { accounts: HoldingAccount[] };

export type HoldingAccountCommand =
  | {
      type: 'MarkHoldingAccount';
      accountId: string;
      providerCode: string;
      methods: PaymentType[];
      adminId: string;
      now: Date;
    }
  | { type: 'UnmarkHoldingAccount'; accountId: string; adminId: string; now: Date };

export const holdingAccounts: Decider<HoldingAccounts, HoldingAccountCommand, HoldingAccountEvent> = {
  cached: true,
  initialState: () => ({ accounts: [] }),
  evolve(state, event) {
    const others = state.accounts.filter(a => a.accountId !== event.data.accountId);
    if (event.type === 'HoldingAccountUnmarked') return { accounts: others };
    const { accountId, providerCode, methods, markedAt } = event.data;
    return { accounts: [...others, { accountId, providerCode, methods, markedAt }] };
  },
  decide(state, command) {
    const marked = state.accounts.find(a => a.accountId === command.accountId);
    const at = command.now.toISOString();
    if (command.type === 'UnmarkHoldingAccount') {
      if (!marked) throw refuse('NOT_FOUND', { message: 'Holding account not found' });
      return [HoldingAccountUnmarked({ accountId: command.accountId, unmarkedBy: command.adminId, unmarkedAt: at })];
    }
    if (marked) return [];
    const { accountId, providerCode, methods, adminId } = command;
    return [HoldingAccountMarked({ accountId, providerCode, methods, markedBy: adminId, markedAt: at })];
  },
};
