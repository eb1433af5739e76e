import { refuse } from '../errors.ts';
import {
  AccountLinked,
  AccountSettingsChanged,
  AccountSyncFailed,
  AccountSyncPaused,
  AccountSynced,
  CredentialsChanged,
  MutationRecorded,
  ProviderSessionExpired,
  ProviderSessionRestored,
  StaticQrisCaptured,
  type AccountEvent,
  type SyncTrigger,
} from '../events/account.ts';
import type { ProviderTransaction } from '../providers/connector.ts';
import type { Sealed } from '../security/credentials.ts';
import type { Decider } from './handle.ts';

export const accountStream = (accountId: string) => `account-${accountId}`;

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
  /** the merchant's static QRIS, once read from the provider */
  staticQris?: string | null;
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
  now: Date;
};

/** A provider transaction with the mutation id it will get (derived outside: decide draws no ids). */
export type FetchedTransaction = ProviderTransaction & { mutationId: string };

export type AccountCommand =
  | LinkAccount
  | { type: 'ChangeAccountSettings'; ownerId: string; accountName?: string; intervalMinutes?: number; credentials?: Sealed; session?: Sealed | null; now: Date }
  | { type: 'RecordSync'; slot: string | null; trigger: SyncTrigger; balance: number; transactions: FetchedTransaction[]; now: Date }
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
  | { type: 'CaptureStaticQris'; payload: string; now: Date };

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
        recentTransactionIds: [...state.recentTransactionIds, event.data.providerTransactionId].slice(-rememberedTransactions),
      };
    case 'AccountSynced':
      return {
        ...state,
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
        restoredBy: loginSessionId ? [...(state.restoredBy ?? []), loginSessionId].slice(-rememberedLogins) : (state.restoredBy ?? []),
      };
    }
    case 'StaticQrisCaptured':
      return { ...state, staticQris: event.data.payload };
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
        events.push(AccountSettingsChanged({ accountId: state.accountId, accountName: command.accountName, intervalMinutes: command.intervalMinutes, changedAt: at }));
      if (command.credentials)
        events.push(CredentialsChanged({ accountId: state.accountId, credentials: command.credentials, session: command.session ?? null, changedAt: at }));
      return events;
    }
    case 'RecordSync': {
      // a slot is synchronised once, however many jobs run for it
      if (command.slot !== null && state.lastSlot !== null && command.slot <= state.lastSlot) return [];
      const seen = new Set(state.recentTransactionIds);
      const fresh: FetchedTransaction[] = [];
      for (const t of command.transactions) {
        if (seen.has(t.id)) continue;
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
        AccountSynced({ accountId: state.accountId, balance: command.balance, syncedAt: at, slot: command.slot, cursor: last?.id ?? state.cursor, trigger: command.trigger }),
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
      return state.staticQris === command.payload ? [] : [StaticQrisCaptured({ accountId: state.accountId, payload: command.payload, capturedAt: at })];
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const account: Decider<Account, AccountCommand, AccountEvent> = {
  snapshot: { name: 'account', version: 2, every: 100 },
  cached: true,
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};
