import type { FastifyReply, FastifyRequest } from 'fastify';
import { normaliseEmail } from '../commands/registration.ts';
import { forgetAttempts, takeSlowedAttempt } from '../db/attempt-counts.ts';
import { tooMany } from './attempt-limits.ts';
import type { AppDeps } from './deps.ts';

/**
 * Wrong passwords for one account, wherever they come from (any number of addresses): after a few, each further
 * attempt waits a delay that doubles up to a cap, and is refused 429 with Retry-After before its password is checked.
 * Counted in PostgreSQL on the database's clock (src/db/attempt-counts.ts), so every instance holds the same account
 * back. A browser that signed in to the account before carries its device cookie and counts on a slow-down of its own
 * (src/security/device-cookie.ts): strangers' guesses slow strangers down, never the owner.
 */

/** The device cookie's name: `__Host-` under https (host-only, path /, Secure: no sub-domain or path can plant it). */
export const deviceCookieName = (secure: boolean) => (secure ? '__Host-svc_device' : 'svc_device');

const deviceCookieDays = 180;

const secureOf = (deps: AppDeps) => deps.config.publicBaseUrl.startsWith('https://');

/** The counter an attempt at `email`'s password counts on: its browser's device one, else the account's. */
function slowDownKey(deps: AppDeps, request: FastifyRequest, email: string): string {
  const cookie = request.cookies[deviceCookieName(secureOf(deps))];
  const device = deps.deviceCookies.deviceOf(cookie, email, deps.wallClock.now());
  return device ? `login-device:${device}` : `login-account:${email}`;
}

/** Counts an attempt at the password of `email`'s account, or refuses it (429, Retry-After) while it is held back. */
export async function takePasswordAttempt(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  email: string,
): Promise<void> {
  const { after, maxSeconds, windowMinutes } = deps.config.authLimits.accountSlowDown;
  const key = slowDownKey(deps, request, normaliseEmail(email));
  const waitMs = await takeSlowedAttempt(deps.pool, key, { after, maxSeconds, windowMs: windowMinutes * 60_000 });
  if (waitMs > 0) throw tooMany(reply, Math.ceil(waitMs / 1000), 'TOO_MANY_ATTEMPTS');
}

/**
 * After the right password for `email`'s account: the streak it counted on is forgotten, and the browser gets a new
 * device cookie of that account.
 */
export async function passwordAttemptPassed(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  email: string,
): Promise<void> {
  const normalised = normaliseEmail(email);
  await forgetAttempts(deps.pool, slowDownKey(deps, request, normalised));
  const expires = new Date(deps.wallClock.now().getTime() + deviceCookieDays * 86_400_000);
  reply.setCookie(deviceCookieName(secureOf(deps)), deps.deviceCookies.issue(normalised, expires), {
    httpOnly: true,
    // sent only with this site's own requests: the sign-in forms and /api/auth
    sameSite: 'strict',
    secure: secureOf(deps),
    path: '/',
    expires,
  });
}
