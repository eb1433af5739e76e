import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { query } from '../../src/db/pool.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageBrowser } from '../support/pages.ts';
import { registerUser } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * Guessing one account's password from many addresses: the per-address limits do not see it, the account's slow-down
 * does; and the owner's browser, which signed in before, is not held back by it.
 */
let service: TestService;
beforeAll(async () => {
  // behind a proxy on loopback, as inject's requests come: each request's client is its X-Forwarded-For
  service = await startTestService({ TRUST_PROXY: '127.0.0.1' });
});
afterAll(async () => service?.close());

const tooMany = { ok: false, message: 'Terlalu banyak percobaan, coba lagi nanti' };
const wrong = { ok: false, message: 'Email atau password salah' };

const login = (client: string, email: string, password: string, device?: string) =>
  service.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    headers: { 'x-forwarded-for': client },
    payload: { email, password },
    cookies: device ? { svc_device: device } : {},
  });
/** As if `seconds` of wall time passed since the account's last counted attempt (rows are keyed by a hash of the key). */
const waited = (email: string, seconds: number) =>
  query(
    service.pool,
    'TestWaitOutSlowDown',
    `update attempt_counts set window_start = window_start - $2 * interval '1 second' where key = $1`,
    [createHash('sha256').update(`login-account:${email.toLowerCase()}`).digest('base64url'), seconds],
  );
const deviceCookieOf = (response: LightMyRequestResponse) => {
  const cookie = response.cookies.find(c => c.name === 'svc_device');
  if (!cookie) throw new Error(`no device cookie in ${response.statusCode} ${response.body}`);
  return cookie;
};

describe("one account's wrong passwords, from anywhere", () => {
  it('slows 100 guesses from 10 addresses down, while the owner with the device cookie signs in at once', async () => {
    const owner = await registerUser(service);
    const atHome = await login('192.0.2.10', owner.email, owner.password);
    expect(atHome.statusCode).toBe(200);
    const device = deviceCookieOf(atHome);
    expect(device).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });

    const answers: { status: number; retryAfter: number | null }[] = [];
    for (let i = 0; i < 100; i++) {
      const response = await login(`198.51.100.${(i % 10) + 1}`, owner.email, `tebakan-ke-${i}`);
      expect(response.json()).toEqual(response.statusCode === 429 ? tooMany : wrong);
      const retryAfter = response.headers['retry-after'];
      answers.push({ status: response.statusCode, retryAfter: retryAfter === undefined ? null : Number(retryAfter) });
      // every 20 guesses the guesser waits out the delay (the row's time moved back, not the test's): the loop's own
      // speed never decides how many guesses get through
      if (i % 20 === 9 && retryAfter !== undefined) await waited(owner.email, Number(retryAfter));
    }
    const { after } = service.config.authLimits.accountSlowDown;
    expect(after).toBe(5);
    // the free attempts, then one more now and then as each delay ends: every other guess is refused unchecked
    expect(answers.slice(0, after).map(a => a.status)).toEqual(Array<number>(after).fill(401));
    const refused = answers.filter(a => a.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(85);
    expect(refused.every(a => a.retryAfter! >= 1)).toBe(true);
    // the delay each wrong guess let through earns: the Retry-After of the refusal right after it grows
    const delays = answers.flatMap((a, i) =>
      a.status === 401 && answers[i + 1]?.status === 429 ? [answers[i + 1]!.retryAfter!] : [],
    );
    expect(delays[0]).toBe(1);
    expect(delays.length).toBeGreaterThanOrEqual(4);
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThan(delays[i - 1]!);

    // held back, even the right password is not checked for a stranger
    const stranger = await login('203.0.113.99', owner.email, owner.password);
    expect(stranger.statusCode).toBe(429);
    expect(stranger.json()).toEqual(tooMany);
    // the owner's browser counts apart
    const owners = await login('192.0.2.10', owner.email, owner.password, device.value);
    expect(owners.statusCode).toBe(200);
    expect(deviceCookieOf(owners).value).not.toBe(device.value); // a new one at each sign-in
  });

  it('takes a device cookie for its own account only, and never one the service did not sign', async () => {
    const victim = await registerUser(service);
    const attacker = await registerUser(service);
    const attackersDevice = deviceCookieOf(await login('203.0.113.50', attacker.email, attacker.password)).value;
    for (let i = 0; i < 5; i++) await login(`203.0.113.${60 + i}`, victim.email, `salah-${i}`);
    expect((await login('203.0.113.50', victim.email, 'salah-lagi', attackersDevice)).statusCode).toBe(429);
    const [id, expires] = attackersDevice.split('.');
    const forged = `${id}.${expires}.${'A'.repeat(43)}`;
    expect((await login('203.0.113.51', victim.email, 'salah-lagi', forged)).statusCode).toBe(429);
  });

  it('forgets the streak when the right password is given', async () => {
    const user = await registerUser(service);
    for (let i = 0; i < 4; i++)
      expect((await login(`203.0.113.${70 + i}`, user.email, `salah-${i}`)).statusCode).toBe(401);
    expect((await login('203.0.113.80', user.email, user.password)).statusCode).toBe(200);
    const again = [];
    for (let i = 0; i < 6; i++) again.push((await login(`203.0.113.${90 + i}`, user.email, `lagi-${i}`)).statusCode);
    expect(again).toEqual([401, 401, 401, 401, 401, 429]);
  });

  it('refuses a held-back sign-in on the login page with its message and Retry-After', async () => {
    const user = await registerUser(service);
    for (let i = 0; i < 5; i++) await login(`203.0.113.${100 + i}`, user.email, `salah-${i}`);
    const browser = pageBrowser(service);
    await browser.get('/login');
    const page = await browser.post('/login', { email: user.email, password: user.password });
    expect(page.statusCode).toBe(429);
    expect(Number(page.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(page.body).toContain('Terlalu banyak percobaan, coba lagi nanti');
  });
});
