import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, refuse } from '../../errors.ts';
import { passwordFormHtml } from '../../web/pages/password.ts';
import type { AppDeps } from '../deps.ts';
import { changePasswordOf, parsePasswordChange } from '../password.ts';
import { noticeOf, orShowRefusal, seeOther, sendPage } from './page-reply.ts';
import { frameOf } from './page-surface.ts';

const doneNotices: Record<string, string> = {
  changed: 'Password diganti. Perangkat lain yang masuk ke akun ini sudah dikeluarkan.',
};

/** /dashboard/password: the signed-in user changes their password, by the rules and slow-down of POST /api/auth/password. */
export function passwordPages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    const show = (request: FastifyRequest, reply: FastifyReply, error?: DomainError) =>
      sendPage(
        reply,
        { ...frameOf(request, 'Ganti password', 'overview'), notice: noticeOf(request, doneNotices, error) },
        passwordFormHtml(request.viewer!.csrf),
        { status: error?.status ?? 200, narrow: true },
      );

    app.get('/password', (request, reply) => show(request, reply));

    app.post('/password', (request, reply) =>
      orShowRefusal(
        async () => {
          const { user, sessionId } = request.viewer!;
          const input = parsePasswordChange(request.body);
          const repeated = (request.body as { repeatPassword?: unknown } | undefined)?.repeatPassword;
          if (repeated !== input.newPassword)
            throw refuse('VALIDATION_ERROR', { words: 'Ulangan password baru tidak sama' });
          await changePasswordOf(deps, request, reply, { userId: user.id, sessionId, email: user.email }, input);
          return seeOther(reply, '/dashboard/password', 'changed');
        },
        error => show(request, reply, error),
      ),
    );
  };
}
