import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../errors.ts';
import { loginFormHtml, logoutConfirmHtml, registerFormHtml, type SignInForm } from '../../web/pages/sign-in.ts';
import type { AppDeps } from '../deps.ts';
import { authenticateSession, sessionOrNull, signOut } from '../session-auth.ts';
import { checkLogin, parseRegistration, register, signIn, type SignInLimits } from '../sign-in.ts';
import { postedToken, preSessionToken, preSessionTokenPosted, sameToken } from './form-token.ts';
import { localPath, orShowRefusal, sendPage } from './page-reply.ts';
import { pageRoutesSetup, staleForm } from './page-surface.ts';

type Posted = { name?: unknown; email?: unknown; password?: unknown; next?: unknown };
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

type Which = 'login' | 'register';
/** The session cookie is Secure where the service is reached over https. */
const secureOf = (deps: AppDeps) => deps.config.publicBaseUrl.startsWith('https://');

const signedIn = (deps: AppDeps, request: FastifyRequest) =>
  authenticateSession(deps, request).then(
    () => true,
    () => false,
  );

/** The sign-in or registration form, with what was typed and a refusal on top; a fresh pre-session token. */
function show(
  deps: AppDeps,
  reply: FastifyReply,
  request: FastifyRequest,
  which: Which,
  form: SignInForm,
  error?: DomainError,
) {
  const token = preSessionToken(request, reply, deps.tokens, secureOf(deps));
  const html = which === 'login' ? loginFormHtml(token, form) : registerFormHtml(token, form);
  return sendPage(
    reply,
    { title: which === 'login' ? 'Masuk' : 'Daftar', notice: error ? { kind: 'error', text: error.message } : null },
    html,
    { status: error?.status ?? 200, narrow: true },
  );
}

/** Runs a form's sign-in; a refusal shows the form again (a 429 says when to retry, as on /api/auth). */
async function attempt(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  which: Which,
  run: () => Promise<{ id: string; email: string }>,
) {
  const body = (request.body ?? {}) as Posted;
  const form = { name: str(body.name), email: str(body.email), next: str(body.next) };
  return orShowRefusal(
    async () => {
      if (!preSessionTokenPosted(request, deps.tokens, secureOf(deps))) throw staleForm();
      await signIn(deps, await run(), request, reply);
      return reply.redirect(localPath(form.next), 303);
    },
    error => show(deps, reply, request, which, form, error),
  );
}

/**
 * /login, /register and /logout as pages with forms: the same rules, messages and attempt limits as /api/auth, the
 * same session cookie. A refusal shows the form again with its message and status; what was typed stays, the
 * password excepted.
 */
export function signInPages(deps: AppDeps, limits: SignInLimits) {
  return async function (app: FastifyInstance) {
    await pageRoutesSetup(app, deps.config.publicBaseUrl);

    // the service's address alone: the dashboard (or the sign-in page on the way to it)
    app.get('/', (_request, reply) => reply.redirect('/dashboard', 302));

    app.get<{ Querystring: { next?: string } }>('/login', async (request, reply) => {
      const next = localPath(request.query.next, '');
      if (await signedIn(deps, request)) return reply.redirect(next || '/dashboard', 303);
      return show(deps, reply, request, 'login', { next: next || undefined });
    });

    app.post('/login', { preHandler: limits.login }, (request, reply) =>
      attempt(deps, request, reply, 'login', () => checkLogin(deps, request.body)),
    );

    app.get('/register', async (request, reply) => {
      if (await signedIn(deps, request)) return reply.redirect('/dashboard', 303);
      return show(deps, reply, request, 'register', {});
    });

    app.post('/register', { preHandler: limits.register }, (request, reply) =>
      attempt(deps, request, reply, 'register', () => register(deps, parseRegistration(request.body))),
    );

    // where GET /api/auth/logout sends a link or an image from elsewhere: the same form as the header's, to confirm
    app.get('/logout', async (request, reply) => {
      const principal = await sessionOrNull(deps, request);
      if (!principal) return reply.redirect('/login', 303);
      const html = logoutConfirmHtml(deps.tokens.formToken(principal.sessionId));
      return sendPage(reply, { title: 'Keluar' }, html, { narrow: true });
    });

    // the header's "Keluar": a form with the session's token (a link could be followed by another site)
    // the cookie is cleared only with its session ended on the server, or when it names no live session at all
    app.post('/logout', async (request, reply) => {
      const principal = await sessionOrNull(deps, request);
      if (principal && !sameToken(deps.tokens.formToken(principal.sessionId), postedToken(request))) throw staleForm();
      await signOut(deps, request, reply, principal);
      return reply.redirect('/login', 303);
    });
  };
}
