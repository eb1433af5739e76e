import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Form tokens against cross-site requests, on top of the session cookie's SameSite=Lax: every form that changes
 * something carries one, and a post without the right one changes nothing.
 * - Signed in: the token is the session's own (`SessionTokens.formToken`, an HMAC of its id under the cookie's
 *   secret), the same on every page of the session and useless to any other session.
 * - Signing in or registering (no session yet): a random token in a cookie of its own, repeated in the form
 *   (double submit), so another site cannot sign a browser into an account of its choosing.
 */

export const FORM_COOKIE = 'svc_form';

export function sameToken(expected: string, given: unknown): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

/** The browser's pre-session form token, set now if it has none (or a malformed one). */
export function preSessionToken(request: FastifyRequest, reply: FastifyReply, secure: boolean): string {
  const held = request.cookies[FORM_COOKIE];
  if (held && /^[A-Za-z0-9_-]{43}$/.test(held)) return held;
  const token = randomBytes(32).toString('base64url');
  reply.setCookie(FORM_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure, path: '/' });
  return token;
}

/** The `_csrf` field of a posted form, whatever else the body holds. */
export const postedToken = (request: FastifyRequest): unknown => (request.body as { _csrf?: unknown } | undefined)?._csrf;
