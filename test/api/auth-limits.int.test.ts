import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SignJWT, decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { query } from '../../src/db/pool.ts';
import { registerUser } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** Sign-in limits per client address, with the numbers of the configuration; and session tokens that must expire. */
let service: TestService;
let small: TestService;
beforeAll(async () => {
  [service, small] = await Promise.all([
    // the per-address limits alone: one account's own slow-down is test/api/account-slow-down.int.test.ts's
    startTestService({ LOGIN_SLOWDOWN_AFTER: '1000' }),
    startTestService({ LOGIN_LIMIT_PER_IP_EMAIL: '2', LOGIN_LIMIT_PER_IP: '3', REGISTER_LIMIT_PER_IP: '2' }),
  ]);
});
afterAll(async () => Promise.all([service?.close(), small?.close()]));

const tooMany = { ok: false, message: 'Terlalu banyak percobaan, coba lagi nanti' };
const wrong = { ok: false, message: 'Email atau password salah' };

const login = (on: TestService, remoteAddress: string, email: string, password = 'tebak-tebakan') =>
  on.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password }, remoteAddress });
const register = (on: TestService, remoteAddress: string, email: string) =>
  on.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { name: 'Spam', email, password: 'rahasia123' },
    remoteAddress,
  });
const countUsers = async (on: TestService) =>
  Number((await query(on.pool, 'CountUsers', 'select count(*) as n from users')).rows[0]!.n);

describe('login limits', () => {
  it('stops password spraying: 40 logins from one address with 40 emails answer 429 after the per-address limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const response = await login(service, '203.0.113.7', `spray${i}@example.com`);
      statuses.push(response.statusCode);
      if (response.statusCode === 429) {
        expect(response.json()).toEqual(tooMany);
        expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
      } else expect(response.json()).toEqual(wrong);
    }
    const { max } = service.config.authLimits.loginPerIp;
    expect(max).toBe(30);
    expect(statuses).toEqual([...Array<number>(max).fill(401), ...Array<number>(40 - max).fill(429)]);
    // another address is not held back by it
    expect((await login(service, '203.0.113.8', 'spray0@example.com')).statusCode).toBe(401);
  });

  it('stops guessing one account from one address even while the address has attempts left', async () => {
    const user = await registerUser(service);
    const { max } = service.config.authLimits.loginPerIpEmail;
    expect(max).toBe(10);
    for (let i = 0; i < max; i++) expect((await login(service, '203.0.113.9', user.email)).statusCode).toBe(401);
    const refused = await login(service, '203.0.113.9', user.email.toUpperCase(), user.password);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual(tooMany);
    expect((await login(service, '203.0.113.9', 'someone-else@example.com')).statusCode).toBe(401);
    expect((await login(service, '203.0.113.10', user.email, user.password)).statusCode).toBe(200);
  });

  it('takes its numbers from the configuration', async () => {
    const user = await registerUser(small);
    expect((await login(small, '198.51.100.1', user.email)).statusCode).toBe(401);
    expect((await login(small, '198.51.100.1', user.email)).statusCode).toBe(401);
    expect((await login(small, '198.51.100.1', user.email, user.password)).statusCode).toBe(429); // per address and email: 2
    // an attempt refused by the first limit checked no password: the address's count is at 2 of 3
    expect((await login(small, '198.51.100.1', 'other@example.com')).statusCode).toBe(401);
    expect((await login(small, '198.51.100.1', 'third@example.com')).statusCode).toBe(429); // per address: 3
    expect((await login(small, '198.51.100.2', user.email, user.password)).statusCode).toBe(200);
  });

  it('counts an IPv6 client by its /64', async () => {
    expect((await login(small, '2001:db8:1:2::1', 'a@example.com')).statusCode).toBe(401);
    expect((await login(small, '2001:db8:1:2::2', 'b@example.com')).statusCode).toBe(401);
    expect((await login(small, '2001:db8:1:2:ffff::3', 'c@example.com')).statusCode).toBe(401);
    expect((await login(small, '2001:db8:1:2::4', 'd@example.com')).statusCode).toBe(429);
    expect((await login(small, '2001:db8:1:3::1', 'd@example.com')).statusCode).toBe(401);
  });
});

describe('register limit', () => {
  it('answers 429 after the sign-ups allowed per address, and creates nobody then', async () => {
    const { max } = service.config.authLimits.registerPerIp;
    expect(max).toBe(10);
    for (let i = 0; i < max; i++)
      expect((await register(service, '203.0.113.20', `bulk${i}-${process.pid}@example.com`)).statusCode).toBe(201);
    const before = await countUsers(service);
    const refused = await register(service, '203.0.113.20', `bulk-over-${process.pid}@example.com`);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual(tooMany);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(await countUsers(service)).toBe(before);
    expect((await register(service, '203.0.113.21', `bulk-over-${process.pid}@example.com`)).statusCode).toBe(201);
  });

  it('counts refused sign-ups too (a taken email tells that the account exists)', async () => {
    const taken = await registerUser(small);
    expect((await register(small, '198.51.100.30', taken.email)).statusCode).toBe(409);
    expect((await register(small, '198.51.100.30', taken.email)).statusCode).toBe(409);
    expect((await register(small, '198.51.100.30', taken.email)).statusCode).toBe(429);
  });
});

describe('configuration of the limits', () => {
  const dataDir = () => mkdtempSync(path.join(tmpdir(), 'svc-limits-'));

  it('has defaults, and reads each number and window from the environment', () => {
    expect(loadConfig({ DATA_DIR: dataDir() }).authLimits).toEqual({
      loginPerIpEmail: { max: 10, windowMinutes: 1 },
      loginPerIp: { max: 30, windowMinutes: 15 },
      registerPerIp: { max: 10, windowMinutes: 60 },
      accountSlowDown: { after: 5, maxSeconds: 60, windowMinutes: 15 },
    });
    const env = {
      DATA_DIR: dataDir(),
      LOGIN_LIMIT_PER_IP_EMAIL: '5',
      LOGIN_LIMIT_PER_IP_EMAIL_WINDOW_MINUTES: '2',
      LOGIN_LIMIT_PER_IP: '50',
      LOGIN_LIMIT_PER_IP_WINDOW_MINUTES: '10',
      REGISTER_LIMIT_PER_IP: '3',
      REGISTER_LIMIT_PER_IP_WINDOW_MINUTES: '1440',
      LOGIN_SLOWDOWN_AFTER: '3',
      LOGIN_SLOWDOWN_MAX_SECONDS: '300',
      LOGIN_SLOWDOWN_WINDOW_MINUTES: '60',
    };
    expect(loadConfig(env).authLimits).toEqual({
      loginPerIpEmail: { max: 5, windowMinutes: 2 },
      loginPerIp: { max: 50, windowMinutes: 10 },
      registerPerIp: { max: 3, windowMinutes: 1440 },
      accountSlowDown: { after: 3, maxSeconds: 300, windowMinutes: 60 },
    });
  });

  it.each([
    'LOGIN_LIMIT_PER_IP',
    'REGISTER_LIMIT_PER_IP_WINDOW_MINUTES',
    'LOGIN_LIMIT_PER_IP_EMAIL',
    'LOGIN_SLOWDOWN_AFTER',
    'LOGIN_SLOWDOWN_MAX_SECONDS',
    'LOGIN_SLOWDOWN_WINDOW_MINUTES',
  ])('refuses a %s that is not a positive whole number', name => {
    for (const value of ['0', '-1', 'ten', '1.5'])
      expect(() => loadConfig({ DATA_DIR: dataDir(), [name]: value }), value).toThrow(name);
  });
});

describe('session tokens', () => {
  it('refuses a token without exp, even signed with the real secret for a live session', async () => {
    const user = await registerUser(service);
    const { sid } = decodeJwt(user.cookie) as { sid: string };
    const key = new TextEncoder().encode(service.config.jwtSecret);
    const claims = () =>
      new SignJWT({ sid }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(user.id).setIssuedAt();
    const endless = await claims().sign(key);
    const expiring = await claims().setExpirationTime('1h').sign(key);
    const me = (token: string) =>
      service.app.inject({ method: 'GET', url: '/api/auth/me', cookies: { svc_token: token } });
    expect((await me(expiring)).statusCode).toBe(200); // the same claims with an expiry: a valid session
    const refused = await me(endless);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({ ok: false, message: 'Unauthorized' });
    const dashboard = await service.app.inject({
      method: 'GET',
      url: '/api/dashboard/api-keys',
      cookies: { svc_token: endless },
    });
    expect(dashboard.statusCode).toBe(401);
  });
});
