import { applyWalletLogin, type WalletLoginOutcome } from './calls.ts';
import { call, causeOf, followUp, log, reaction, type Step, type Stored } from './reaction.ts';
import { sagaOf, type ReactionDeps, type Saga } from './runner.ts';

/** What applying the login came to: an account deleted meanwhile is said in the log, nothing more. */
export const applied: Step<{ sessionId: string; outcome: WalletLoginOutcome }> = {
  decide: ({ sessionId, outcome }) =>
    outcome === 'account-gone' ? [log({ sessionId }, 'wallet login completed for a deleted account')] : [],
};

const completed: Step<Stored<'WalletLoginCompleted'>> = {
  decide(event, _, now) {
    const context = {
      actor: 'system:wallet-login',
      now,
      correlationId: event.data.sessionId,
      causationId: causeOf(event),
    };
    return [call(applyWalletLogin(event.data, context), followUp(applied, { sessionId: event.data.sessionId }))];
  },
};

/**
 * A completed OTP login links or reactivates its account. The request that completed it does this at once; this
 * saga does it again from the event, so a crash between the two appends loses nothing (both are idempotent).
 */
export const walletLogins = reaction('wallet-login', { WalletLoginCompleted: completed });

/** The reaction as the runner runs it. */
export const walletLoginSaga = (deps: ReactionDeps): Saga => sagaOf(walletLogins, deps);
