import { createHash, randomBytes, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { SandboxProvider } from './catalogue.ts';
import { SandboxError } from './errors.ts';
import type { Faults } from './faults.ts';
import type { SandboxSessions, SessionAnswer } from './sessions.ts';
import type { OtpChallenge, SandboxState } from './state.ts';

/**
 * How one logs in to a sandbox provider. Banks: any username, its first good password is kept and checked
 * from then on, `sandbox-fail` never works. Wallets: any phone, an OTP sent to the sandbox inbox, a PIN where
 * the real wallet asks one, `000000` never works.
 */
export const refusedPassword = 'sandbox-fail';
export const refusedPin = '000000';
export const maxWrongOtps = 5;

export type ChallengeAnswer = { challengeId: string; expiresAt: string; otpLength: number };
export type SecondOtpAnswer = { secondOtpRequired: true; challengeId: string; expiresAt: string };

const passwordHash = (salt: string, password: string) =>
  createHash('sha256').update(`${salt}:${password}`).digest('hex');

const refused = (message: string) => new SandboxError(401, 'LOGIN_REFUSED', message);

function checkPin(pin: string | undefined): void {
  if (pin === undefined || !/^[0-9]{6}$/.test(pin))
    throw new SandboxError(400, 'PIN_REQUIRED', 'A 6-digit PIN is required');
  if (pin === refusedPin) throw refused('PIN refused');
}

/** A new OTP challenge, its code left in the sandbox inbox of the phone. */
function sendChallenge(
  { state, clock, otpTtlMs }: LoginDeps,
  provider: SandboxProvider,
  phoneNumber: string,
  channel: 'MESSENGER' | 'SMS',
  second: boolean,
): OtpChallenge {
  const length = provider.login.kind === 'otp' ? provider.login.otpLength : 6;
  const code = String(randomInt(0, 10 ** length)).padStart(length, '0');
  const now = clock.now();
  const challenge: OtpChallenge = {
    id: randomUUID(),
    providerCode: provider.providerCode,
    phoneNumber,
    code,
    expiresAt: new Date(now.getTime() + otpTtlMs).toISOString(),
    wrongTries: 0,
    second,
  };
  state.prune();
  state.challenges.set(challenge.id, challenge);
  state.inbox.set(phoneNumber, {
    phone: phoneNumber,
    providerCode: provider.providerCode,
    code,
    channel,
    sentAt: now.toISOString(),
  });
  state.changed();
  return challenge;
}

/** A bank login's first good password is kept and checked from then on; `sandbox-fail` never works. */
function checkBankPassword(
  state: SandboxState,
  provider: SandboxProvider,
  input: { username: string; password: string },
): void {
  const invalid = new SandboxError(401, 'INVALID_CREDENTIALS', 'Username or password is wrong');
  if (input.password === refusedPassword) throw invalid;
  const known = state.findBankLogin(provider.providerCode, input.username);
  if (known) {
    const given = Buffer.from(passwordHash(known.salt, input.password), 'hex');
    if (!timingSafeEqual(given, Buffer.from(known.passwordHash, 'hex'))) throw invalid;
  } else {
    const salt = randomBytes(16).toString('hex');
    state.saveBankLogin({
      providerCode: provider.providerCode,
      username: input.username,
      salt,
      passwordHash: passwordHash(salt, input.password),
    });
  }
}

/** The provider's challenge, unless it is gone, locked by wrong codes or expired. */
function openChallenge(state: SandboxState, clock: Clock, provider: SandboxProvider, id: string): OtpChallenge {
  const challenge = state.challenges.get(id);
  if (!challenge || challenge.providerCode !== provider.providerCode)
    throw new SandboxError(
      404,
      'CHALLENGE_NOT_FOUND',
      'No such OTP challenge (or it was used already); request a new OTP',
    );
  if (challenge.wrongTries >= maxWrongOtps)
    throw new SandboxError(410, 'CHALLENGE_LOCKED', 'Too many wrong codes; request a new OTP');
  if (Date.parse(challenge.expiresAt) <= clock.now().getTime())
    throw new SandboxError(410, 'CHALLENGE_EXPIRED', 'The OTP expired; request a new one');
  return challenge;
}

/** How the provider logs in by OTP; a provider with passwords refuses OTP calls (400). */
function otpLoginOf(provider: SandboxProvider) {
  if (provider.login.kind !== 'otp')
    throw new SandboxError(400, 'OTP_NOT_SUPPORTED', `${provider.providerCode} logs in with a username and password`);
  return provider.login;
}

type LoginDeps = {
  state: SandboxState;
  clock: Clock;
  faults: Faults;
  sessions: SandboxSessions;
  otpTtlMs: number;
};

export function sandboxLogin(deps: LoginDeps) {
  const { state, clock, faults, sessions } = deps;
  const refuseIfFaulted = (provider: SandboxProvider) => {
    if (faults.refusesLogin(provider.providerCode))
      throw refused(`${provider.providerCode} refuses logins (sandbox fault)`);
  };

  const sendCode = (provider: SandboxProvider, phoneNumber: string, channel: 'MESSENGER' | 'SMS', second: boolean) =>
    sendChallenge(deps, provider, phoneNumber, channel, second);

  return {
    loginBank(
      provider: SandboxProvider,
      input: { username: string; password: string; accountNumber: string },
    ): SessionAnswer {
      refuseIfFaulted(provider);
      checkBankPassword(state, provider, input);
      return sessions.open(state.openAccount(provider.providerCode, input.accountNumber));
    },

    /** Business wallets link a merchant account by phone number alone (the service's loginFlow 'direct'). */
    loginDirect(provider: SandboxProvider, input: { phoneNumber: string }): SessionAnswer {
      if (provider.login.kind !== 'otp' || !provider.login.direct)
        throw new SandboxError(
          400,
          'OTP_REQUIRED',
          `${provider.providerCode} logs in with an OTP: POST /providers/${provider.providerCode}/otp`,
        );
      refuseIfFaulted(provider);
      return sessions.open(state.openAccount(provider.providerCode, input.phoneNumber));
    },

    sendOtp(
      provider: SandboxProvider,
      input: { phoneNumber: string; pin?: string | undefined; channel: 'MESSENGER' | 'SMS' },
    ): ChallengeAnswer {
      const login = otpLoginOf(provider);
      if (login.pinAt === 'otp') checkPin(input.pin);
      refuseIfFaulted(provider);
      const challenge = sendCode(provider, input.phoneNumber, input.channel, false);
      return { challengeId: challenge.id, expiresAt: challenge.expiresAt, otpLength: login.otpLength };
    },

    verifyOtp(
      provider: SandboxProvider,
      input: { challengeId: string; otp: string; pin?: string | undefined },
    ): SessionAnswer | SecondOtpAnswer {
      const login = otpLoginOf(provider);
      const challenge = openChallenge(state, clock, provider, input.challengeId);
      if (login.pinAt === 'verify') checkPin(input.pin);
      refuseIfFaulted(provider);
      if (input.otp !== challenge.code) {
        challenge.wrongTries += 1;
        state.changed();
        throw new SandboxError(401, 'WRONG_OTP', `Wrong code; ${maxWrongOtps - challenge.wrongTries} tries left`);
      }
      state.challenges.delete(challenge.id); // usable once
      state.changed();
      if (login.mayAskSecondOtp && !challenge.second && faults.requiresSecondOtp(provider.providerCode)) {
        const inbox = state.inbox.get(challenge.phoneNumber);
        const second = sendCode(provider, challenge.phoneNumber, inbox?.channel ?? 'MESSENGER', true);
        return { secondOtpRequired: true, challengeId: second.id, expiresAt: second.expiresAt };
      }
      return sessions.open(state.openAccount(provider.providerCode, challenge.phoneNumber));
    },
  };
}

export type SandboxLoginFlows = ReturnType<typeof sandboxLogin>;
