import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { z } from 'zod';

/**
 * A provider's notification that money landed in one of its accounts (`POST /api/providers/{code}/notifications`). It
 * is a hint and nothing more: the service checks the account at the provider, and only what that check reads is
 * credited; nothing in this body is.
 */
export const providerNotificationBody = z.object({
  /** the provider's account the money landed in: an account number (banks) or a phone number (e-wallets) */
  accountRef: z.string().min(1).max(40),
  /** the provider's transaction id, for the logs; never read as money */
  transactionId: z.string().min(1).max(100).optional(),
});
export type ProviderNotification = z.infer<typeof providerNotificationBody>;

/** The headers a notification is signed in: the Standard Webhooks form the service's own webhooks use. */
export const notificationHeaders = { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' };

/** The signed headers of one delivery: `v1,` and the base64 HMAC-SHA256 of id.timestamp.body under the secret. */
export function signNotification(secret: string, id: string, at: Date, body: string): Record<string, string> {
  return {
    [notificationHeaders.id]: id,
    [notificationHeaders.timestamp]: String(Math.floor(at.getTime() / 1000)),
    [notificationHeaders.signature]: new Webhook(secret).sign(id, at, body),
  };
}

export type NotificationCheck = { ok: true; id: string; sentAt: Date } | { ok: false; why: 'forged' | 'stale' };

/**
 * Whether a delivery carries a signature made with `secret` over its id, timestamp and raw body (any of the
 * space-separated `v1,` signatures: a provider rotating its secret signs with both), and whether its timestamp lies
 * within `toleranceSeconds` of `now` either way. The signature is checked first: a stale answer tells nothing to one
 * who cannot sign. `now` is the service's clock, so the window moves with the test clock too.
 */
export function checkNotification(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  now: Date,
  toleranceSeconds: number,
): NotificationCheck {
  const single = (name: string) => {
    const value = headers[name];
    return typeof value === 'string' ? value : undefined;
  };
  const id = single(notificationHeaders.id);
  const timestamp = single(notificationHeaders.timestamp);
  const signatures = single(notificationHeaders.signature);
  if (!id || id.length > 200 || !timestamp || !/^\d{1,12}$/.test(timestamp) || !signatures)
    return { ok: false, why: 'forged' };
  const sentAt = new Date(Number(timestamp) * 1000);
  const expected = Buffer.from(new Webhook(secret).sign(id, sentAt, body).slice('v1,'.length), 'base64');
  const matches = signatures
    .split(' ')
    .filter(s => s.startsWith('v1,'))
    .some(s => {
      const given = Buffer.from(s.slice('v1,'.length), 'base64');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  if (!matches) return { ok: false, why: 'forged' };
  if (Math.abs(now.getTime() - sentAt.getTime()) > toleranceSeconds * 1000) return { ok: false, why: 'stale' };
  return { ok: true, id, sentAt };
}

/**
 * The secret a sandbox-played provider signs its notifications with when none is configured for it: derived from the
 * service's JWT secret, which every instance on one database shares, so the sandbox and each instance agree on it
 * without a secret of its own to keep.
 */
export function sandboxNotificationSecret(serviceSecret: string, providerCode: string): string {
  const key = createHmac('sha256', serviceSecret).update(`sandbox-notifications:${providerCode}`).digest();
  return `whsec_${key.subarray(0, 24).toString('base64')}`;
}
