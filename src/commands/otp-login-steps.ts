import type { OtpSettings } from '../config.ts';
import type { ProviderConnector } from '../providers/connector.ts';
import { sendOtp, verifyOtp, type SendOtpInput, type VerifyOtpInput, type VerifyOutcome } from './otp-login.ts';
import type { CommandDeps } from './deps.ts';

/**
 * The steps of an e-wallet's OTP login as POST /api/v1/accounts's actions and the dashboard's OTP forms both run them:
 * each surface parses its own fields and says the outcome in its own way.
 */

type OtpTtl = Pick<OtpSettings, 'sessionTtlMinutes'>;

/** The connector, with `beforeSend` run right before an OTP send reaches the provider (and able to refuse it). */
function countingSends(connector: ProviderConnector, beforeSend: () => Promise<void>): ProviderConnector {
  return new Proxy(connector, {
    get(target, property) {
      if (property === 'sendOtp')
        return async (...args: Parameters<ProviderConnector['sendOtp']>) => {
          await beforeSend();
          return target.sendOtp(...args);
        };
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Step 1: the provider sends a code. `beforeSend` runs when the send is about to reach the provider, after every check
 * of ours: the send limits count only those.
 */
export function sendOtpLoginCode(
  deps: CommandDeps,
  settings: OtpTtl,
  ownerId: string,
  input: SendOtpInput,
  beforeSend: () => Promise<void>,
) {
  return sendOtp(
    { ...deps, otpSessionTtlMinutes: settings.sessionTtlMinutes, connector: countingSends(deps.connector, beforeSend) },
    ownerId,
    input,
  );
}

/** Step 2 (and wallet C's step 3): the code the provider sent; it may ask for a second one. */
export function verifyOtpLoginCode(
  deps: CommandDeps,
  settings: OtpTtl,
  ownerId: string,
  input: VerifyOtpInput,
): Promise<VerifyOutcome> {
  return verifyOtp({ ...deps, otpSessionTtlMinutes: settings.sessionTtlMinutes }, ownerId, input);
}
