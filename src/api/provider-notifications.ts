import type { FastifyInstance } from 'fastify';
import { recordNotification } from '../db/provider-notification-ids.ts';
import { query } from '../db/pool.ts';
import { refuse } from '../errors.ts';
import { checkNotification, providerNotificationBody } from '../providers/notification-signature.ts';
import type { AppDeps } from './deps.ts';

/** The linked accounts, active, that a provider knows by `accountRef`: several users may have linked the same one. */
async function accountsKnownAs(deps: AppDeps, providerCode: string, accountRef: string): Promise<string[]> {
  const r = await query<{ id: string }>(
    deps.pool,
    'AccountsByProviderRef',
    `select id from accounts
      where provider_code = $1 and coalesce(account_number, phone_number) = $2 and is_active`,
    [providerCode, accountRef],
  );
  return r.rows.map(row => row.id);
}

/**
 * POST /api/providers/:providerCode/notifications: a provider says money landed in one of its accounts. The
 * signature over the raw body (Standard Webhooks headers, the provider's secret) is the only credential; the
 * timestamp must lie within the window, and the id is remembered in PostgreSQL past it, so a delivery is fresh or
 * known on every instance. The same notification again (same id, same body: a provider's retry) is answered 200 and
 * checks nothing; the same id with another body is refused. A heard notification checks the account at once through
 * the path "Saya sudah bayar" takes, deduplicated across instances as that is; its body credits nothing: only what
 * the check reads at the provider does. Every refusal checks nothing.
 */
export function providerNotificationRoutes(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    // the signature is over the bytes as sent: the body is kept as text and parsed only once it is verified
    app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, body, done) =>
      done(null, body),
    );
    app.post<{ Params: { providerCode: string } }>('/:providerCode/notifications', async (request, reply) => {
      const { providerCode } = request.params;
      const secret = Object.hasOwn(deps.config.providerNotifications.secrets, providerCode)
        ? deps.config.providerNotifications.secrets[providerCode]!
        : null;
      if (!secret) throw refuse('NOTIFICATION_PROVIDER_UNKNOWN');
      const raw = typeof request.body === 'string' ? request.body : '';
      const now = deps.clock.now();
      const checked = checkNotification(
        secret,
        request.headers,
        raw,
        now,
        deps.config.providerNotifications.toleranceSeconds,
      );
      if (!checked.ok) throw refuse(checked.why === 'stale' ? 'NOTIFICATION_STALE' : 'NOTIFICATION_SIGNATURE_INVALID');
      const notification = providerNotificationBody.safeParse(parseJson(raw));
      if (!notification.success)
        throw refuse('VALIDATION_ERROR', {
          errors: notification.error.issues.map(i => ({
            path: ['body', ...i.path.map(String)].join('.'),
            message: i.message,
          })),
        });
      const accounts = await accountsKnownAs(deps, providerCode, notification.data.accountRef);
      if (accounts.length === 0) throw refuse('NOTIFICATION_ACCOUNT_UNKNOWN');
      const heard = await recordNotification(deps.pool, { providerCode, id: checked.id, body: raw, now });
      if (heard === 'replayed') throw refuse('NOTIFICATION_REPLAYED');
      const answer = (checking: boolean) => ({ status: 'success', data: { notificationId: checked.id, checking } });
      if (heard === 'repeated') return answer(false);
      for (const accountId of accounts) await deps.paymentChecks.checkNow(accountId);
      request.log.info(
        { providerCode, notificationId: checked.id, transactionId: notification.data.transactionId, accounts },
        'provider notification: account checked now',
      );
      return reply.code(202).send(answer(true));
    });
  };
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};
