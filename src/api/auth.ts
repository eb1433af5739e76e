import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { z } from 'zod';
import { checkPassword, endSession, startSession, wrongCredentials } from '../commands/login.ts';
import { normaliseEmail, registerUser } from '../commands/registration.ts';
import { refuse } from '../errors.ts';
import { findUser, findUserIdByEmail } from '../projections/users.ts';
import { listLiveSessions } from '../projections/sessions.ts';
import { text, unstorableTextMessage } from '../text.ts';
import { attemptCounter, clientAddress, tooMany, type AttemptCounter } from './attempt-limits.ts';
import type { AppDeps } from './deps.ts';
import { answerSessionNotFound } from './errors.ts';
import { unstorableField } from './validation.ts';
import { authenticateSession, clearSessionCookie, setSessionCookie } from './session-auth.ts';

const allFieldsRequired = 'Semua field wajib diisi';
const loginFieldsRequired = 'Email dan password wajib diisi';

const filled = text.trim().min(1);
const registerBody = z.object({ name: filled, email: filled, password: text.min(1) });
const loginBody = z.object({ email: filled, password: text.min(1) });

/** Text PostgreSQL cannot store is named, not taken for a missing field. */
function refuseUnstorable(error: z.ZodError) {
  const field = unstorableField(error);
  if (field) throw refuse('INVALID_TEXT', { message: `Field ${field} berisi karakter yang tidak valid`, errors: [{ path: `body.${field}`, message: unstorableTextMessage }] });
}

function parseRegistration(body: unknown) {
  const parsed = registerBody.safeParse(body ?? {});
  if (!parsed.success) refuseUnstorable(parsed.error);
  if (!parsed.success) throw refuse('REGISTER_FIELDS_MISSING', { message: allFieldsRequired });
  const { name, email, password } = parsed.data;
  if (password.length < 8) throw refuse('PASSWORD_TOO_SHORT');
  // argon2 cost grows with input; nobody needs a longer password than this
  if (password.length > 128) throw refuse('PASSWORD_TOO_LONG');
  if (name.trim().length > 100) throw refuse('NAME_TOO_LONG');
  if (email.length > 254 || !z.email().safeParse(normaliseEmail(email)).success)
    throw refuse('INVALID_EMAIL');
  return { name, email, password };
}

function loginAttemptKey(request: FastifyRequest): string {
  const email = (request.body as { email?: unknown } | undefined)?.email;
  return `${clientAddress(request)}|${typeof email === 'string' ? normaliseEmail(email) : ''}`;
}


/** A preHandler counting every attempt against each limit in turn: the first one over answers 429. */
function limitedBy(counters: AttemptCounter[]): preHandlerAsyncHookHandler {
  return async (request, reply) => {
    for (const counter of counters) {
      const wait = await counter.take(request);
      if (wait !== null) throw tooMany(reply, wait, 'TOO_MANY_ATTEMPTS');
    }
  };
}

const device = (request: FastifyRequest) => ({
  userAgent: request.headers['user-agent']?.slice(0, 500) ?? null,
  ip: request.ip ?? null,
});

/** The dashboard session surface under /api/auth; its errors answer {ok:false, message} in Indonesian. */
export function authRoutes(deps: AppDeps) {
  const sessionTtlMs = deps.config.sessionTtlHours * 3_600_000;

  async function signIn(userId: string, request: FastifyRequest, reply: Parameters<typeof setSessionCookie>[1]) {
    const started = await startSession({ ...deps, sessionTtlMs }, userId, device(request));
    const token = await deps.tokens.sign({ userId, ...started });
    setSessionCookie(deps, reply, token, started.expiresAt);
  }

  return async function (app: FastifyInstance) {
    // the routes, not the URL's text, say which error shape answers: any spelling the router takes for them
    app.addHook('onRoute', route => {
      route.config = { ...route.config, surface: 'session' };
    });
    app.setNotFoundHandler(answerSessionNotFound);
    const limits = deps.config.authLimits;
    // guessing one account's password; trying passwords across accounts (spraying); opening accounts in bulk
    const loginLimits = limitedBy([
      attemptCounter(app, limits.loginPerIpEmail, loginAttemptKey),
      attemptCounter(app, limits.loginPerIp, clientAddress),
    ]);
    const registerLimits = limitedBy([attemptCounter(app, limits.registerPerIp, clientAddress)]);

    app.post('/register', { config: { invalidBodyMessage: allFieldsRequired }, preHandler: registerLimits }, async (request, reply) => {
      const input = parseRegistration(request.body);
      const { userId } = await registerUser(deps, input);
      await signIn(userId, request, reply);
      return reply.code(201).send({ ok: true, user: { id: userId, name: input.name.trim(), email: normaliseEmail(input.email) } });
    });

    app.post(
      '/login',
      { config: { invalidBodyMessage: loginFieldsRequired }, preHandler: loginLimits },
      async (request, reply) => {
        const parsed = loginBody.safeParse(request.body ?? {});
        if (!parsed.success) refuseUnstorable(parsed.error);
        if (!parsed.success) throw refuse('LOGIN_FIELDS_MISSING', { message: loginFieldsRequired });
        const { email, password } = parsed.data;
        const userId = await findUserIdByEmail(deps.pool, normaliseEmail(email));
        if (!(await checkPassword(deps, userId, email, password)) || !userId) throw wrongCredentials();
        const user = await findUser(deps.pool, userId);
        if (!user) throw wrongCredentials();
        await signIn(userId, request, reply);
        return reply.send({ ok: true, user: { id: user.id, name: user.name, email: user.email, role: user.role } });
      },
    );

    app.get('/me', async request => {
      const principal = await authenticateSession(deps, request);
      const now = deps.clock.now();
      const [user, sessions] = await Promise.all([
        findUser(deps.pool, principal.userId),
        listLiveSessions(deps.pool, principal.userId, now),
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
    });

    app.get('/logout', async (request, reply) => {
      const principal = await authenticateSession(deps, request).catch(() => null);
      if (principal) await endSession(deps, principal.sessionId, `user:${principal.userId}`, 'logout');
      clearSessionCookie(deps, reply);
      return reply.redirect('/login', 302);
    });

    app.delete('/me', async (request, reply) => {
      const principal = await authenticateSession(deps, request);
      await endSession(deps, principal.sessionId, `user:${principal.userId}`, 'logout');
      clearSessionCookie(deps, reply);
      return reply.send({ ok: true });
    });
  };
}
