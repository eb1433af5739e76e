import { randomBytes } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import { SandboxError } from './errors.ts';
import { allProviders } from './faults.ts';
import type { SandboxAccount, SandboxState } from './state.ts';

/** Provider sessions: bearer tokens bound to one account, living `sessionTtlMs` on the injected clock. */
export type SessionAnswer = {
  sessionToken: string;
  expiresAt: string;
  account: { accountRef: string; holderName: string };
};

export function sandboxSessions(state: SandboxState, clock: Clock, sessionTtlMs: number) {
  return {
    open(account: SandboxAccount): SessionAnswer {
      state.prune();
      const token = `sbx_${randomBytes(24).toString('base64url')}`;
      const expiresAt = new Date(clock.now().getTime() + sessionTtlMs).toISOString();
      state.sessions.set(token, {
        token,
        providerCode: account.providerCode,
        accountRef: account.accountRef,
        expiresAt,
      });
      state.changed();
      return {
        sessionToken: token,
        expiresAt,
        account: { accountRef: account.accountRef, holderName: account.holderName },
      };
    },

    /** The account a bearer token opens: unknown or expired tokens are 401, another account's token is 403. */
    authorize(providerCode: string, accountRef: string, authorization: string | undefined): SandboxAccount {
      const token = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1];
      const session = token ? state.sessions.get(token) : undefined;
      if (!session || Date.parse(session.expiresAt) <= clock.now().getTime())
        throw new SandboxError(401, 'SESSION_EXPIRED', 'Session expired or unknown; log in again');
      if (session.providerCode !== providerCode || session.accountRef !== accountRef)
        throw new SandboxError(403, 'ACCOUNT_FORBIDDEN', 'This session belongs to another account');
      return state.openAccount(providerCode, accountRef);
    },

    /** Ends every session of a provider (or of all of them) now; answers how many there were. */
    expireAll(providerCode: string): number {
      let expired = 0;
      for (const [token, session] of state.sessions)
        if (providerCode === allProviders || session.providerCode === providerCode) {
          state.sessions.delete(token);
          expired += 1;
        }
      if (expired > 0) state.changed();
      return expired;
    },
  };
}

export type SandboxSessions = ReturnType<typeof sandboxSessions>;
