import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { z } from 'zod';
import { nationalNumber, sendOtp, verificationIncomplete, verifyOtp, type OtpWallet } from '../commands/otp-login.ts';
import type { LoginPurpose } from '../commands/wallet-login.ts';
import type { OtpSettings } from '../config.ts';
import { refuse } from '../errors.ts';
import type { ProviderConnector } from '../providers/connector.ts';
import { text } from '../text.ts';
import { attemptCounter, clientAddress, tooMany } from './attempt-limits.ts';
import type { AppDeps } from './deps.ts';
import { missingFields, parseBody } from './validation.ts';

/** The OTP steps of POST /api/v1/accounts, by action. */
const sendActions: Record<string, OtpWallet> = {
  'wallet-a-send-otp': 'WALLET-A',
  'wallet-b-send-otp': 'WALLET-B',
  'wallet-c-send-otp': 'WALLET-C',
};

type VerifyAction = { wallet: OtpWallet; step: 'first' | 'second'; otp: z.ZodString; pin: boolean };
const otpOf = (length: string) => text.trim().regex(new RegExp(`^[0-9]{${length}}$`), `${length.replace(',', ' to ')} digits`);
const verifyActions: Record<string, VerifyAction> = {
  'wallet-a-verify-otp': { wallet: 'WALLET-A', step: 'first', otp: otpOf('4'), pin: false },
  'wallet-b-verify-otp': { wallet: 'WALLET-B', step: 'first', otp: otpOf('6'), pin: true },
  // wallet C's code length is not fixed by the interface: 4 to 8 digits
  'wallet-c-verify-otp': { wallet: 'WALLET-C', step: 'first', otp: otpOf('4,8'), pin: false },
  'wallet-c-verify-second-otp': { wallet: 'WALLET-C', step: 'second', otp: otpOf('4,8'), pin: false },
};

export const isOtpAction = (action: unknown): action is string =>
  typeof action === 'string' && (action in sendActions || action in verifyActions);

const pin = text.trim().regex(/^[0-9]{6}$/, '6 digits');
const phone = text.trim().regex(/^\+?[0-9]{8,15}$/, 'a phone number');

const sendBody = z.object({
  action: text,
  phoneNumber: phone,
  pin: pin.optional(),
  providerCode: text.trim().min(1).max(40).optional(),
  accountName: text.trim().min(1).max(100).optional(),
  intervalMinutes: z.int().min(5).max(1440).optional(),
  accountId: z.uuid().optional(),
  verificationMethod: z.enum(['MESSENGER', 'SMS']).default('MESSENGER'),
});

const verifyBody = (a: VerifyAction) =>
  z.object({
    action: text,
    sessionId: z.uuid('the sessionId returned by the previous step'),
    otp: a.otp,
    pin: a.pin ? pin : pin.optional(),
    accountId: z.uuid().optional(),
  });

const newAccountFields = ['providerCode', 'accountName', 'intervalMinutes'] as const;

/** What the login is for: accountId names a relogin; otherwise the new account's settings are all needed. */
function purposeOf(body: z.infer<typeof sendBody>, raw: unknown): LoginPurpose {
  if (body.accountId !== undefined) {
    if (body.accountName !== undefined || body.intervalMinutes !== undefined)
      throw refuse('VALIDATION_ERROR', { message: 'Give accountId for a relogin, or providerCode, accountName and intervalMinutes for a new account, not both', errors: [
        { path: 'body.accountId', message: 'not with accountName or intervalMinutes' },
      ] });
    return { kind: 'relogin', accountId: body.accountId };
  }
  const missing = missingFields(raw, newAccountFields);
  if (missing.length > 0)
    throw refuse('MISSING_FIELDS', { message: `Required field missing: ${missing.join(', ')} (a new account needs providerCode, accountName and intervalMinutes; a relogin needs accountId)`, errors: missing.map(f => ({ path: `body.${f}`, message: 'required' })) });
  return { kind: 'new', providerCode: body.providerCode!, accountName: body.accountName!, intervalMinutes: body.intervalMinutes! };
}

const maskPhone = (phoneNumber: string) => `${'*'.repeat(Math.max(phoneNumber.length - 4, 0))}${phoneNumber.slice(-4)}`;

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
 * Runs one OTP step and answers the interface's body for it. `beforeSend` runs when a send is about to reach the
 * provider, after every check of ours: the send limits count only those.
 */
export async function runOtpAction(deps: AppDeps, ownerId: string, raw: unknown, beforeSend: () => Promise<void>): Promise<object> {
  const action = (raw as { action: string }).action;
  const ttl = { otpSessionTtlMinutes: deps.config.otp.sessionTtlMinutes };
  const sendWallet = sendActions[action];
  if (sendWallet) {
    const required = sendWallet === 'WALLET-A' ? ['phoneNumber', 'pin'] : ['phoneNumber'];
    const missing = missingFields(raw, required);
    if (missing.length > 0)
      throw refuse('MISSING_FIELDS', { message: `Required field missing: ${missing.join(', ')}`, errors: missing.map(f => ({ path: `body.${f}`, message: 'required' })) });
    const body = parseBody(sendBody, raw);
    const sent = await sendOtp({ ...deps, ...ttl, connector: countingSends(deps.connector, beforeSend) }, ownerId, {
      wallet: sendWallet,
      phoneNumber: body.phoneNumber,
      pin: sendWallet === 'WALLET-A' ? body.pin : undefined,
      channel: body.verificationMethod,
      purpose: purposeOf(body, raw),
    });
    return {
      success: true,
      sessionId: sent.sessionId,
      message: `OTP sent to ${maskPhone(body.phoneNumber)} by ${body.verificationMethod}; it is valid until ${sent.expiresAt}`,
    };
  }

  const verify = verifyActions[action]!;
  const missing = missingFields(raw, ['sessionId', 'otp', ...(verify.pin ? ['pin'] : [])]);
  if (missing.length > 0) throw verificationIncomplete(missing);
  const body = parseBody(verifyBody(verify), raw);
  const outcome = await verifyOtp({ ...deps, ...ttl }, ownerId, {
    wallet: verify.wallet,
    step: verify.step,
    sessionId: body.sessionId,
    otp: body.otp,
    pin: body.pin,
    accountId: body.accountId,
  });
  if (outcome.kind === 'completed') return { success: true, accountId: outcome.accountId };
  return {
    success: false,
    requireSecondOTP: true,
    sessionId: outcome.sessionId,
    message: 'The provider sent a second OTP: verify it with action wallet-c-verify-second-otp and this sessionId',
  };
}

const isSend = (request: FastifyRequest) => {
  const body = request.body as { action?: unknown } | undefined;
  return typeof body?.action === 'string' && body.action in sendActions;
};

export type OtpSendLimits = {
  /** preHandler: a send whose limit is spent answers 429 before anything else is checked or asked. */
  refuseSpent: preHandlerAsyncHookHandler;
  /** Counts a send about to reach the provider; 429 instead if a concurrent send spent the limit meanwhile. */
  count(request: FastifyRequest, reply: FastifyReply): Promise<void>;
};

/**
 * Send-OTP limits, per API key (codes one integration asks for; on the dashboard's pages, per user) and per phone
 * number (codes a person receives, however they were asked for: made once on the root app, shared by both surfaces),
 * counted with @fastify/rate-limit's limiter in PostgreSQL: 429 with the time to wait. Only sends that reach the provider count:
 * a send refused by our own checks (missing field, unknown provider, malformed PIN, no points) costs nothing.
 */
export function otpSendLimits(app: FastifyInstance, settings: OtpSettings): OtpSendLimits {
  const window = { windowMinutes: settings.windowMinutes };
  const phoneOf = (request: FastifyRequest) => {
    const phoneNumber = (request.body as { phoneNumber?: unknown }).phoneNumber;
    return typeof phoneNumber === 'string' ? nationalNumber(phoneNumber) : '';
  };
  const limits = [
    { what: 'for this API key or user', counter: attemptCounter(app, 'otp-sender', { max: settings.sendsPerKey, ...window }, request => request.owner?.keyId ?? (request.principal ? `user:${request.principal.userId}` : clientAddress(request))) },
    { what: 'for this phone number', counter: attemptCounter(app, 'otp-phone', { max: settings.sendsPerPhone, ...window }, phoneOf) },
  ];
  const refusal = (reply: FastifyReply, what: string, seconds: number) => tooMany(reply, seconds, 'RATE_LIMITED', `Too many OTP requests ${what}; retry in ${seconds} s`);
  return {
    async refuseSpent(request, reply) {
      if (!isSend(request)) return;
      for (const { what, counter } of limits) {
        const wait = await counter.spent(request);
        if (wait !== null) throw refusal(reply, what, wait);
      }
    },
    async count(request, reply) {
      for (const { what, counter } of limits) {
        const wait = await counter.take(request);
        if (wait !== null) throw refusal(reply, what, wait);
      }
    },
  };
}
