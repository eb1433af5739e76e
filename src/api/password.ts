import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { changePassword } from '../commands/change-password.ts';
import { refuse } from '../errors.ts';
import { findUser } from '../projections/users.ts';
import { checkNewPassword } from '../security/password-rules.ts';
import { text } from '../text.ts';
import { passwordAttemptPassed, takePasswordAttempt } from './account-slow-down.ts';
import type { AppDeps } from './deps.ts';
import { jsonOnly } from './same-origin.ts';
import { authenticateSession } from './session-auth.ts';
import { refuseUnstorable } from './sign-in.ts';

export const passwordFieldsRequired = 'Password saat ini dan password baru wajib diisi';

const passwordChangeBody = z.object({ currentPassword: text.min(1), newPassword: text.min(1) });

/** A password change as posted (the JSON route and the dashboard's form): both fields, and a new password the rules take. */
export function parsePasswordChange(body: unknown): { currentPassword: string; newPassword: string } {
  const parsed = passwordChangeBody.safeParse(body ?? {});
  if (!parsed.success) refuseUnstorable(parsed.error);
  if (!parsed.success) throw refuse('PASSWORD_FIELDS_MISSING');
  checkNewPassword(parsed.data.newPassword);
  return parsed.data;
}

/**
 * Changes the signed-in user's password from the session `sessionId`: a wrong current password counts on the account's
 * slow-down as a wrong sign-in does (a stolen session guesses no faster than a stranger), and the right one forgets it.
 */
export async function changePasswordOf(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  who: { userId: string; sessionId: string; email: string },
  input: { currentPassword: string; newPassword: string },
): Promise<void> {
  await takePasswordAttempt(deps, request, reply, who.email);
  await changePassword(deps, { userId: who.userId, sessionId: who.sessionId, ...input });
  await passwordAttemptPassed(deps, request, reply, who.email);
}

/** POST /api/auth/password: the session's user changes their password; their other sessions end. */
export function passwordRoutes(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    app.decorateRequest('principal', null);
    app.addHook('onRequest', async request => {
      request.principal = await authenticateSession(deps, request);
    });
    jsonOnly(app); // after the guard: without a session the answer is 401 whatever the body
    app.post('/password', { config: { invalidBodyMessage: passwordFieldsRequired } }, async (request, reply) => {
      const { userId, sessionId } = request.principal!;
      const input = parsePasswordChange(request.body);
      const me = await findUser(deps.pool, userId);
      if (!me) throw refuse('UNAUTHORIZED');
      await changePasswordOf(deps, request, reply, { userId, sessionId, email: me.email }, input);
      return reply.send({ ok: true });
    });
  };
}
