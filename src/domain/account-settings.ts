import {
  AccountLinked,
  AccountSettingsChanged,
  CredentialsChanged,
  StaticQrisCaptured,
  type AccountEvent,
  type Sealed,
} from '../events/account.ts';
import { accountNotFound, type Account, type LinkedAccount } from './account-state.ts';

// What the account is: linked once, then its name, interval, credentials and the merchant's static QRIS as changed.

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

export type SettingsCommand =
  | {
      type: 'ChangeAccountSettings';
      ownerId: string;
      accountName?: string;
      intervalMinutes?: number;
      credentials?: Sealed;
      session?: Sealed | null;
      now: Date;
    }
  | { type: 'CaptureStaticQris'; payload: string; now: Date };

export type SettingsEvent = Extract<
  AccountEvent,
  { type: 'AccountSettingsChanged' | 'CredentialsChanged' | 'StaticQrisCaptured' }
>;

export function linkAccount(state: Account, command: LinkAccount): AccountEvent[] {
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

export function linked(d: Extract<AccountEvent, { type: 'AccountLinked' }>['data']): LinkedAccount {
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

export function decideSettings(state: LinkedAccount, command: SettingsCommand): AccountEvent[] {
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
    case 'CaptureStaticQris':
      return state.staticQris === command.payload
        ? []
        : [StaticQrisCaptured({ accountId: state.accountId, payload: command.payload, capturedAt: at })];
    default: {
      const never: never = command;
      return never;
    }
  }
}

export function evolveSettings(state: LinkedAccount, event: SettingsEvent): LinkedAccount {
  switch (event.type) {
    case 'AccountSettingsChanged':
      return { ...state, intervalMinutes: event.data.intervalMinutes ?? state.intervalMinutes };
    case 'CredentialsChanged':
      return { ...state, credentials: event.data.credentials, session: event.data.session ?? state.session };
    case 'StaticQrisCaptured':
      return { ...state, staticQris: event.data.payload };
    default: {
      const never: never = event;
      return never;
    }
  }
}
