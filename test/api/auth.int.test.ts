import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../src/db/pool.ts';
import { registerUser, sessionCookie } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { nextUuid } from '../support/ids.ts';

let service: TestService;
beforeAll(async () => {
  // these cases sign up from one address more often than the default per-address limit allows
  service = await startTestService({ REGISTER_LIMIT_PER_IP: '100' });
});
afterAll(async () => service?.close());

const post = (url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  service.app.inject({ method: 'POST', url, payload: payload as never, headers });
const me = (cookie?: string) =>
  service.app.inject({ method: 'GET', url: '/api/auth/me', cookies: cookie ? { svc_token: cookie } : {} });
const countUsers = async () =>
  Number((await query(service.pool, 'CountUsers', 'select count(*) as n from users')).rows[0]!.n);

describe('POST /api/auth/register', () => {
  it('creates the user with a Free plan and a cookie usable at once', async () => {
    const response = await post('/api/auth/register', {
      name: 'Siti Aminah',
      email: 'Siti@Example.com',
      password: 'rahasia123',
    });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toEqual({
      ok: true,
      user: { id: expect.any(String), name: 'Siti Aminah', email: 'siti@example.com' },
    });
    const cookie = response.cookies.find(c => c.name === 'svc_token')!;
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.sameSite).toBe('Lax');
    const profile = await me(cookie.value);
    expect(profile.statusCode).toBe(200);
    expect(profile.json()).toMatchObject({
      id: body.user.id,
      name: 'Siti Aminah',
      email: 'siti@example.com',
      role: 'USER',
      createdAt: service.clock.now().toISOString(),
      points: 1000,
      subscription: { status: 'ACTIVE', expiresAt: '2027-01-05T03:00:00.000Z', plan: { name: 'Free', slug: 'free' } },
    });
  });

  it.each([
    ['no body at all', undefined],
    ['no name', { email: 'a@example.com', password: 'rahasia123' }],
    ['no email', { name: 'A', password: 'rahasia123' }],
    ['no password', { name: 'A', email: 'a@example.com' }],
    ['blank name', { name: '   ', email: 'a@example.com', password: 'rahasia123' }],
    ['a number for a name', { name: 42, email: 'a@example.com', password: 'rahasia123' }],
  ])('answers 400 "Semua field wajib diisi" for %s, and creates nobody', async (_case, payload) => {
    const before = await countUsers();
    const response = await post('/api/auth/register', payload);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ ok: false, message: 'Semua field wajib diisi' });
    expect(await countUsers()).toBe(before);
  });

  it('answers 400 "Semua field wajib diisi" for a body that is not JSON', async () => {
    const response = await post('/api/auth/register', '{"name": ', { 'content-type': 'application/json' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ ok: false, message: 'Semua field wajib diisi' });
  });

  it('answers 400 "Password minimal 8 karakter" for a short password', async () => {
    const before = await countUsers();
    const response = await post('/api/auth/register', { name: 'A', email: 'short@example.com', password: '1234567' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ ok: false, message: 'Password minimal 8 karakter' });
    expect(await countUsers()).toBe(before);
  });

  it('answers 400 for an address that is not an email', async () => {
    const response = await post('/api/auth/register', { name: 'A', email: 'not-an-email', password: 'rahasia123' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ ok: false, message: 'Format email tidak valid' });
  });

  it('answers 409 "Email sudah terdaftar" for a taken email, whatever its case', async () => {
    await registerUser(service, { email: 'taken@example.com' });
    const before = await countUsers();
    const response = await post('/api/auth/register', {
      name: 'B',
      email: 'TAKEN@example.com',
      password: 'another123',
    });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual({ ok: false, message: 'Email sudah terdaftar' });
    expect(await countUsers()).toBe(before);
  });

  it('registers an email once when many register it at the same moment', async () => {
    const responses = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        post('/api/auth/register', { name: `R${i}`, email: 'race@example.com', password: 'rahasia123' }),
      ),
    );
    expect(responses.map(r => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409]);
  });
});

describe('POST /api/auth/login', () => {
  it('signs in with the right password, case-insensitively on the email', async () => {
    const user = await registerUser(service, { email: 'login@example.com' });
    const response = await post('/api/auth/login', { email: 'LOGIN@example.com', password: user.password });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      ok: true,
      user: { id: user.id, name: user.name, email: 'login@example.com', role: 'USER' },
    });
    expect((await me(sessionCookie(response))).statusCode).toBe(200);
  });

  it.each([
    ['no body', undefined],
    ['no email', { password: 'rahasia123' }],
    ['no password', { email: 'login@example.com' }],
    ['empty strings', { email: '', password: '' }],
  ])('answers 400 "Email dan password wajib diisi" for %s', async (_case, payload) => {
    const response = await post('/api/auth/login', payload);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ ok: false, message: 'Email dan password wajib diisi' });
  });

  it('answers 401 "Email atau password salah" for a wrong password or an unknown email, without a cookie', async () => {
    const user = await registerUser(service);
    for (const payload of [
      { email: user.email, password: 'wrong-password' },
      { email: 'nobody@example.com', password: 'rahasia123' },
    ]) {
      const response = await post('/api/auth/login', payload);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ ok: false, message: 'Email atau password salah' });
      expect(response.cookies.find(c => c.name === 'svc_token')).toBeUndefined();
    }
  });
});

describe('GET /api/auth/me', () => {
  it('answers 401 "Unauthorized" without a cookie, with a forged or foreign-signed token, and after expiry', async () => {
    const user = await registerUser(service);
    const forged = await new SignJWT({ sid: nextUuid() })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(user.id)
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('some-other-secret-that-is-long-enough'));
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: user.id, sid: 'x' })).toString('base64url')}.`;
    for (const cookie of [undefined, 'garbage', forged, unsigned]) {
      const response = await me(cookie);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ ok: false, message: 'Unauthorized' });
    }
    service.wallClock.advance(service.config.sessionTtlHours * 3_600_000 + 1000);
    try {
      expect((await me(user.cookie)).statusCode).toBe(401);
    } finally {
      service.wallClock.advance(-(service.config.sessionTtlHours * 3_600_000 + 1000));
    }
  });

  it('lists the live sessions as devices, marking the current one', async () => {
    const user = await registerUser(service);
    const second = await post(
      '/api/auth/login',
      { email: user.email, password: user.password },
      { 'user-agent': 'Phone/1.0' },
    );
    const response = await me(sessionCookie(second));
    const devices = response.json().devices as {
      id: string;
      userAgent: string;
      current: boolean;
      createdAt: string;
      lastSeenAt: string;
    }[];
    expect(devices).toHaveLength(2);
    expect(devices.filter(d => d.current)).toHaveLength(1);
    expect(devices.find(d => d.current)!.userAgent).toBe('Phone/1.0');
  });
});

describe('logging out', () => {
  it('GET /api/auth/logout redirects 302 to /login and revokes the session server-side', async () => {
    const user = await registerUser(service);
    const response = await service.app.inject({
      method: 'GET',
      url: '/api/auth/logout',
      cookies: { svc_token: user.cookie },
    });
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe('/login');
    const cleared = response.cookies.find(c => c.name === 'svc_token')!;
    expect(cleared.value).toBe('');
    // the old token is still a valid JWT, but its session is gone
    expect((await me(user.cookie)).statusCode).toBe(401);
  });

  it('GET /api/auth/logout without a session still redirects', async () => {
    const response = await service.app.inject({ method: 'GET', url: '/api/auth/logout' });
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe('/login');
  });

  it('DELETE /api/auth/me answers {ok:true}, revokes only that session', async () => {
    const user = await registerUser(service);
    const other = sessionCookie(await post('/api/auth/login', { email: user.email, password: user.password }));
    const response = await service.app.inject({
      method: 'DELETE',
      url: '/api/auth/me',
      cookies: { svc_token: user.cookie },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ok: true });
    expect((await me(user.cookie)).statusCode).toBe(401);
    const still = await me(other);
    expect(still.statusCode).toBe(200);
    expect(still.json().devices).toHaveLength(1);
  });

  it('DELETE /api/auth/me without a session answers 401', async () => {
    const response = await service.app.inject({ method: 'DELETE', url: '/api/auth/me' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ ok: false, message: 'Unauthorized' });
  });
});
