import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { z } from 'zod';
import { checkPassword, startSession, wrongCredentials } from '../commands/login.ts';
import { normaliseEmail, registerUser } from '../commands/registration.ts';
import { refuse } from '../errors.ts';
import { checkNewPassword } from '../security/password-rules.ts';
import { findUser, findUserIdByEmail, type UserRow } from '../projections/users.ts';
import { text, unstorableTextMessage } from '../text.ts';
import { passwordAttemptPassed, takePasswordAttempt } from './account-slow-down.ts';
import { attemptCounter, clientAddress, tooMany } from './attempt-limits.ts';
import type { AppDeps } from './deps.ts';
import { setSessionCookie } from './session-auth.ts';
import { unstorableField } from './validation.ts';

/**
 * Registering and signing in, shared by the session surface (/api/auth, JSON) and the dashboard's own pages
 * (/login, /register, forms): one set of rules, one set of messages, and one count of attempts for both.
 */

export const allFieldsRequired = 'Semua field wajib diisi';
export const loginFieldsRequired = 'Email dan password wajib diisi';

const filled = text.trim().min(1);
const registerBody = z.object({ name: filled, email: filled, password: text.min(1) });
const loginBody = z.object({ email: filled, password: text.min(1) });

/** Text PostgreSQL cannot store is named, not taken for a missing field. */
export function refuseUnstorable(error: z.ZodError) {
  const field = unstorableField(error);
  if (field)
    throw refuse('INVALID_TEXT', {
      message: `Field ${field} berisi karakter yang tidak valid`,
      errors: [{ path: `body.${field}`, message: unstorableTextMessage }],
    });
}

export function parseRegistration(body: unknown) {
  const parsed = registerBody.safeParse(body ?? {});
  if (!parsed.success) refuseUnstorable(parsed.error);
  if (!parsed.success) throw refuse('REGISTER_FIELDS_MISSING', { message: allFieldsRequired });
  const { name, email, password } = parsed.data;
  checkNewPassword(password);
  if (name.trim().length > 100) throw refuse('NAME_TOO_LONG');
  if (email.length > 254 || !z.email().safeParse(normaliseEmail(email)).success) throw refuse('INVALID_EMAIL');
  return { name, email, password };
}

/** The email a sign-in form or body names, if it names one. */
function postedEmail(request: FastifyRequest): string | null {
  const email = (request.body as { email?: unknown } | undefined)?.email;
  return typeof email === 'string' ? normaliseEmail(email) : null;
}

const loginAttemptKey = (request: FastifyRequest) => `${clientAddress(request)}|${postedEmail(request) ?? ''}`;

/** A preHandler counting every attempt against each limit in turn: the first one over answers 429. */
function limitedBy(counters: ReturnType<typeof attemptCounter>[]): preHandlerAsyncHookHandler {
  return async (request, reply) => {
    for (const counter of counters) {
      const wait = await counter.take(request);
      if (wait !== null) throw tooMany(reply, wait, 'TOO_MANY_ATTEMPTS');
    }
  };
}

export type SignInLimits = { login: preHandlerAsyncHookHandler; register: preHandlerAsyncHookHandler };

/**
 * The attempt limits of signing in, made once on the root app so the JSON surface and the pages count together:
 * guessing one account's password; trying passwords across accounts (spraying); opening accounts in bulk.
 */
export function signInLimits(app: FastifyInstance, deps: AppDeps): SignInLimits {
  const limits = deps.config.authLimits;
  const perAddress = limitedBy([
    attemptCounter(app, 'login-address-email', limits.loginPerIpEmail, loginAttemptKey),
    attemptCounter(app, 'login-address', limits.loginPerIp, clientAddress),
  ]);
  return {
    // the account's slow-down last: an attempt an address limit refused is no guess at the account
    async login(request, reply) {
      await perAddress.call(this, request, reply);
      const email = postedEmail(request);
      if (email) await takePasswordAttempt(deps, request, reply, email);
    },
    register: limitedBy([attemptCounter(app, 'register-address', limits.registerPerIp, clientAddress)]),
  };
}

/** The user whose email and password these are; else 400 (fields missing) or 401 (wrong), the same for both causes. */
export async function checkLogin(deps: AppDeps, body: unknown): Promise<UserRow> {
  const parsed = loginBody.safeParse(body ?? {});
  if (!parsed.success) refuseUnstorable(parsed.error);
  if (!parsed.success) throw refuse('LOGIN_FIELDS_MISSING', { message: loginFieldsRequired });
  const { email, password } = parsed.data;
  const userId = await findUserIdByEmail(deps.pool, normaliseEmail(email));
  if (!(await checkPassword(deps, userId, email, password)) || !userId) throw wrongCredentials();
  const user = await findUser(deps.pool, userId);
  if (!user) throw wrongCredentials();
  return user;
}

/** Registers the user of a checked registration; answers who they are. */
export async function register(deps: AppDeps, input: ReturnType<typeof parseRegistration>) {
  const { userId } = await registerUser(deps, input);
  return { id: userId, name: input.name.trim(), email: normaliseEmail(input.email) };
}

const device = (request: FastifyRequest) => ({
  userAgent: request.headers['user-agent']?.slice(0, 500) ?? null,
  ip: request.ip ?? null,
});

/**
 * Starts a session for the user who gave their password (registering or signing in) and sets its cookie on the reply,
 * with the device cookie of their account; the account's slow-down forgets this browser's streak.
 */
export async function signIn(
  deps: AppDeps,
  user: { id: string; email: string },
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const userId = user.id;
  const started = await startSession(
    { ...deps, sessionTtlMs: deps.config.sessionTtlHours * 3_600_000 },
    userId,
    device(request),
  );
  const token = await deps.tokens.sign({ userId, ...started });
  setSessionCookie(deps, reply, token, started.expiresAt);
  await passwordAttemptPassed(deps, request, reply, user.email);
}
