import formBody from '@fastify/formbody';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { DomainError, refuse } from '../../errors.ts';
import { findUser, type UserRow } from '../../projections/users.ts';
import type { AppDeps } from '../deps.ts';
import { sameOriginOnly } from '../same-origin.ts';
import { authenticateSession } from '../session-auth.ts';
import { postedToken, sameToken } from './form-token.ts';
import { sendErrorPage } from './error-page.ts';
import { sendPage } from './page-reply.ts';

/** What every page of the dashboard and the admin console knows of who is looking. */
export type PageViewer = { user: UserRow; sessionId: string; csrf: string; area: 'dashboard' | 'admin' };

declare module 'fastify' {
  interface FastifyRequest {
    viewer: PageViewer | null;
  }
}

export const staleForm = () =>
  refuse('FORBIDDEN', { words: 'Formulir kedaluwarsa atau tidak sah. Muat ulang halaman lalu coba lagi.' });

/** The frame's fields for the viewer: the navigation, the logout form's token, the current section. */
export const frameOf = (request: FastifyRequest, title: string, current?: string) => ({
  title,
  current,
  user: request.viewer!.user,
  csrf: request.viewer!.csrf,
  area: request.viewer!.area,
});

/**
 * Every route of the plugin answers refusals as pages (src/api/errors.ts), reads forms (urlencoded), refuses a post
 * from another origin's page, and stays out of the OpenAPI document (pages for people, not an API).
 */
export async function pageRoutesSetup(app: FastifyInstance, publicBaseUrl: string) {
  sameOriginOnly(app, publicBaseUrl);
  app.addHook('onRoute', route => {
    route.config = { ...route.config, surface: 'page' };
    route.schema = { ...route.schema, hide: true };
  });
  await app.register(formBody, { bodyLimit: 64 * 1024 });
}

/**
 * The dashboard's pages (/dashboard) or the admin console's (/admin, `admin: true`): a browser without a live
 * session is sent to /login and brought back after; a user who is not an admin sees 403 in the console; a post
 * without the session's form token changes nothing (403).
 */
export function pageSurface(deps: AppDeps, opts: { admin: boolean }, routes: FastifyPluginAsync) {
  return async function (app: FastifyInstance) {
    await pageRoutesSetup(app, deps.config.publicBaseUrl);
    app.decorateRequest('principal', null);
    app.decorateRequest('viewer', null);
    app.addHook('onRequest', async (request, reply) => {
      let principal;
      try {
        principal = await authenticateSession(deps, request);
      } catch (err) {
        if (!(err instanceof DomainError) || err.code !== 'UNAUTHORIZED') throw err;
        const next = request.method === 'GET' ? request.url : '';
        return reply.redirect(next ? `/login?next=${encodeURIComponent(next)}` : '/login', 303);
      }
      const user = await findUser(deps.pool, principal.userId);
      if (!user) return reply.redirect('/login', 303);
      request.principal = principal;
      request.viewer = {
        user,
        sessionId: principal.sessionId,
        csrf: deps.tokens.formToken(principal.sessionId),
        area: opts.admin ? 'admin' : 'dashboard',
      };
      // answered here rather than thrown: an unknown path's 404 route is no page route the error handler could tell
      if (opts.admin && user.role !== 'ADMIN')
        return sendErrorPage(request, reply, refuse('FORBIDDEN', { words: 'Halaman ini hanya untuk admin.' }));
    });
    app.addHook('preHandler', async (request, reply) => {
      if (
        request.method !== 'GET' &&
        request.method !== 'HEAD' &&
        !sameToken(request.viewer!.csrf, postedToken(request))
      )
        return sendErrorPage(request, reply, staleForm());
    });
    app.setNotFoundHandler((request, reply) =>
      sendPage(
        reply,
        frameOf(request, 'Halaman tidak ditemukan'),
        `<p class="card">Alamat ini tidak dikenal. <a href="${opts.admin ? '/admin' : '/dashboard'}">Kembali</a>.</p>`,
        { status: 404 },
      ),
    );
    await app.register(routes);
  };
}
