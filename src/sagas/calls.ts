import * as otpLogin from '../commands/otp-login.ts';
import type { EventOf } from '../events/event.ts';
import type { WalletLoginCompleted } from '../events/wallet-login.ts';
import type { Position } from '../store/event-store.ts';
import type { Call, ReactionContext } from './reaction.ts';
import { commandContext } from './runner.ts';

/**
 * The workflow functions steps call, each a typed function with what it calls described beside it: the runner calls
 * `run`, tests compare `what`. A new call is a builder here; the runner does not change.
 */

export type WalletLogin = EventOf<typeof WalletLoginCompleted>['data'];
export type WalletLoginOutcome = Position | null | 'account-gone';

/** Links or reactivates the account of a completed OTP login (otp-login.ts's applyWalletLogin, idempotent). */
export const applyWalletLogin = (login: WalletLogin, context: ReactionContext): Call<WalletLoginOutcome> => ({
  what: { call: 'applyWalletLogin', login, context },
  run: deps => otpLogin.applyWalletLogin(deps, login, commandContext(context)),
});
