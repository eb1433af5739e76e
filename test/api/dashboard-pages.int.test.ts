import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyHolder } from '../support/http.ts';
import { pageBrowser, signedInBrowser, textOf } from '../support/pages.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { nextUuid } from '../support/ids.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

const v1 = (key: string, url = '/api/v1/accounts') =>
  service.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });

describe('signing in through the pages', () => {
  it('sends a browser without a session to /login, and back to where it was going once signed in', async () => {
    const browser = pageBrowser(service);
    const away = await browser.get('/dashboard/mutations?type=CREDIT');
    expect(away.statusCode).toBe(303);
    expect(away.headers.location).toBe(`/login?next=${encodeURIComponent('/dashboard/mutations?type=CREDIT')}`);
    expect((await browser.postBare('/dashboard/api-keys', { name: 'x' })).headers.location).toBe('/login');

    const login = await browser.get(away.headers.location as string);
    expect(login.statusCode).toBe(200);
    expect(login.headers['content-type']).toContain('text/html');
    expect(login.headers['content-security-policy']).toContain("form-action 'self'");
    expect(login.body).toContain('<html lang="id">');
    expect(login.body).toContain('name="next" value="/dashboard/mutations?type=CREDIT"');
    // the form's token is the server's signature of the cookie's nonce, not the cookie itself
    expect(browser.jar.get('svc_form')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(browser.token).not.toBe(browser.jar.get('svc_form'));

    const { email, password } = await signedInBrowser(service);
    const signedIn = await browser.post('/login', { email, password, next: '/dashboard/mutations?type=CREDIT' });
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toBe('/dashboard/mutations?type=CREDIT');
    expect(browser.jar.has('svc_token')).toBe(true);
    expect((await browser.get('/dashboard/mutations?type=CREDIT')).statusCode).toBe(200);
    expect((await browser.get('/login')).headers.location).toBe('/dashboard');
  });

  it('reads forms on the pages only: the JSON routes still refuse a urlencoded body', async () => {
    const caller = await keyHolder(service);
    const form = {
      payload: 'amount=50000&walletAccountId=GATEWAY',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-api-key': caller.key },
    };
    expect((await service.app.inject({ method: 'POST', url: '/api/v1/payments', ...form })).statusCode).toBe(415);
    expect((await service.app.inject({ method: 'POST', url: '/api/auth/login', ...form })).statusCode).toBe(415);
  });

  it('sends the bare address to the dashboard', async () => {
    const response = await pageBrowser(service).get('/');
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe('/dashboard');
  });

  it('never sends a browser to another site after signing in', async () => {
    const { email, password } = await signedInBrowser(service);
    for (const next of ['//evil.example/x', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)']) {
      const browser = pageBrowser(service);
      await browser.get('/login');
      const response = await browser.post('/login', { email, password, next });
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe('/dashboard');
    }
  });

  it("shows the form again with /api/auth's message, the email kept and the password not, and no session", async () => {
    const { email } = await signedInBrowser(service);
    const browser = pageBrowser(service);
    await browser.get('/login');
    const wrong = await browser.post('/login', { email, password: 'salah-sekali' });
    expect(wrong.statusCode).toBe(401);
    expect(textOf(wrong.body, 'notice')).toBe('Email atau password salah');
    expect(wrong.body).toContain(`value="${email}"`);
    expect(wrong.body).not.toContain('salah-sekali');
    expect(browser.jar.has('svc_token')).toBe(false);

    const missing = await browser.post('/login', { email: '', password: '' });
    expect(missing.statusCode).toBe(400);
    expect(textOf(missing.body, 'notice')).toBe('Email dan password wajib diisi');
  });

  it('refuses a sign-in form without the browser’s own token (another site cannot sign a browser in)', async () => {
    const { email, password } = await signedInBrowser(service);
    const victim = pageBrowser(service);
    await victim.get('/login');
    const bare = await victim.postBare('/login', { email, password });
    expect(bare.statusCode).toBe(403);
    const forged = await victim.post('/login', { email, password, _csrf: 'A'.repeat(43) });
    expect(forged.statusCode).toBe(403);
    expect(victim.jar.has('svc_token')).toBe(false);

    const fresh = pageBrowser(service); // never saw the form: no cookie to match
    expect((await fresh.post('/login', { email, password, _csrf: victim.token! })).statusCode).toBe(403);
    expect(fresh.jar.has('svc_token')).toBe(false);
  });

  it('registers through the form with the rules of /api/auth/register', async () => {
    const browser = pageBrowser(service);
    await browser.get('/register');
    const short = await browser.post('/register', {
      name: 'Budi',
      email: `budi-${nextUuid()}@example.com`,
      password: 'pendek',
    });
    expect(short.statusCode).toBe(400);
    expect(textOf(short.body, 'notice')).toBe('Password minimal 8 karakter');
    expect(short.body).toContain('value="Budi"');

    const email = `budi-${nextUuid()}@example.com`;
    const made = await browser.post('/register', { name: 'Budi', email, password: 'rahasia123' });
    expect(made.statusCode).toBe(303);
    expect(made.headers.location).toBe('/dashboard');
    const overview = await browser.get('/dashboard');
    expect(overview.statusCode).toBe(200);
    expect(textOf(overview.body, 'user-email')).toBe(email);

    const again = pageBrowser(service);
    await again.get('/register');
    const taken = await again.post('/register', { name: 'Budi', email, password: 'rahasia123' });
    expect(taken.statusCode).toBe(409);
    expect(textOf(taken.body, 'notice')).toBe('Email sudah terdaftar');
  });

  it("is where the interface's GET /api/auth/logout sends a browser: the sign-in page", async () => {
    const { browser } = await signedInBrowser(service);
    const out = await browser.get('/api/auth/logout');
    expect(out.statusCode).toBe(302);
    const login = await browser.get(out.headers.location as string);
    expect(login.statusCode).toBe(200);
    expect(login.body).toContain('action="/login"');
    expect((await browser.get('/dashboard')).headers.location).toBe('/login?next=%2Fdashboard');
  });

  it('signs out with the form and its token only; the session ends', async () => {
    const { browser } = await signedInBrowser(service);
    expect((await browser.postBare('/logout')).statusCode).toBe(403);
    expect((await browser.get('/dashboard')).statusCode).toBe(200);
    const out = await browser.post('/logout');
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/login');
    expect(browser.jar.has('svc_token')).toBe(false);
    expect((await browser.get('/dashboard')).statusCode).toBe(303);
  });
});

describe('the devices on the overview', () => {
  it("lists the user's signed-in devices and signs another one out; another user's session is not found", async () => {
    const { browser: first, email, password } = await signedInBrowser(service);
    const second = pageBrowser(service);
    await second.get('/login');
    expect((await second.post('/login', { email, password })).statusCode).toBe(303);
    const overview = await second.get('/dashboard');
    const sessions = [...overview.body.matchAll(/data-session-id="([^"]+)"/g)].map(m => m[1]!);
    expect(sessions).toHaveLength(2);
    expect(overview.body).toContain('Perangkat ini');
    const firstId = sessions.find(id => overview.body.includes(`/dashboard/sessions/${id}/end`))!;

    const stranger = await signedInBrowser(service);
    expect((await stranger.browser.post(`/dashboard/sessions/${firstId}/end`)).statusCode).toBe(404);
    expect((await first.get('/dashboard')).statusCode).toBe(200);

    const ended = await second.post(`/dashboard/sessions/${firstId}/end`);
    expect(ended.headers.location).toBe('/dashboard?done=session-ended');
    expect((await first.get('/dashboard')).headers.location).toBe('/login?next=%2Fdashboard');
    expect((await second.get('/dashboard')).statusCode).toBe(200);
  });
});

describe('the API keys page', () => {
  it('makes a key shown once that works on /api/v1, lists it without its secret, and revokes it', async () => {
    const { browser } = await signedInBrowser(service);
    const made = await browser.post('/dashboard/api-keys', { name: 'Toko Online' });
    expect(made.statusCode).toBe(201);
    const key = textOf(made.body, 'new-key-value')!;
    expect(key).toMatch(/^svc_live_/);
    expect((await v1(key)).statusCode).toBe(200);

    const listed = await browser.get('/dashboard/api-keys');
    expect(listed.body).toContain('Toko Online');
    expect(listed.body).not.toContain(key);
    const keyId = /data-key-id="([^"]+)"/.exec(listed.body)![1]!;

    const revoked = await browser.post(`/dashboard/api-keys/${keyId}/revoke`);
    expect(revoked.statusCode).toBe(303);
    expect(revoked.headers.location).toBe('/dashboard/api-keys?done=key-revoked');
    expect((await v1(key)).statusCode).toBe(401);
    expect(textOf((await browser.get(revoked.headers.location as string)).body, 'notice')).toContain('API key dicabut');
  });

  it('changes nothing for a form without the session’s token, or with another session’s', async () => {
    const { browser } = await signedInBrowser(service);
    const other = await signedInBrowser(service);
    const bare = await browser.postBare('/dashboard/api-keys', { name: 'Tanpa token' });
    expect(bare.statusCode).toBe(403);
    expect(bare.body).toContain('Formulir kedaluwarsa');
    const foreign = await browser.post('/dashboard/api-keys', { name: 'Token lain', _csrf: other.browser.token! });
    expect(foreign.statusCode).toBe(403);
    const listed = await browser.get('/dashboard/api-keys');
    expect(listed.body).not.toContain('Tanpa token');
    expect(listed.body).not.toContain('Token lain');
  });

  it("answers 404 for another user's key and leaves it working; a blank name is refused with a message", async () => {
    const owner = await keyHolder(service);
    const ownerKeys = await service.app.inject({
      method: 'GET',
      url: '/api/dashboard/api-keys',
      cookies: { svc_token: owner.cookie },
    });
    const keyId = ownerKeys.json().data[0].id as string;
    const { browser } = await signedInBrowser(service);
    await browser.get('/dashboard/api-keys');
    const response = await browser.post(`/dashboard/api-keys/${keyId}/revoke`);
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toContain('text/html');
    expect((await v1(owner.key)).statusCode).toBe(200);
    expect((await browser.post('/dashboard/api-keys/not-a-uuid/revoke')).statusCode).toBe(404);

    const blank = await browser.post('/dashboard/api-keys', { name: '   ' });
    expect(blank.statusCode).toBe(400);
    expect(textOf(blank.body, 'notice')).toBe('Nama API key wajib diisi');
  });

  it('answers an unknown dashboard path with a 404 page', async () => {
    const { browser } = await signedInBrowser(service);
    const response = await browser.get('/dashboard/tidak-ada');
    expect(response.statusCode).toBe(404);
    expect(response.body).toContain('Halaman tidak ditemukan');
  });
});
