import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser } from '../support/http.ts';
import { signedInBrowser, textOf } from '../support/pages.ts';
import { startTestService, type TestService } from '../support/service.ts';

// GET /api/auth/logout is the interface's logout link. Another site's link or an image on any page (same-site
// included) would sign the user out with it: only the user's own top-level navigation does.

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

const me = (cookie: string) =>
  service.app.inject({ method: 'GET', url: '/api/auth/me', cookies: { svc_token: cookie } });
const logoutLink = (cookie: string, headers: Record<string, string>) =>
  service.app.inject({ method: 'GET', url: '/api/auth/logout', cookies: { svc_token: cookie }, headers });

describe('GET /api/auth/logout', () => {
  const own: Record<string, string>[] = [
    {}, // a client that is no browser
    { 'sec-fetch-site': 'none', 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate' }, // typed or bookmarked
    { 'sec-fetch-site': 'same-origin', 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate' }, // our own link
  ];
  const foreign: Record<string, string>[] = [
    { 'sec-fetch-site': 'cross-site', 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate' },
    { 'sec-fetch-site': 'same-site', 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate' },
    { 'sec-fetch-site': 'same-site', 'sec-fetch-dest': 'image', 'sec-fetch-mode': 'no-cors' },
    { 'sec-fetch-site': 'same-origin', 'sec-fetch-dest': 'image', 'sec-fetch-mode': 'no-cors' },
    { 'sec-fetch-site': 'same-origin', 'sec-fetch-dest': 'iframe', 'sec-fetch-mode': 'navigate' },
    { origin: 'https://elsewhere.example' },
  ];

  it("signs out on the user's own navigation, or a client's that is no browser", async () => {
    for (const headers of own) {
      const user = await registerUser(service);
      const answer = await logoutLink(user.cookie, headers);
      expect(answer.statusCode, JSON.stringify(headers)).toBe(302);
      expect(answer.headers.location).toBe('/login');
      expect(answer.cookies.find(c => c.name === 'svc_token')?.value).toBe('');
      expect((await me(user.cookie)).statusCode, JSON.stringify(headers)).toBe(401);
    }
  });

  it('signs nobody out from another site or as an image: sends them to the page that asks', async () => {
    const user = await registerUser(service);
    for (const headers of foreign) {
      const answer = await logoutLink(user.cookie, headers);
      expect(answer.statusCode, JSON.stringify(headers)).toBe(302);
      expect(answer.headers.location, JSON.stringify(headers)).toBe('/logout');
      expect(answer.cookies.find(c => c.name === 'svc_token')).toBeUndefined();
      expect((await me(user.cookie)).statusCode, JSON.stringify(headers)).toBe(200);
    }
  });
});

describe('GET /logout, the page that asks', () => {
  it("signs out with its form, which carries the session's token", async () => {
    const { browser } = await signedInBrowser(service);
    const page = await browser.get('/logout');
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body, 'logout-question')).toBe('Keluar dari akun ini di perangkat ini?');
    expect(page.body).toContain('action="/logout"');
    // the page itself signs nobody out
    expect((await browser.get('/dashboard')).statusCode).toBe(200);
    const out = await browser.post('/logout');
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/login');
    expect(browser.jar.has('svc_token')).toBe(false);
  });

  it('sends a visitor without a session to sign in', async () => {
    const answer = await service.app.inject({ method: 'GET', url: '/logout' });
    expect(answer.statusCode).toBe(303);
    expect(answer.headers.location).toBe('/login');
  });
});
