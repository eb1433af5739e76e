import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Device cookies (OWASP, "Slow down online guessing attacks with device cookies"): a browser that signed in to an
 * account is given a cookie naming that account, signed by the service. Its password attempts for that account count
 * on a slow-down of their own, so strangers guessing the account's password never hold its owner back.
 *
 * The value is `<device id>.<expiry, epoch seconds>.<HMAC of id, expiry and the account's email>`: only the service
 * makes one, it is good for one account, and it ends.
 */
export type DeviceCookies = {
  /** A new device cookie's value for the account of `email` (normalised), good until `expiresAt`. */
  issue(email: string, expiresAt: Date): string;
  /** The device id of `value` when this service issued it for `email` and it has not ended by `now`; else null. */
  deviceOf(value: string | undefined, email: string, now: Date): string | null;
};

const shape = /^([A-Za-z0-9_-]{22})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

export function deviceCookies(secret: string): DeviceCookies {
  // a key of its own, derived from the session secret: a device cookie's MAC is never any other token's
  const key = createHmac('sha256', secret).update('device-cookie:v1').digest();
  const mac = (device: string, expires: string, email: string) =>
    createHmac('sha256', key).update(`${device}.${expires}.${email}`).digest('base64url');
  return {
    issue(email, expiresAt) {
      const device = randomBytes(16).toString('base64url');
      const expires = String(Math.floor(expiresAt.getTime() / 1000));
      return `${device}.${expires}.${mac(device, expires, email)}`;
    },
    deviceOf(value, email, now) {
      const parts = value ? shape.exec(value) : null;
      if (!parts) return null;
      const [, device, expires, given] = parts as unknown as [string, string, string, string];
      if (Number(expires) * 1000 <= now.getTime()) return null;
      const expected = Buffer.from(mac(device, expires, email));
      return timingSafeEqual(expected, Buffer.from(given)) ? device : null;
    },
  };
}
