import { isIP } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionTokens } from '../security/session-token.ts';

/**
 * The session's cookies. `svc_token` (the interface's name) holds the JWT; a page of another origin on the same host
 * (another port: cookies do not tell ports apart) or a sibling sub-domain can plant a cookie of that name, so:
 * - a request carrying more than one `svc_token` (a planted one with a longer path is sent first, and would be the one
 *   read) is signed out, and every copy it can have is expired;
 * - under an https base URL the JWT is bound to a companion `__Host-svc_bind` cookie (Secure, Path=/, no Domain: no
 *   sub-domain, no insecure origin and no path can set it), holding an HMAC of the JWT under the service's secret; a
 *   `svc_token` without its companion names no session.
 * Over plain http neither prefix nor Secure exists, and a lone planted `svc_token` cannot be told from the user's own.
 */
export const SESSION_COOKIE = 'svc_token';
export const BINDING_COOKIE = '__Host-svc_bind';

/** Where the dashboard's cookies are read: a planted copy is expired on these paths whatever the request's path. */
const knownPaths = ['/', '/dashboard', '/admin', '/api', '/api/auth', '/api/dashboard', '/api/admin'];
/** A request path deeper than this is not searched further for paths a copy could have been set on. */
const maxPaths = 48;

export const secureCookies = (publicBaseUrl: string) => publicBaseUrl.startsWith('https://');

/** How many `svc_token` the browser sent: the raw header, since the cookie parser keeps only one of each name. */
export function sessionCookieCount(request: FastifyRequest): number {
  const header = request.headers.cookie;
  if (!header) return 0;
  let count = 0;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq >= 0 && pair.slice(0, eq).trim() === SESSION_COOKIE) count++;
  }
  return count;
}

/**
 * Every path a cookie sent with a request to `url` can carry (those that path-match it: each prefix ending at a slash,
 * with and without it), and the dashboard's own paths.
 */
export function cookiePathsOf(url: string): string[] {
  const path = url.split(/[?#]/, 1)[0]!;
  const paths = new Set(knownPaths);
  for (let i = 1; i <= path.length && paths.size < knownPaths.length + maxPaths; i++) {
    if (path[i - 1] === '/' || i === path.length || path[i] === '/') paths.add(path.slice(0, i));
  }
  return [...paths];
}

/** The base URL's host and its parent domains: a sibling sub-domain may have planted a copy on any of them. */
function cookieDomainsOf(publicBaseUrl: string): (string | undefined)[] {
  const host = new URL(publicBaseUrl).hostname;
  if (isIP(host.replace(/^\[|\]$/g, '')) || !host.includes('.')) return [undefined];
  const labels = host.split('.');
  return [undefined, ...labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'))];
}

/**
 * A request with more than one `svc_token` is signed out: the cookie is not read (every surface then answers as for
 * no session: 401, or the sign-in page), and every copy is expired on every path and domain it can have been set on.
 * Registered on the root app after the cookie parser, so that no route reads the planted copy.
 */
export function refusePlantedSessionCookies(app: FastifyInstance, publicBaseUrl: string) {
  const secure = secureCookies(publicBaseUrl);
  const domains = cookieDomainsOf(publicBaseUrl);
  app.addHook('onRequest', async (request, reply) => {
    if (sessionCookieCount(request) < 2) return;
    delete request.cookies[SESSION_COOKIE];
    for (const path of cookiePathsOf(request.url))
      for (const domain of domains) reply.clearCookie(SESSION_COOKIE, { path, domain, secure, httpOnly: true });
    if (secure) clearBinding(reply);
  });
}

/** Sets the session's cookie, and under https its companion, both ending with the session. */
export function setSessionCookies(
  reply: FastifyReply,
  tokens: SessionTokens,
  publicBaseUrl: string,
  token: string,
  expiresAt: Date,
) {
  const secure = secureCookies(publicBaseUrl);
  const options = { httpOnly: true, sameSite: 'lax', secure, path: '/', expires: expiresAt } as const;
  reply.setCookie(SESSION_COOKIE, token, options);
  if (secure) reply.setCookie(BINDING_COOKIE, tokens.sessionBinding(token), options);
}

/** The request's session JWT, when it has one that is its own: under https, only with its companion. */
export function sessionTokenOf(request: FastifyRequest, tokens: SessionTokens, publicBaseUrl: string): string | null {
  const token = request.cookies[SESSION_COOKIE];
  if (!token) return null;
  if (secureCookies(publicBaseUrl) && !tokens.bindsSession(token, request.cookies[BINDING_COOKIE])) return null;
  return token;
}

export function clearSessionCookies(reply: FastifyReply, publicBaseUrl: string) {
  const secure = secureCookies(publicBaseUrl);
  reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure, path: '/' });
  if (secure) clearBinding(reply);
}

const clearBinding = (reply: FastifyReply) =>
  reply.clearCookie(BINDING_COOKIE, { httpOnly: true, sameSite: 'lax', secure: true, path: '/' });
