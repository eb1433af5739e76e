import { fc, test } from '@fast-check/vitest';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookiePathsOf } from '../../src/api/session-cookie.ts';
import { registerUser, sessionCookie } from '../support/http.ts';
import { signedInBrowser } from '../support/pages.ts';
import { startTestService, type TestService } from '../support/service.ts';

// A page of another origin on the same host (another port) or a sibling sub-domain can set a cookie named svc_token,
// with a longer path so that the browser sends it first. Such a cookie must never sign anybody in.

let plain: TestService;
let tls: TestService;
beforeAll(async () => {
  [plain, tls] = await Promise.all([
    startTestService(),
    startTestService({ PUBLIC_BASE_URL: 'https://svc.example', REGISTER_LIMIT_PER_IP: '100' }),
  ]);
});
afterAll(async () => Promise.all([plain?.close(), tls?.close()]));

const bind = '__Host-svc_bind';

/** The paths on which a response expires svc_token (a cookie cleared: empty, expired long ago). */
const clearedPaths = (response: LightMyRequestResponse, name = 'svc_token') =>
  response.cookies
    .filter(c => c.name === name && c.value === '' && c.expires!.getTime() < Date.UTC(2000, 0, 1) && !c.domain)
    .map(c => c.path);

describe('more than one svc_token', () => {
  it('is no session on the JSON surfaces (401), and every copy is expired', async () => {
    const attacker = await registerUser(plain);
    const victim = await registerUser(plain);
    // the browser sends the copy with the longer path first; the cookie parser would keep that one
    const cookie = `svc_token=${attacker.cookie}; svc_token=${victim.cookie}`;
    for (const url of ['/api/auth/me', '/api/dashboard/api-keys']) {
      const answer = await plain.app.inject({ method: 'GET', url, headers: { cookie } });
      expect(answer.statusCode, url).toBe(401);
      expect(answer.body, url).not.toContain(attacker.email);
      const paths = clearedPaths(answer);
      for (const path of ['/', '/dashboard', '/admin', '/api', ...cookiePathsOf(url)])
        expect(paths, url).toContain(path);
    }
    const me = await plain.app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie } });
    expect(me.json()).toEqual({ ok: false, message: 'Unauthorized' });
    // each alone is its holder's
    const alone = await plain.app.inject({ method: 'GET', url: '/api/auth/me', cookies: { svc_token: victim.cookie } });
    expect(alone.json().email).toBe(victim.email);
  });

  it("sends a page to sign-in and expires the copies on the page's own paths", async () => {
    const attacker = await registerUser(plain);
    const { browser } = await signedInBrowser(plain);
    const cookie = `svc_token=${attacker.cookie}; svc_token=${browser.jar.get('svc_token')}`;
    const answer = await plain.app.inject({ method: 'GET', url: '/dashboard/accounts?type=bank', headers: { cookie } });
    expect(answer.statusCode).toBe(303);
    expect(answer.headers.location).toBe(`/login?next=${encodeURIComponent('/dashboard/accounts?type=bank')}`);
    expect(clearedPaths(answer)).toEqual(
      expect.arrayContaining(['/', '/dashboard', '/dashboard/', '/dashboard/accounts']),
    );
    // the sign-in page shows its form rather than taking the planted session for the visitor's
    const login = await plain.app.inject({ method: 'GET', url: '/login', headers: { cookie } });
    expect(login.statusCode).toBe(200);
    expect(login.body).toContain('action="/login"');
  });

  it('counts the copies however the header spaces them', async () => {
    const attacker = await registerUser(plain);
    const victim = await registerUser(plain);
    const cookie = `other=1;svc_token=${attacker.cookie} ;  svc_token=${victim.cookie}`;
    expect((await plain.app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie } })).statusCode).toBe(401);
  });
});

/** RFC 6265 5.1.4: the cookie path `cookiePath` is sent with a request to `path`. */
const pathMatches = (cookiePath: string, path: string) =>
  cookiePath === path || (path.startsWith(cookiePath) && (cookiePath.endsWith('/') || path[cookiePath.length] === '/'));

test.prop([fc.array(fc.constantFrom('dashboard', 'a', 'b', '', '%2F', 'x.y'), { minLength: 1, maxLength: 6 })])(
  'names every path a cookie sent with the request can have',
  segments => {
    const path = `/${segments.join('/')}`;
    const paths = cookiePathsOf(`${path}?q=/z`);
    for (let i = 1; i <= path.length; i++) {
      const candidate = path.slice(0, i);
      if (pathMatches(candidate, path)) expect(paths).toContain(candidate);
    }
  },
);

describe('under an https base URL', () => {
  const me = (cookies: Record<string, string>) => tls.app.inject({ method: 'GET', url: '/api/auth/me', cookies });
  const companion = (response: LightMyRequestResponse) => response.cookies.find(c => c.name === bind)!;

  it('sets a __Host- companion with the session, and refuses svc_token without its own companion', async () => {
    const registered = await tls.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { name: 'Siti', email: `bind-${process.pid}@example.com`, password: 'rahasia123' },
      remoteAddress: '10.77.0.1',
    });
    expect(registered.statusCode).toBe(201);
    const token = sessionCookie(registered);
    const own = companion(registered);
    expect(own).toMatchObject({ path: '/', secure: true, httpOnly: true, sameSite: 'Lax' });
    expect(own.domain).toBeUndefined();
    expect(registered.cookies.find(c => c.name === 'svc_token')!.expires).toEqual(own.expires);

    expect((await me({ svc_token: token, [bind]: own.value })).statusCode).toBe(200);
    expect((await me({ svc_token: token })).statusCode).toBe(401);
    expect(
      (await me({ svc_token: token, [bind]: own.value.replace(/^./, c => (c === 'A' ? 'B' : 'A')) })).statusCode,
    ).toBe(401);
    // another session's companion (the attacker's own) does not go with this token
    const login = await tls.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: `bind-${process.pid}@example.com`, password: 'rahasia123' },
      remoteAddress: '10.77.0.2',
    });
    expect((await me({ svc_token: token, [bind]: companion(login).value })).statusCode).toBe(401);
    expect((await me({ svc_token: sessionCookie(login), [bind]: companion(login).value })).statusCode).toBe(200);

    const out = await tls.app.inject({
      method: 'DELETE',
      url: '/api/auth/me',
      cookies: { svc_token: token, [bind]: own.value },
    });
    expect(out.statusCode).toBe(200);
    expect(clearedPaths(out)).toEqual(['/']);
    expect(clearedPaths(out, bind)).toEqual(['/']);
  });

  it('binds the session of the sign-in pages the same way', async () => {
    const { browser } = await signedInBrowser(tls);
    expect(browser.jar.get(bind)).toBeTruthy();
    expect((await browser.get('/dashboard')).statusCode).toBe(200);
    const planted = await tls.app.inject({
      method: 'GET',
      url: '/dashboard',
      cookies: { svc_token: browser.jar.get('svc_token')! },
    });
    expect(planted.statusCode).toBe(303);
    expect(planted.headers.location).toBe('/login?next=%2Fdashboard');
  });

  it('sets no companion over plain http', async () => {
    const registered = await plain.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { name: 'Budi', email: `plain-${process.pid}@example.com`, password: 'rahasia123' },
      remoteAddress: '10.77.0.3',
    });
    expect(registered.cookies.map(c => c.name)).toContain('svc_token');
    expect(registered.cookies.map(c => c.name)).not.toContain(bind);
  });
});
