import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../src/db/pool.ts';
import { businessData, signedInAdmin, withSession, type Admin } from '../support/gateway.ts';
import { registerUser, sessionCookies } from '../support/http.ts';
import { pageBrowser, signedInBrowser, textOf } from '../support/pages.ts';
import { startTestService, type TestService } from '../support/service.ts';

// Another origin's page in a signed-in browser: the cookie goes with its requests (SameSite=Lax lets a sibling origin
// of the same site post), so the routes the cookie authenticates must tell such requests apart and change nothing.

let service: TestService;
let admin: Admin;
const base = 'https://svc.example';
const sibling = 'https://svc.example:4000';

beforeAll(async () => {
  service = await startTestService({ PUBLIC_BASE_URL: base, REGISTER_LIMIT_PER_IP: '1000' });
  admin = await signedInAdmin(service);
});
afterAll(async () => service?.close());

const accessOf = async (userId: string) =>
  (
    await query<{ status: string }>(service.pool, 'AccessOf', 'select status from gateway_access where user_id = $1', [
      userId,
    ])
  ).rows[0]?.status ?? 'NONE';
const keysOf = async (userId: string) =>
  Number(
    (await query(service.pool, 'KeysOf', 'select count(*) as n from api_keys where user_id = $1', [userId])).rows[0]!.n,
  );

async function pendingMerchant() {
  const merchant = await registerUser(service);
  expect(
    (await withSession(service, merchant.cookie)('POST', '/api/dashboard/gateway/access-request', businessData))
      .statusCode,
  ).toBe(201);
  return merchant;
}

const approve = (merchantId: string, headers: Record<string, string>, payload?: string) =>
  service.app.inject({
    method: 'POST',
    url: `/api/admin/gateway/access-requests/${merchantId}/approve`,
    cookies: sessionCookies(admin.cookie),
    headers,
    payload,
  });

describe('cookie-authenticated JSON routes take JSON only', () => {
  it('answers 415 to the text/plain form that approved a merchant from another page, and approves nothing', async () => {
    const merchant = await pendingMerchant();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const forged = await approve(merchant.id, { 'content-type': type }, '{"x":"="}');
      expect(forged.statusCode, type).toBe(415);
      expect(forged.json()).toMatchObject({ status: 'error', code: 'UNSUPPORTED_MEDIA_TYPE' });
    }
    expect((await approve(merchant.id, {})).statusCode).toBe(415); // no content type at all
    expect(await accessOf(merchant.id)).toBe('PENDING');

    const approved = await approve(merchant.id, { 'content-type': 'application/json' }); // bodyless, as JSON
    expect(approved.statusCode, approved.body).toBe(200);
    expect(await accessOf(merchant.id)).toBe('APPROVED');
  });

  it('answers 415 on the dashboard and makes no key', async () => {
    const user = await registerUser(service);
    const made = await service.app.inject({
      method: 'POST',
      url: '/api/dashboard/api-keys',
      cookies: sessionCookies(user.cookie),
      headers: { 'content-type': 'text/plain' },
      payload: '{"name":"x"}',
    });
    expect(made.statusCode).toBe(415);
    const patched = await service.app.inject({
      method: 'PATCH',
      url: '/api/dashboard/gateway/settings',
      cookies: sessionCookies(user.cookie),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'feeToCustomer=true',
    });
    expect(patched.statusCode).toBe(415);
    expect(await keysOf(user.id)).toBe(0);
  });
});

describe("a state-changing request from another origin's page", () => {
  it('is refused (403) when Origin or Sec-Fetch-Site names another origin, and passes from our own', async () => {
    const merchant = await pendingMerchant();
    const json = { 'content-type': 'application/json' };
    const attempts: Record<string, string>[] = [
      { origin: sibling },
      { origin: 'null' },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
    ];
    for (const headers of attempts) {
      const forged = await approve(merchant.id, { ...json, ...headers });
      expect(forged.statusCode, JSON.stringify(headers)).toBe(403);
      expect(forged.json()).toMatchObject({ code: 'CROSS_ORIGIN_REFUSED' });
    }
    expect(await accessOf(merchant.id)).toBe('PENDING');
    expect((await approve(merchant.id, { ...json, origin: base, 'sec-fetch-site': 'same-origin' })).statusCode).toBe(
      200,
    );
    expect(await accessOf(merchant.id)).toBe('APPROVED');
  });

  it('is refused on the session surface: no sign-in, no sign-out from another page', async () => {
    const user = await registerUser(service);
    const login = await service.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { origin: sibling },
      payload: { email: user.email, password: user.password },
    });
    expect(login.statusCode).toBe(403);
    expect(login.json()).toEqual({ ok: false, message: 'Permintaan dari situs lain ditolak' });
    expect(login.cookies.find(c => c.name === 'svc_token')).toBeUndefined();
    const signOut = await service.app.inject({
      method: 'DELETE',
      url: '/api/auth/me',
      cookies: sessionCookies(user.cookie),
      headers: { 'sec-fetch-site': 'same-site' },
    });
    expect(signOut.statusCode).toBe(403);
    expect(
      (await service.app.inject({ method: 'GET', url: '/api/auth/me', cookies: sessionCookies(user.cookie) }))
        .statusCode,
    ).toBe(200);
  });

  it("is refused on the dashboard's pages even with the right form token", async () => {
    const { browser } = await signedInBrowser(service);
    await browser.get('/dashboard/api-keys');
    const forged = await service.app.inject({
      method: 'POST',
      url: '/dashboard/api-keys',
      cookies: Object.fromEntries(browser.jar),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: sibling },
      payload: new URLSearchParams({ _csrf: browser.token!, name: 'forged' }).toString(),
    });
    expect(forged.statusCode).toBe(403);
    expect(forged.headers['content-type']).toContain('text/html');
    expect((await browser.get('/dashboard/api-keys')).body).not.toContain('forged');
  });
});

describe('signing in and out through the pages', () => {
  it('refuses a planted pre-sign-in cookie and its own value as the token (login CSRF): nobody is signed in', async () => {
    const attacker = await registerUser(service);
    const planted = 'A'.repeat(43);
    const victim = pageBrowser(service);
    victim.jar.set('__Host-svc_form', planted);
    const forged = await victim.postBare('/login', {
      _csrf: planted,
      email: attacker.email,
      password: attacker.password,
    });
    expect(forged.statusCode).toBe(403);
    expect(victim.jar.has('svc_token')).toBe(false);
  });

  it('signs the pre-sign-in token by the server and names its cookie __Host- under https', async () => {
    const browser = pageBrowser(service);
    const page = await browser.get('/login');
    const cookie = page.cookies.find(c => c.name === '__Host-svc_form');
    expect(cookie).toMatchObject({ path: '/', secure: true, httpOnly: true });
    expect(browser.token).not.toBe(cookie!.value);
    const user = await registerUser(service);
    const signedIn = await browser.post('/login', { email: user.email, password: user.password });
    expect(signedIn.statusCode).toBe(303);
    expect(browser.jar.has('svc_token')).toBe(true);
  });

  it('keeps the cookie and the session when POST /logout has no token; ends both with it', async () => {
    const { browser } = await signedInBrowser(service);
    const cookie = browser.jar.get('svc_token')!;
    const cookies = { svc_token: cookie, '__Host-svc_bind': browser.jar.get('__Host-svc_bind')! };
    const me = () => service.app.inject({ method: 'GET', url: '/api/auth/me', cookies });
    const bare = await browser.postBare('/logout');
    expect(bare.statusCode).toBe(403);
    expect(bare.cookies.find(c => c.name === 'svc_token')).toBeUndefined();
    expect((await me()).statusCode).toBe(200);

    // a post that does not carry the cookie (another site's, under SameSite=Lax) clears nothing: the session would live on
    const cookieless = await service.app.inject({
      method: 'POST',
      url: '/logout',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(cookieless.statusCode).toBe(303);
    expect(cookieless.cookies.find(c => c.name === 'svc_token')).toBeUndefined();

    await browser.get('/dashboard');
    const out = await browser.post('/logout');
    expect(out.statusCode).toBe(303);
    expect(browser.jar.has('svc_token')).toBe(false);
    expect((await me()).statusCode).toBe(401);
    expect(textOf((await browser.get('/login')).body, 'error-message')).toBeNull();
  });
});
