import { applyWalletLogin } from '../commands/otp-login.ts';
import type { SagaDeps } from './all.ts';
import type { Saga } from './runner.ts';

/**
 * A completed OTP login links or reactivates its account. The request that completed it does this at once; this
 * saga does it again from the event, so a crash between the two appends loses nothing (both are idempotent).
 */
export function walletLoginSaga(deps: SagaDeps): Saga {
  return {
    name: 'wallet-login',
    handles: ['WalletLoginCompleted'],
    async handle(event) {
      if (event.type !== 'WalletLoginCompleted') return;
      const outcome = await applyWalletLogin(deps, event.data, {
        actor: 'system:wallet-login',
        now: deps.clock.now(),
        correlationId: event.data.sessionId,
        causationId: `${event.streamId}@${event.revision}`,
      });
      if (outcome === 'account-gone') deps.log.info({ sessionId: event.data.sessionId }, 'wallet login completed for a deleted account');
    },
  };
}
