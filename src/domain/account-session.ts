import { ProviderSessionExpired, ProviderSessionRestored, type AccountEvent, type Sealed } from '../events/account.ts';
import type { LinkedAccount } from './account-state.ts';

// The provider session: expired (the account inactive until a login), restored by a sync's renewal or an OTP login.

/** OTP logins remembered, so the saga re-applying a login changes nothing. */
const rememberedLogins = 20;

export type SessionCommand =
  | { type: 'ExpireProviderSession'; now: Date }
  | {
      type: 'RestoreProviderSession';
      session: Sealed;
      /** a PIN given again at an OTP relogin */
      credentials?: Sealed | null;
      /** the OTP login restoring it; null when the sync renewed the session itself */
      loginSessionId?: string | null;
      now: Date;
    };

export type SessionEvent = Extract<AccountEvent, { type: 'ProviderSessionExpired' | 'ProviderSessionRestored' }>;

export function decideSession(state: LinkedAccount, command: SessionCommand): AccountEvent[] {
  const at = command.now.toISOString();
  switch (command.type) {
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
    default: {
      const never: never = command;
      return never;
    }
  }
}

export function evolveSession(state: LinkedAccount, event: SessionEvent): LinkedAccount {
  switch (event.type) {
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
    default: {
      const never: never = event;
      return never;
    }
  }
}
