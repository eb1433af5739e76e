import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { deviceCookies } from '../../src/security/device-cookie.ts';

const cookies = deviceCookies('x'.repeat(48));
const now = new Date('2026-11-29T00:00:00.000Z');
const later = new Date('2027-05-28T00:00:00.000Z');

describe('device cookies', () => {
  it('name the device of the account they were issued for, until they end', () => {
    const value = cookies.issue('budi@example.com', later);
    const device = cookies.deviceOf(value, 'budi@example.com', now);
    expect(device).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(cookies.deviceOf(value, 'siti@example.com', now)).toBeNull();
    expect(cookies.deviceOf(value, 'budi@example.com', later)).toBeNull();
    expect(cookies.issue('budi@example.com', later)).not.toBe(value); // a device of its own each time
  });

  it('are worth nothing under another secret', () => {
    const value = deviceCookies('y'.repeat(48)).issue('budi@example.com', later);
    expect(cookies.deviceOf(value, 'budi@example.com', now)).toBeNull();
  });

  test.prop([fc.string({ maxLength: 200 })])('take no value the service did not issue for the account', value => {
    expect(cookies.deviceOf(value, 'budi@example.com', now)).toBeNull();
  });

  test.prop([fc.nat({ max: 200 }), fc.constantFrom(...'ABCxyz019-_.')])(
    'take no issued value with any one character changed',
    (at, character) => {
      const value = cookies.issue('budi@example.com', later);
      const i = at % value.length;
      const changed = value.slice(0, i) + character + value.slice(i + 1);
      fc.pre(changed !== value);
      expect(cookies.deviceOf(changed, 'budi@example.com', now)).toBeNull();
    },
  );
});
