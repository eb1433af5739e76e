import { refuse } from '../errors.ts';
import {
  BalanceCredited,
  BalanceDebited,
  BalanceHeld,
  BalanceReleased,
  MutationRecorded,
  type AccountEvent,
} from '../events/account.ts';
import { accountNotFound, type LinkedAccount } from './account-state.ts';

// Outbound transfers on a wallet: the amount held while the provider is asked, then debited, released or given back.

/** Transfer references remembered, so a sync never records a transfer's DEBIT twice. */
const rememberedTransfers = 200;

/** The mutation a transfer records: its id, the provider's transaction id (or ours until the provider gives one), what it says. */
export type TransferMutation = {
  mutationId: string;
  providerTransactionId: string;
  description: string;
  counterparty: string;
};

export type TransferHoldCommand =
  /** An outbound transfer is about to be sent: its amount is held, refused when the balance cannot cover it. */
  | { type: 'HoldForTransfer'; transferId: string; ownerId: string; amount: number; now: Date }
  | { type: 'ReleaseTransferHold'; transferId: string; now: Date }
  /** An outbound transfer leaves the wallet: the balance drops and its DEBIT mutation is recorded, at once. */
  | { type: 'DebitForTransfer'; transferId: string; amount: number; mutation: TransferMutation; now: Date }
  /** A transfer that failed after its debit: the amount comes back as a CREDIT mutation. */
  | { type: 'ReverseTransferDebit'; transferId: string; amount: number; mutation: TransferMutation; now: Date };

export type TransferHoldEvent = Extract<
  AccountEvent,
  { type: 'BalanceHeld' | 'BalanceReleased' | 'BalanceDebited' | 'BalanceCredited' }
>;

/** What a transfer may still spend: the balance less what transfers in flight hold. */
export function availableBalance(state: LinkedAccount): number {
  return (state.balance ?? 0) - Object.values(state.held ?? {}).reduce((sum, amount) => sum + amount, 0);
}

export function decideTransferHold(state: LinkedAccount, command: TransferHoldCommand): AccountEvent[] {
  const at = command.now.toISOString();
  const { accountId } = state;
  const recorded = state.transferRefs ?? [];
  switch (command.type) {
    case 'HoldForTransfer': {
      if (command.ownerId !== state.ownerId) throw accountNotFound();
      if (state.held?.[command.transferId] !== undefined || recorded.includes(command.transferId)) return [];
      const available = availableBalance(state);
      if (command.amount > available)
        throw refuse('BALANCE_INSUFFICIENT', {
          message: `Balance insufficient: ${command.amount} needed, ${available} available`,
        });
      return [BalanceHeld({ accountId, transferId: command.transferId, amount: command.amount, heldAt: at })];
    }
    case 'ReleaseTransferHold':
      return state.held?.[command.transferId] === undefined
        ? []
        : [BalanceReleased({ accountId, transferId: command.transferId, releasedAt: at })];
    case 'DebitForTransfer': {
      if (recorded.includes(command.transferId)) return []; // debited already
      const { transferId, amount, mutation } = command;
      return [
        BalanceDebited({ accountId, transferId, amount, debitedAt: at }),
        transferMutation(accountId, 'DEBIT', transferId, amount, mutation, at),
      ];
    }
    case 'ReverseTransferDebit': {
      const { transferId, amount, mutation } = command;
      if (!recorded.includes(transferId) || state.recentTransactionIds.includes(mutation.providerTransactionId))
        return [];
      return [
        BalanceCredited({ accountId, transferId, amount, reason: 'transfer-failed', creditedAt: at }),
        transferMutation(accountId, 'CREDIT', transferId, amount, mutation, at),
      ];
    }
    default: {
      const never: never = command;
      return never;
    }
  }
}

export function evolveTransferHold(state: LinkedAccount, event: TransferHoldEvent): LinkedAccount {
  switch (event.type) {
    case 'BalanceHeld':
      return { ...state, held: { ...state.held, [event.data.transferId]: event.data.amount } };
    case 'BalanceReleased':
      return { ...state, held: withoutHold(state.held, event.data.transferId) };
    case 'BalanceDebited':
      return {
        ...state,
        balance: (state.balance ?? 0) - event.data.amount,
        held: withoutHold(state.held, event.data.transferId),
        transferRefs: [...(state.transferRefs ?? []), event.data.transferId].slice(-rememberedTransfers),
      };
    case 'BalanceCredited':
      return { ...state, balance: (state.balance ?? 0) + event.data.amount };
    default: {
      const never: never = event;
      return never;
    }
  }
}

const withoutHold = (held: Record<string, number> | undefined, transferId: string) => {
  const { [transferId]: _released, ...rest } = held ?? {};
  return rest;
};

/** The mutation a transfer records on the wallet, referencing the transfer. */
function transferMutation(
  accountId: string,
  type: 'DEBIT' | 'CREDIT',
  transferId: string,
  amount: number,
  m: TransferMutation,
  at: string,
) {
  return MutationRecorded({
    accountId,
    mutationId: m.mutationId,
    providerTransactionId: m.providerTransactionId,
    type,
    amount,
    description: m.description,
    senderName: m.counterparty,
    reference: transferId,
    occurredAt: at,
    recordedAt: at,
  });
}
