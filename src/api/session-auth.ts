import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { recordSessionSeen } from '../commands/login.ts';
import { sessionSeenEveryMs } from '../commands/session.ts';
import { Unauthorized } from '../errors.ts';
import { findLiveSession } from '../projections/sessions.ts';
import type { AppDeps } from './deps.ts';

export const SESSION_COOKIE = 'svc_token';

export type SessionPrincipal = { userId: string; sessionId: string };

declare module 'fastify' {
  interface FastifyRequest {
    /** The dashboard user, on routes behind requireSession. */
    principal: SessionPrincipal | null;
  }
}

/** Guards every route of a plugin with the session cookie, before the body is even parsed. */
export function requireSession(deps: AppDeps, app: FastifyInstance) {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async request => {
    request.principal = await authenticateSession(deps, request);
  });
}

/** Who holds the cookie: a signed, unexpired JWT whose session is still live server-side; else 401. */
export async function authenticateSession(deps: AppDeps, request: FastifyRequest): Promise<SessionPrincipal> {
  const token = request.cookies[SESSION_COOKIE];
  if (!token) throw new Unauthorized();
  const now = deps.clock.now();
  const claims = await deps.tokens.verify(token, now);
  if (!claims) throw new Unauthorized();
  const live = await findLiveSession(deps.pool, claims.sessionId, claims.userId, now);
  if (!live) throw new Unauthorized();
  if (now.getTime() - live.last_seen_at.getTime() >= sessionSeenEveryMs) {
    await recordSessionSeen(deps, claims.sessionId, `user:${claims.userId}`).catch(err =>
      request.log.warn({ err }, 'could not record session use'),
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
