import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkNotification,
  sandboxNotificationSecret,
  signNotification,
} from '../../src/providers/notification-signature.ts';

const secret = sandboxNotificationSecret('a service secret of at least thirty-two characters', 'WALLET-D');
const at = new Date('2026-01-01T00:00:00Z');
const window = 300;

describe('a notification signature', () => {
  it('holds for what was signed, within the window either way, and not past it', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 60 }),
        fc.string(),
        fc.integer({ min: -400, max: 400 }),
        (id, body, skew) => {
          const headers = signNotification(secret, id, at, body);
          const now = new Date(at.getTime() + skew * 1000);
          const checked = checkNotification(secret, headers, body, now, window);
          expect(checked).toEqual(
            Math.abs(skew) <= window ? { ok: true, id, sentAt: at } : { ok: false, why: 'stale' },
          );
        },
      ),
    );
  });

  it('fails for another body, another id, another timestamp, or another secret', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 60 }),
        fc.string(),
        fc.string({ minLength: 1 }),
        (id, body, extra) => {
          const headers = signNotification(secret, id, at, body);
          const check = (h: Record<string, string>, b: string, s = secret) => checkNotification(s, h, b, at, window).ok;
          expect(check(headers, body)).toBe(true);
          expect(check(headers, body + extra)).toBe(false);
          expect(check({ ...headers, 'webhook-id': id + extra }, body)).toBe(false);
          expect(check({ ...headers, 'webhook-timestamp': String(at.getTime() / 1000 + 1) }, body)).toBe(false);
          expect(check(headers, body, sandboxNotificationSecret('another secret', 'WALLET-D'))).toBe(false);
        },
      ),
    );
  });

  it('is refused as forged when a header is missing, repeated or malformed', () => {
    const headers = signNotification(secret, 'ntf_1', at, '{}');
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const { [name]: _gone, ...rest } = headers;
      expect(checkNotification(secret, rest, '{}', at, window)).toEqual({ ok: false, why: 'forged' });
      expect(
        checkNotification(secret, { ...headers, [name]: [headers[name]!, headers[name]!] }, '{}', at, window),
      ).toEqual({
        ok: false,
        why: 'forged',
      });
    }
    expect(checkNotification(secret, { ...headers, 'webhook-timestamp': '1e9' }, '{}', at, window)).toEqual({
      ok: false,
      why: 'forged',
    });
    expect(checkNotification(secret, { ...headers, 'webhook-signature': 'v1,' }, '{}', at, window).ok).toBe(false);
    // a rotating provider signs with two secrets: either one passes
    const other = sandboxNotificationSecret('the next secret', 'WALLET-D');
    const both = `${signNotification(other, 'ntf_1', at, '{}')['webhook-signature']} ${headers['webhook-signature']}`;
    expect(checkNotification(secret, { ...headers, 'webhook-signature': both }, '{}', at, window).ok).toBe(true);
  });
});
