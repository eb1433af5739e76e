import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { endIfIdle, endSession, recordSessionSeen } from '../commands/login.ts';
import { sessionSeenEveryMs } from '../domain/session.ts';
import { isDatabaseUnavailable } from '../db/pool.ts';
import { DomainError, refuse } from '../errors.ts';
import { findLiveSession, listLiveSessions } from '../projections/sessions.ts';
import { findUser } from '../projections/users.ts';
import type { AppDeps } from './deps.ts';
import { answerNotFound } from './errors.ts';
import { noStore } from './response-headers.ts';
import { jsonOnly, sameOriginOnly } from './same-origin.ts';
import { clearSessionCookies, SESSION_COOKIE, sessionTokenOf, setSessionCookies } from './session-cookie.ts';

export type SessionPrincipal = { userId: string; sessionId: string };

declare module 'fastify' {
  interface FastifyRequest {
    /** The dashboard user, on every route of the dashboard and the admin console. */
    principal: SessionPrincipal | null;
  }
}

/** Guards every route of the plugin `app`, and every unknown path under its prefix, with the session cookie, before the body is read. */
function requireSession(deps: AppDeps, app: FastifyInstance) {
  sameOriginOnly(app, deps.config.publicBaseUrl);
  noStore(app);
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async request => {
    request.principal = await authenticateSession(deps, request);
  });
  jsonOnly(app); // after the guard: without a session the answer is 401 whatever the body
  app.setNotFoundHandler(answerNotFound);
}

/**
 * The dashboard (registered with prefix /api/dashboard): every route of `routes` is the session's user's. The guard
 * is a hook of this plugin, so it holds for whatever spelling of the URL the router takes for one of these routes.
 */
export function dashboardSurface(deps: AppDeps, routes: FastifyPluginAsync) {
  return async function (app: FastifyInstance) {
    requireSession(deps, app);
    await app.register(routes);
  };
}

/** The admin console (registered with prefix /api/admin): a session whose user has role ADMIN, else 401 or 403. */
export function adminSurface(deps: AppDeps, routes: FastifyPluginAsync) {
  return async function (app: FastifyInstance) {
    requireSession(deps, app);
    app.addHook('onRequest', async request => {
      const user = await findUser(deps.pool, request.principal!.userId);
      if (user?.role !== 'ADMIN') throw refuse('FORBIDDEN', { message: 'Admins only' });
    });
    await app.register(routes);
  };
}

/** How long a session may go unused before it is over (SESSION_IDLE_HOURS). */
export const sessionIdleMs = (deps: AppDeps) => deps.config.sessionIdleHours * 3_600_000;

/** The user's sessions that can still be used (the devices of /api/auth/me and of the dashboard). */
export const liveSessionsOf = (deps: AppDeps, userId: string) =>
  listLiveSessions(deps.pool, userId, deps.wallClock.now(), sessionIdleMs(deps));

/**
 * Who holds the cookie: a signed, unexpired JWT (under https with its companion cookie) whose session is still live
 * server-side and was used within the idle limit, all by the wall clock; else 401. An idle session is ended on the
 * server as it is refused, so it is over for every device.
 */
export async function authenticateSession(deps: AppDeps, request: FastifyRequest): Promise<SessionPrincipal> {
  const token = sessionTokenOf(request, deps.tokens, deps.config.publicBaseUrl);
  if (!token) throw refuse('UNAUTHORIZED');
  const now = deps.wallClock.now();
  const claims = await deps.tokens.verify(token, now);
  if (!claims) throw refuse('UNAUTHORIZED');
  const live = await findLiveSession(deps.pool, claims.sessionId, claims.userId, now);
  if (!live) throw refuse('UNAUTHORIZED');
  const unused = now.getTime() - live.last_seen_at.getTime();
  // the read model may lag behind a use just recorded: the session's own stream decides
  if (unused >= sessionIdleMs(deps) && (await endIfIdle(deps, claims.sessionId, sessionIdleMs(deps))))
    throw refuse('UNAUTHORIZED');
  if (unused >= sessionSeenEveryMs) {
    await recordSessionSeen(deps, claims.sessionId, `user:${claims.userId}`, sessionIdleMs(deps)).catch(
      err => isDatabaseUnavailable(err) || request.log.warn({ err }, 'could not record session use'),
    );
  }
  return claims;
}

export function setSessionCookie(deps: AppDeps, reply: FastifyReply, token: string, expiresAt: Date) {
  setSessionCookies(reply, deps.tokens, deps.config.publicBaseUrl, token, expiresAt);
}

/**
 * The holder of the cookie, or null when it names no live session (none sent, forged, expired, ended); any other
 * failure (the database away) is thrown, so that nobody is told they signed out while their session lives on.
 */
export async function sessionOrNull(deps: AppDeps, request: FastifyRequest): Promise<SessionPrincipal | null> {
  try {
    return await authenticateSession(deps, request);
  } catch (err) {
    if (err instanceof DomainError && err.code === 'UNAUTHORIZED') return null;
    throw err;
  }
}

/**
 * Signs the holder out: the session (if the cookie names a live one) ended on the server, then the cookie cleared; a
 * request that carried no cookie (another site's, under SameSite=Lax) clears nothing, since no live session is ended.
 */
export async function signOut(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  principal: SessionPrincipal | null,
): Promise<void> {
  if (principal) await endSession(deps, principal.sessionId, `user:${principal.userId}`, 'logout');
  // only after the session ended on the server (or when the cookie names none that lives): never a live session's
  if (principal || request.cookies[SESSION_COOKIE]) clearSessionCookies(reply, deps.config.publicBaseUrl);
}
