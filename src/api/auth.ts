import type { FastifyInstance, FastifyRequest } from 'fastify';
import { wrongCredentials } from '../commands/login.ts';
import { findUser } from '../projections/users.ts';
import type { AppDeps } from './deps.ts';
import { answerSessionNotFound } from './errors.ts';
import { passwordRoutes } from './password.ts';
import { noStore } from './response-headers.ts';
import { isOwnNavigation, sameOriginOnly } from './same-origin.ts';
import { authenticateSession, liveSessionsOf, sessionOrNull, signOut } from './session-auth.ts';
import {
  allFieldsRequired,
  checkLogin,
  loginFieldsRequired,
  parseRegistration,
  register,
  signIn,
  type SignInLimits,
} from './sign-in.ts';

/** The signed-in user as GET /api/auth/me answers: profile, subscription and live devices, this one marked. */
async function sessionUser(deps: AppDeps, request: FastifyRequest) {
  const principal = await authenticateSession(deps, request);
  const [user, sessions] = await Promise.all([
    findUser(deps.pool, principal.userId),
    liveSessionsOf(deps, principal.userId),
  ]);
  if (!user) throw wrongCredentials();
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    role: user.role,
    createdAt: user.created_at.toISOString(),
    points: user.points,
    subscription: {
      status: user.subscription_status,
      expiresAt: user.subscription_expires_at?.toISOString() ?? null,
      plan: { name: user.plan_name, slug: user.plan_slug },
    },
    devices: sessions.map(s => ({
      id: s.id,
      userAgent: s.user_agent,
      ip: s.ip,
      createdAt: s.created_at.toISOString(),
      lastSeenAt: s.last_seen_at.toISOString(),
      current: s.id === principal.sessionId,
    })),
  };
}

/** The dashboard session surface under /api/auth; its errors answer {ok:false, message} in Indonesian. */
export function authRoutes(deps: AppDeps, limits: SignInLimits) {
  return async function (app: FastifyInstance) {
    // the routes, not the URL's text, say which error shape answers: any spelling the router takes for them
    app.addHook('onRoute', route => {
      route.config = { ...route.config, surface: 'session' };
    });
    app.setNotFoundHandler(answerSessionNotFound);
    // registering and signing in set the cookie rather than use it: a post from another origin's page is refused here
    // too (login CSRF), while their bodies stay as the interface has them (no body at all is a 400 of its own)
    sameOriginOnly(app, deps.config.publicBaseUrl);
    noStore(app);
    app.post(
      '/register',
      { config: { invalidBodyMessage: allFieldsRequired }, preHandler: limits.register },
      async (request, reply) => {
        const user = await register(deps, parseRegistration(request.body));
        await signIn(deps, user, request, reply);
        return reply.code(201).send({ ok: true, user });
      },
    );

    app.post(
      '/login',
      { config: { invalidBodyMessage: loginFieldsRequired }, preHandler: limits.login },
      async (request, reply) => {
        const user = await checkLogin(deps, request.body);
        await signIn(deps, user, request, reply);
        return reply.send({ ok: true, user: { id: user.id, name: user.name, email: user.email, role: user.role } });
      },
    );

    app.get('/me', request => sessionUser(deps, request));

    // the interface's logout link: only the user's own navigation signs out; another site's link or an image of any
    // page is sent to the page that asks to confirm with a form (POST /logout, with the session's form token)
    app.get('/logout', async (request, reply) => {
      if (!isOwnNavigation(request, new URL(deps.config.publicBaseUrl).origin)) return reply.redirect('/logout', 302);
      await signOut(deps, request, reply, await sessionOrNull(deps, request));
      return reply.redirect('/login', 302);
    });

    await app.register(passwordRoutes(deps));

    app.delete('/me', async (request, reply) => {
      await signOut(deps, request, reply, await authenticateSession(deps, request));
      return reply.send({ ok: true });
    });
  };
}
