import { refuse } from '../errors.ts';
import {
  AccountLinked,
  AccountSettingsChanged,
  AccountSyncFailed,
  AccountSyncPaused,
  AccountSynced,
  BalanceCredited,
  BalanceDebited,
  BalanceHeld,
  BalanceReleased,
  CredentialsChanged,
  MutationRecorded,
  ProviderSessionExpired,
  ProviderSessionRestored,
  StaticQrisCaptured,
  type AccountEvent,
  type Sealed,
  type SyncTrigger,
} from '../events/account.ts';
import { deterministicUuid } from '../ids.ts';
import type { Decider } from './decider.ts';

export const accountStream = (accountId: string) => `account-${accountId}`;

/** The mutation id of a provider transaction: the same transaction always gets the same id. */
export const mutationIdOf = (accountId: string, providerTransactionId: string) =>
  deterministicUuid(`mutation:${accountId}:${providerTransactionId}`);

/** Provider transaction ids remembered beyond the cursor, so a page fetched twice records nothing twice. */
const rememberedTransactions = 500;
/** OTP logins remembered, so the saga re-applying a login changes nothing. */
const rememberedLogins = 20;

export type LinkedAccount = {
  status: 'linked';
  accountId: string;
  ownerId: string;
  type: 'bank' | 'ewallet';
  providerCode: string;
  accountRef: string;
  isActive: boolean;
  intervalMinutes: number;
  credentials: Sealed | null;
  session: Sealed | null;
  lastSlot: string | null;
  cursor: string | null;
  recentTransactionIds: string[];
  consecutiveFailures: number;
  /** OTP logins that restored the session, newest last: a login applied twice restores once */
  restoredBy: string[];
  /** scheduled syncs before this instant (ISO) were paid for when the account was created */
  syncsPaidUntil?: string | null;
  /** the merchant's static QRIS, once read from the provider */
  staticQris?: string | null;
  /** the last synchronised balance, less what transfers debited since (and plus what failed ones gave back) */
  balance?: number;
  /**
   * Outbound transfers recorded here, newest last: the provider's copy of a transfer's DEBIT carries our transfer id
   * as its reference, so a sync records it once, whatever its transaction id
   */
  transferRefs?: string[];
  /** amounts held by transfers sent and not answered yet, by transfer id */
  held?: Record<string, number>;
};

// JSON only (strings, numbers, arrays): the state is snapshotted
export type Account = { status: 'none' } | LinkedAccount;

export type LinkAccount = {
  type: 'LinkAccount';
  accountId: string;
  ownerId: string;
  accountType: 'bank' | 'ewallet';
  providerCode: string;
  accountName: string;
  accountNumber: string | null;
  phoneNumber: string | null;
  holderName: string | null;
  intervalMinutes: number;
  credentials: Sealed | null;
  session: Sealed | null;
  isActive: boolean;
  /** scheduled syncs before it were paid for by the account's creation; null: every sync pays */
  syncsPaidUntil: Date | null;
  now: Date;
};

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

export type AccountCommand =
  | LinkAccount
  | {
      type: 'ChangeAccountSettings';
      ownerId: string;
      accountName?: string;
      intervalMinutes?: number;
      credentials?: Sealed;
      session?: Sealed | null;
      now: Date;
    }
  | {
      type: 'RecordSync';
      slot: string | null;
      trigger: SyncTrigger;
      balance: number;
      transactions: FetchedTransaction[];
      now: Date;
    }
  | { type: 'RecordSyncFailure'; reason: string; now: Date; retryAt: (consecutiveFailures: number) => Date }
  | { type: 'PauseSync'; reason: 'not-enough-points'; now: Date }
  | { type: 'ExpireProviderSession'; now: Date }
  | {
      type: 'RestoreProviderSession';
      session: Sealed;
      /** a PIN given again at an OTP relogin */
      credentials?: Sealed | null;
      /** the OTP login restoring it; null when the sync renewed the session itself */
      loginSessionId?: string | null;
      now: Date;
    }
  | { type: 'CaptureStaticQris'; payload: string; now: Date }
  /** An outbound transfer is about to be sent: its amount is held, refused when the balance cannot cover it. */
  | { type: 'HoldForTransfer'; transferId: string; ownerId: string; amount: number; now: Date }
  | { type: 'ReleaseTransferHold'; transferId: string; now: Date }
  /** An outbound transfer leaves the wallet: the balance drops and its DEBIT mutation is recorded, at once. */
  | { type: 'DebitForTransfer'; transferId: string; amount: number; mutation: TransferMutation; now: Date }
  /** A transfer that failed after its debit: the amount comes back as a CREDIT mutation. */
  | { type: 'ReverseTransferDebit'; transferId: string; amount: number; mutation: TransferMutation; now: Date };

/** The mutation a transfer records: its id, the provider's transaction id (or ours until the provider gives one), what it says. */
export type TransferMutation = {
  mutationId: string;
  providerTransactionId: string;
  description: string;
  counterparty: string;
};

/** Transfer references remembered, so a sync never records a transfer's DEBIT twice. */
const rememberedTransfers = 200;

export const accountNotFound = () => refuse('ACCOUNT_NOT_FOUND');

function evolve(state: Account, event: AccountEvent): Account {
  if (event.type === 'AccountLinked') {
    const d = event.data;
    return {
      status: 'linked',
      accountId: d.accountId,
      ownerId: d.ownerId,
      type: d.type,
      providerCode: d.providerCode,
      accountRef: (d.type === 'bank' ? d.accountNumber : d.phoneNumber) ?? '',
      isActive: d.isActive,
      intervalMinutes: d.intervalMinutes,
      credentials: d.credentials,
      session: d.session,
      lastSlot: null,
      cursor: null,
      recentTransactionIds: [],
      consecutiveFailures: 0,
      restoredBy: [],
      syncsPaidUntil: d.syncsPaidUntil ?? null,
    };
  }
  if (state.status !== 'linked') return state;
  switch (event.type) {
    case 'AccountSettingsChanged':
      return { ...state, intervalMinutes: event.data.intervalMinutes ?? state.intervalMinutes };
    case 'CredentialsChanged':
      return { ...state, credentials: event.data.credentials, session: event.data.session ?? state.session };
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
    case 'ProviderSessionExpired':
      return { ...state, isActive: false, session: null };
    case 'ProviderSessionRestored': {
      const { session, credentials, loginSessionId } = event.data;
      return {
        ...state,
        isActive: true,
        session,
        credentials: credentials ?? state.credentials,
        consecutiveFailures: 0,
        restoredBy: loginSessionId
          ? [...(state.restoredBy ?? []), loginSessionId].slice(-rememberedLogins)
          : (state.restoredBy ?? []),
      };
    }
    case 'StaticQrisCaptured':
      return { ...state, staticQris: event.data.payload };
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

function decide(state: Account, command: AccountCommand): AccountEvent[] {
  if (command.type === 'LinkAccount') {
    if (state.status !== 'none') return []; // a retried link of the same id
    return [
      AccountLinked({
        accountId: command.accountId,
        ownerId: command.ownerId,
        type: command.accountType,
        providerCode: command.providerCode,
        accountName: command.accountName,
        accountNumber: command.accountNumber,
        phoneNumber: command.phoneNumber,
        holderName: command.holderName,
        intervalMinutes: command.intervalMinutes,
        credentials: command.credentials,
        session: command.session,
        isActive: command.isActive,
        linkedAt: command.now.toISOString(),
        ...(command.syncsPaidUntil ? { syncsPaidUntil: command.syncsPaidUntil.toISOString() } : {}),
      }),
    ];
  }
  if (state.status !== 'linked') throw accountNotFound();
  const at = command.now.toISOString();
  switch (command.type) {
    case 'ChangeAccountSettings': {
      if (command.ownerId !== state.ownerId) throw accountNotFound();
      const events: AccountEvent[] = [];
      if (command.accountName !== undefined || command.intervalMinutes !== undefined)
        events.push(
          AccountSettingsChanged({
            accountId: state.accountId,
            accountName: command.accountName,
            intervalMinutes: command.intervalMinutes,
            changedAt: at,
          }),
        );
      if (command.credentials)
        events.push(
          CredentialsChanged({
            accountId: state.accountId,
            credentials: command.credentials,
            session: command.session ?? null,
            changedAt: at,
          }),
        );
      return events;
    }
    case 'RecordSync': {
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
    case 'ExpireProviderSession':
      return state.isActive ? [ProviderSessionExpired({ accountId: state.accountId, expiredAt: at })] : [];
    case 'RestoreProviderSession':
      if (command.loginSessionId && (state.restoredBy ?? []).includes(command.loginSessionId)) return [];
      return [
        ProviderSessionRestored({
          accountId: state.accountId,
          session: command.session,
          loginSessionId: command.loginSessionId ?? null,
          credentials: command.credentials ?? null,
          restoredAt: at,
        }),
      ];
    case 'CaptureStaticQris':
      return state.staticQris === command.payload
        ? []
        : [StaticQrisCaptured({ accountId: state.accountId, payload: command.payload, capturedAt: at })];
    case 'HoldForTransfer': {
      if (command.ownerId !== state.ownerId) throw accountNotFound();
      if (state.held?.[command.transferId] !== undefined || (state.transferRefs ?? []).includes(command.transferId))
        return [];
      const available = availableBalance(state);
      if (command.amount > available)
        throw refuse('BALANCE_INSUFFICIENT', {
          message: `Balance insufficient: ${command.amount} needed, ${available} available`,
        });
      return [
        BalanceHeld({ accountId: state.accountId, transferId: command.transferId, amount: command.amount, heldAt: at }),
      ];
    }
    case 'ReleaseTransferHold':
      return state.held?.[command.transferId] === undefined
        ? []
        : [BalanceReleased({ accountId: state.accountId, transferId: command.transferId, releasedAt: at })];
    case 'DebitForTransfer': {
      if ((state.transferRefs ?? []).includes(command.transferId)) return []; // debited already
      const { transferId, amount, mutation } = command;
      return [
        BalanceDebited({ accountId: state.accountId, transferId, amount, debitedAt: at }),
        transferMutation(state.accountId, 'DEBIT', transferId, amount, mutation, at),
      ];
    }
    case 'ReverseTransferDebit': {
      if (
        !(state.transferRefs ?? []).includes(command.transferId) ||
        state.recentTransactionIds.includes(command.mutation.providerTransactionId)
      )
        return [];
      const { transferId, amount, mutation } = command;
      return [
        BalanceCredited({ accountId: state.accountId, transferId, amount, reason: 'transfer-failed', creditedAt: at }),
        transferMutation(state.accountId, 'CREDIT', transferId, amount, mutation, at),
      ];
    }
    default: {
      const never: never = command;
      return never;
    }
  }
}

const withoutHold = (held: Record<string, number> | undefined, transferId: string) => {
  const { [transferId]: _released, ...rest } = held ?? {};
  return rest;
};

/** What a transfer may still spend: the balance less what transfers in flight hold. */
export function availableBalance(state: LinkedAccount): number {
  return (state.balance ?? 0) - Object.values(state.held ?? {}).reduce((sum, amount) => sum + amount, 0);
}

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

export const account: Decider<Account, AccountCommand, AccountEvent> = {
  // v3: the balance and the transfers recorded
  snapshot: { name: 'account', version: 3, every: 100 },
  cached: true,
  // a wallet's transfers hold and debit its balance: one at a time from this process instead of racing for it
  serialised: true,
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};
