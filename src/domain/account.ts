import type { AccountEvent } from '../events/account.ts';
import { accountNotFound, type Account } from './account-state.ts';
import { decideSession, evolveSession, type SessionCommand } from './account-session.ts';
import {
  decideSettings,
  evolveSettings,
  linkAccount,
  linked,
  type LinkAccount,
  type SettingsCommand,
} from './account-settings.ts';
import { decideSync, evolveSync, type SyncCommand } from './account-sync.ts';
import { decideTransferHold, evolveTransferHold, type TransferHoldCommand } from './account-transfers.ts';
import type { Decider } from './decider.ts';

// The account aggregate, one stream: each concern decides and folds its own commands and events (account-*.ts); they
// share the state, and the sync and the transfers one rule on it: a transfer's DEBIT (and its refund) is recorded once.
export { accountNotFound, type Account, type LinkedAccount } from './account-state.ts';
export { type LinkAccount } from './account-settings.ts';
export { mutationIdOf, type FetchedTransaction } from './account-sync.ts';
export { availableBalance, type TransferMutation } from './account-transfers.ts';

export const accountStream = (accountId: string) => `account-${accountId}`;

export type AccountCommand = LinkAccount | SettingsCommand | SessionCommand | SyncCommand | TransferHoldCommand;

function evolve(state: Account, event: AccountEvent): Account {
  if (event.type === 'AccountLinked') return linked(event.data);
  if (state.status !== 'linked') return state;
  switch (event.type) {
    case 'AccountSettingsChanged':
    case 'CredentialsChanged':
    case 'StaticQrisCaptured':
      return evolveSettings(state, event);
    case 'ProviderSessionExpired':
    case 'ProviderSessionRestored':
      return evolveSession(state, event);
    case 'MutationRecorded':
    case 'AccountSynced':
    case 'AccountSyncFailed':
    case 'AccountSyncPaused':
      return evolveSync(state, event);
    case 'BalanceHeld':
    case 'BalanceReleased':
    case 'BalanceDebited':
    case 'BalanceCredited':
      return evolveTransferHold(state, event);
    default: {
      const never: never = event;
      return never;
    }
  }
}

function decide(state: Account, command: AccountCommand): AccountEvent[] {
  if (command.type === 'LinkAccount') return linkAccount(state, command);
  if (state.status !== 'linked') throw accountNotFound();
  switch (command.type) {
    case 'ChangeAccountSettings':
    case 'CaptureStaticQris':
      return decideSettings(state, command);
    case 'ExpireProviderSession':
    case 'RestoreProviderSession':
      return decideSession(state, command);
    case 'RecordSync':
    case 'RecordSyncFailure':
    case 'PauseSync':
      return decideSync(state, command);
    case 'HoldForTransfer':
    case 'ReleaseTransferHold':
    case 'DebitForTransfer':
    case 'ReverseTransferDebit':
      return decideTransferHold(state, command);
    default: {
      const never: never = command;
      return never;
    }
  }
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
