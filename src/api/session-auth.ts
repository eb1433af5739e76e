import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { recordSessionSeen } from '../commands/login.ts';
import { sessionSeenEveryMs } from '../commands/session.ts';
import { isDatabaseUnavailable } from '../db/pool.ts';
import { refuse } from '../errors.ts';
import { findLiveSession } from '../projections/sessions.ts';
import { findUser } from '../projections/users.ts';
import type { AppDeps } from './deps.ts';
import { answerNotFound } from './errors.ts';

export const SESSION_COOKIE = 'svc_token';

export type SessionPrincipal = { userId: string; sessionId: string };

declare module 'fastify' {
  interface FastifyRequest {
    /** The dashboard user, on every route of the dashboard and the admin console. */
    principal: SessionPrincipal | null;
  }
}

/** Guards every route of the plugin `app`, and every unknown path under its prefix, with the session cookie, before the body is read. */
function requireSession(deps: AppDeps, app: FastifyInstance) {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async request => {
    request.principal = await authenticateSession(deps, request);
  });
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

/** Who holds the cookie: a signed, unexpired JWT whose session is still live server-side; else 401. */
export async function authenticateSession(deps: AppDeps, request: FastifyRequest): Promise<SessionPrincipal> {
  const token = request.cookies[SESSION_COOKIE];
  if (!token) throw refuse('UNAUTHORIZED');
  const now = deps.clock.now();
  const claims = await deps.tokens.verify(token, now);
  if (!claims) throw refuse('UNAUTHORIZED');
  const live = await findLiveSession(deps.pool, claims.sessionId, claims.userId, now);
  if (!live) throw refuse('UNAUTHORIZED');
  if (now.getTime() - live.last_seen_at.getTime() >= sessionSeenEveryMs) {
    await recordSessionSeen(deps, claims.sessionId, `user:${claims.userId}`).catch(
      err => isDatabaseUnavailable(err) || request.log.warn({ err }, 'could not record session use'),
    );
  }
  return claims;
}

export function setSessionCookie(deps: AppDeps, reply: FastifyReply, token: string, expiresAt: Date) {
  reply.setCookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: deps.config.publicBaseUrl.startsWith('https://'),
    path: '/',
    expires: expiresAt,
  });
}

export function clearSessionCookie(deps: AppDeps, reply: FastifyReply) {
  reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure: deps.config.publicBaseUrl.startsWith('https://'), path: '/' });
}
