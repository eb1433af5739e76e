import {
  AccountSynced,
  AccountSyncFailed,
  AccountSyncPaused,
  MutationRecorded,
  type AccountEvent,
  type SyncTrigger,
} from '../events/account.ts';
import { deterministicUuid } from '../ids.ts';
import type { LinkedAccount } from './account-state.ts';

// Synchronisation: the provider's balance and transactions recorded once each, failures counted, a sync paused.

/** Provider transaction ids remembered beyond the cursor, so a page fetched twice records nothing twice. */
const rememberedTransactions = 500;

/** The mutation id of a provider transaction: the same transaction always gets the same id. */
export const mutationIdOf = (accountId: string, providerTransactionId: string) =>
  deterministicUuid(`mutation:${accountId}:${providerTransactionId}`);

/** A transaction as the provider reports it, with the mutation id it will get (derived outside: decide draws no ids). */
export type FetchedTransaction = {
  id: string;
  type: 'CREDIT' | 'DEBIT';
  amount: number;
  description: string;
  senderName: string;
  reference: string | null;
  occurredAt: string;
  mutationId: string;
};

export type SyncCommand =
  | {
      type: 'RecordSync';
      slot: string | null;
      trigger: SyncTrigger;
      balance: number;
      transactions: FetchedTransaction[];
      now: Date;
    }
  | { type: 'RecordSyncFailure'; reason: string; now: Date; retryAt: (consecutiveFailures: number) => Date }
  | { type: 'PauseSync'; reason: 'not-enough-points'; now: Date };

export type SyncEvent = Extract<
  AccountEvent,
  { type: 'MutationRecorded' | 'AccountSynced' | 'AccountSyncFailed' | 'AccountSyncPaused' }
>;

export function decideSync(state: LinkedAccount, command: SyncCommand): AccountEvent[] {
  const at = command.now.toISOString();
  switch (command.type) {
    case 'RecordSync':
      return recordSync(state, command, at);
    case 'RecordSyncFailure': {
      const consecutiveFailures = state.consecutiveFailures + 1;
      return [
        AccountSyncFailed({
          accountId: state.accountId,
          reason: command.reason,
          failedAt: at,
          consecutiveFailures,
          retryAt: command.retryAt(consecutiveFailures).toISOString(),
        }),
      ];
    }
    case 'PauseSync':
      return [AccountSyncPaused({ accountId: state.accountId, reason: command.reason, pausedAt: at })];
    default: {
      const never: never = command;
      return never;
    }
  }
}

function recordSync(state: LinkedAccount, command: Extract<SyncCommand, { type: 'RecordSync' }>, at: string) {
  // a slot is synchronised once, however many jobs run for it
  if (command.slot !== null && state.lastSlot !== null && command.slot <= state.lastSlot) return [];
  const seen = new Set(state.recentTransactionIds);
  const transfers = new Set(state.transferRefs ?? []);
  const fresh: FetchedTransaction[] = [];
  for (const t of command.transactions) {
    if (seen.has(t.id)) continue;
    // the provider's copy of a transfer's DEBIT, recorded when the transfer was made
    if (t.reference !== null && transfers.has(t.reference)) continue; // (or of its refund: we gave it back when it failed)
    seen.add(t.id);
    fresh.push(t);
  }
  const last = command.transactions[command.transactions.length - 1];
  return [
    ...fresh.map(t =>
      MutationRecorded({
        accountId: state.accountId,
        mutationId: t.mutationId,
        providerTransactionId: t.id,
        type: t.type,
        amount: t.amount,
        description: t.description,
        senderName: t.senderName,
        reference: t.reference,
        occurredAt: t.occurredAt,
        recordedAt: at,
      }),
    ),
    AccountSynced({
      accountId: state.accountId,
      balance: command.balance,
      syncedAt: at,
      slot: command.slot,
      cursor: last?.id ?? state.cursor,
      trigger: command.trigger,
    }),
  ];
}

export function evolveSync(state: LinkedAccount, event: SyncEvent): LinkedAccount {
  switch (event.type) {
    case 'MutationRecorded':
      return {
        ...state,
        recentTransactionIds: [...state.recentTransactionIds, event.data.providerTransactionId].slice(
          -rememberedTransactions,
        ),
      };
    case 'AccountSynced':
      return {
        ...state,
        balance: event.data.balance,
        lastSlot: event.data.slot ?? state.lastSlot,
        cursor: event.data.cursor ?? state.cursor,
        consecutiveFailures: 0,
      };
    case 'AccountSyncFailed':
      return { ...state, consecutiveFailures: event.data.consecutiveFailures };
    case 'AccountSyncPaused':
      return state;
    default: {
      const never: never = event;
      return never;
    }
  }
}
