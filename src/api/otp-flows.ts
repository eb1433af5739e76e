import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { z } from 'zod';
import {
  nationalNumber,
  verificationIncomplete,
  type OtpWallet,
  type SendOtpInput,
  type VerifyOtpInput,
  type VerifyOutcome,
} from '../commands/otp-login.ts';
import type { LoginPurpose } from '../domain/wallet-login.ts';
import type { OtpSettings } from '../config.ts';
import { refuse } from '../errors.ts';
import { text } from '../text.ts';
import { attemptCounter, clientAddress, tooMany } from './attempt-limits.ts';
import { missingFields, parseBody } from './validation.ts';

/**
 * The OTP steps' fields, parsed for the flow (src/commands/otp-login-steps.ts): POST /api/v1/accounts names a step by
 * its action, the dashboard's OTP forms by the wallet chosen and the step's action; both refuse alike.
 */

export const sendActions = {
  'wallet-a-send-otp': 'WALLET-A',
  'wallet-b-send-otp': 'WALLET-B',
  'wallet-c-send-otp': 'WALLET-C',
} as const satisfies Record<string, OtpWallet>;

type VerifyAction = { wallet: OtpWallet; step: 'first' | 'second'; otp: z.ZodString; pin: boolean };
const otpOf = (length: string) =>
  text.trim().regex(new RegExp(`^[0-9]{${length}}$`), `${length.replace(',', ' to ')} digits`);
export const verifyActions = {
  'wallet-a-verify-otp': { wallet: 'WALLET-A', step: 'first', otp: otpOf('4'), pin: false },
  'wallet-b-verify-otp': { wallet: 'WALLET-B', step: 'first', otp: otpOf('6'), pin: true },
  // wallet C's code length is not fixed by the interface: 4 to 8 digits
  'wallet-c-verify-otp': { wallet: 'WALLET-C', step: 'first', otp: otpOf('4,8'), pin: false },
  'wallet-c-verify-second-otp': { wallet: 'WALLET-C', step: 'second', otp: otpOf('4,8'), pin: false },
} as const satisfies Record<string, VerifyAction>;

export type VerifyActionName = keyof typeof verifyActions;
type SendActionName = keyof typeof sendActions;
export type OtpActionName = SendActionName | VerifyActionName;

export const isVerifyAction = (action: unknown): action is VerifyActionName =>
  typeof action === 'string' && Object.hasOwn(verifyActions, action);
export const isOtpAction = (action: unknown): action is OtpActionName =>
  typeof action === 'string' && (Object.hasOwn(sendActions, action) || isVerifyAction(action));
/** The action that verifies the first code a wallet sent. */
export const firstVerifyActionOf = (wallet: OtpWallet) =>
  (Object.keys(verifyActions) as VerifyActionName[]).find(
    a => verifyActions[a].wallet === wallet && verifyActions[a].step === 'first',
  )!;

const pin = text.trim().regex(/^[0-9]{6}$/, '6 digits');
const phone = text.trim().regex(/^\+?[0-9]{8,15}$/, 'a phone number');

/** Step 1's fields as the flow checks them; the document says them too (src/api/schemas/accounts.ts). */
export const sendBody = z.object({
  phoneNumber: phone,
  pin: pin.optional(),
  providerCode: text.trim().min(1).max(40).optional(),
  accountName: text.trim().min(1).max(100).optional(),
  intervalMinutes: z.int().min(5).max(1440).optional(),
  accountId: z.uuid().optional(),
  verificationMethod: z.enum(['MESSENGER', 'SMS']).default('MESSENGER'),
});

export const verifyBody = (a: VerifyAction) =>
  z.object({
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
      throw refuse('VALIDATION_ERROR', {
        message:
          'Give accountId for a relogin, or providerCode, accountName and intervalMinutes for a new account, not both',
        errors: [{ path: 'body.accountId', message: 'not with accountName or intervalMinutes' }],
      });
    return { kind: 'relogin', accountId: body.accountId };
  }
  const missing = missingFields(raw, newAccountFields);
  if (missing.length > 0)
    throw refuse('MISSING_FIELDS', {
      message: `Required field missing: ${missing.join(', ')} (a new account needs providerCode, accountName and intervalMinutes; a relogin needs accountId)`,
      errors: missing.map(f => ({ path: `body.${f}`, message: 'required' })),
    });
  return {
    kind: 'new',
    providerCode: body.providerCode!,
    accountName: body.accountName!,
    intervalMinutes: body.intervalMinutes!,
  };
}

export const maskPhone = (phoneNumber: string) =>
  `${'*'.repeat(Math.max(phoneNumber.length - 4, 0))}${phoneNumber.slice(-4)}`;

/** What the answer to a send says: where the code went, and until when it is valid. */
export const otpSentMessage = (input: SendOtpInput, expiresAt: string) =>
  `OTP sent to ${maskPhone(input.phoneNumber)} by ${input.channel}; it is valid until ${expiresAt}`;

/** Step 1's fields (phoneNumber, pin, verificationMethod, and the new account's settings or a relogin's accountId). */
export function otpSendInputOf(wallet: OtpWallet, raw: unknown): SendOtpInput {
  const required = wallet === 'WALLET-A' ? ['phoneNumber', 'pin'] : ['phoneNumber'];
  const missing = missingFields(raw, required);
  if (missing.length > 0)
    throw refuse('MISSING_FIELDS', {
      message: `Required field missing: ${missing.join(', ')}`,
      errors: missing.map(f => ({ path: `body.${f}`, message: 'required' })),
    });
  const body = parseBody(sendBody, raw);
  return {
    wallet,
    phoneNumber: body.phoneNumber,
    pin: wallet === 'WALLET-A' ? body.pin : undefined,
    channel: body.verificationMethod,
    purpose: purposeOf(body, raw),
  };
}

/** The code of step 2 (or wallet C's second code) and the session step 1 opened, for the step `action` names. */
export function otpVerifyInputOf(action: VerifyActionName, raw: unknown): VerifyOtpInput {
  const verify = verifyActions[action];
  const missing = missingFields(raw, ['sessionId', 'otp', ...(verify.pin ? ['pin'] : [])]);
  if (missing.length > 0) throw verificationIncomplete(missing);
  const body = parseBody(verifyBody(verify), raw);
  return {
    wallet: verify.wallet,
    step: verify.step,
    sessionId: body.sessionId,
    otp: body.otp,
    pin: body.pin,
    accountId: body.accountId,
  };
}

/** The wallet a send action of POST /api/v1/accounts is for. */
export const walletOfSendAction = (action: SendActionName): OtpWallet => sendActions[action];

/** The interface's body for a code sent. */
export const otpSentAnswer = (input: SendOtpInput, sent: { sessionId: string; expiresAt: string }) => ({
  success: true,
  sessionId: sent.sessionId,
  message: otpSentMessage(input, sent.expiresAt),
});

/** The interface's body for a code verified: the account linked, or the second code wallet C asks for. */
export function otpVerifiedAnswer(outcome: VerifyOutcome) {
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
  return typeof body?.action === 'string' && Object.hasOwn(sendActions, body.action);
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
    {
      what: 'for this API key or user',
      counter: attemptCounter(
        app,
        'otp-sender',
        { max: settings.sendsPerKey, ...window },
        request =>
          request.owner?.keyId ?? (request.principal ? `user:${request.principal.userId}` : clientAddress(request)),
      ),
    },
    {
      what: 'for this phone number',
      counter: attemptCounter(app, 'otp-phone', { max: settings.sendsPerPhone, ...window }, phoneOf),
    },
  ];
  const refusal = (reply: FastifyReply, what: string, seconds: number) =>
    tooMany(reply, seconds, 'RATE_LIMITED', `Too many OTP requests ${what}; retry in ${seconds} s`, 'otp');
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
