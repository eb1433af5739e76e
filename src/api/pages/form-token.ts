import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SessionTokens } from '../../security/session-token.ts';

/**
 * Form tokens against cross-site requests, on top of the session cookie's SameSite=Lax: every form that changes
 * something carries one, and a post without the right one changes nothing.
 * - Signed in: the token is the session's own (`SessionTokens.formToken`, an HMAC of its id under the cookie's
 *   secret), the same on every page of the session and useless to any other session.
 * - Signing in or registering (no session yet): a random nonce in a cookie of its own, and in the form the server's
 *   HMAC of it (`SessionTokens.preSessionFormToken`). A value another origin plants in the cookie has no token to go
 *   with it; under an https base URL the cookie is `__Host-` prefixed, so a sibling sub-domain cannot plant it at all.
 */

const nonceShape = /^[A-Za-z0-9_-]{43}$/;

/** The pre-session cookie's name: `__Host-` under https (host-only, path /, Secure: no sub-domain or path can plant it). */
export const formCookieName = (secure: boolean) => (secure ? '__Host-svc_form' : 'svc_form');

export function sameToken(expected: string, given: unknown): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

/** The form token of the browser's pre-session nonce, whose cookie is set now if it has none (or a malformed one). */
export function preSessionToken(
  request: FastifyRequest,
  reply: FastifyReply,
  tokens: SessionTokens,
  secure: boolean,
): string {
  const name = formCookieName(secure);
  let nonce = request.cookies[name];
  if (!nonce || !nonceShape.test(nonce)) {
    nonce = randomBytes(32).toString('base64url');
    reply.setCookie(name, nonce, { httpOnly: true, sameSite: 'lax', secure, path: '/' });
  }
  return tokens.preSessionFormToken(nonce);
}

/** True when the posted form carries the token of the browser's own pre-session cookie. */
export function preSessionTokenPosted(request: FastifyRequest, tokens: SessionTokens, secure: boolean): boolean {
  const nonce = request.cookies[formCookieName(secure)];
  return !!nonce && nonceShape.test(nonce) && sameToken(tokens.preSessionFormToken(nonce), postedToken(request));
}

/** The `_csrf` field of a posted form, whatever else the body holds. */
export const postedToken = (request: FastifyRequest): unknown =>
  (request.body as { _csrf?: unknown } | undefined)?._csrf;
