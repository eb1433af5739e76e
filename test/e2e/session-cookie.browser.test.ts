import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/db/free-port.ts';
import { launchChromium } from '../support/chromium.ts';
import { registerUser, sessionCookies } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';

// A page on another port of the same host is another origin, but cookies do not tell ports apart: its script can set
// svc_token for the service's host. Whatever it plants, the victim must never be shown the attacker's account.

let browser: Browser;
const closing: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  // host names under svc.test reach this machine: the https service gets a name of its own, and a sub-domain sibling
  browser = await launchChromium(['--host-resolver-rules=MAP *.svc.test 127.0.0.1']);
});
afterAll(async () => {
  for (const close of closing.reverse()) await close();
  await browser?.close();
});

/** The attacker's page on `origin`: its script sets the cookies as given (the page is answered by the browser context). */
async function plantFrom(context: BrowserContext, origin: string, ...cookies: string[]) {
  const script = cookies.map(cookie => `document.cookie = ${JSON.stringify(cookie)};`).join('');
  await context.route(`${origin}/**`, route =>
    route.fulfill({ contentType: 'text/html', body: `<!doctype html><title>hadiah</title><script>${script}</script>` }),
  );
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  await page.close();
}

/** Registers `name` through the service's own form, as a person would, and waits for the dashboard. */
async function registerThroughPages(page: Page, baseUrl: string, name: string) {
  await page.goto(`${baseUrl}/register`);
  await page.getByLabel('Nama').fill(name);
  await page.getByLabel('Email').fill(`${name.toLowerCase()}-${Date.now()}@example.com`);
  await page.getByLabel('Password (minimal 8 karakter)').fill('rahasia123');
  await page.getByRole('button', { name: 'Daftar' }).click();
  await page.waitForURL(`${baseUrl}/dashboard`);
}

const sessionCookiesOf = async (context: BrowserContext, url: string) =>
  (await context.cookies(url)).filter(c => c.name === 'svc_token');

describe('a svc_token planted by a sibling origin', () => {
  it("with a longer path, next to the victim's own: /dashboard signs the victim out instead of showing the attacker", async () => {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const service = await startTestService({ PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: baseUrl });
    closing.push(() => service.close());
    await service.listen();
    const attacker = await registerUser(service, { name: 'Penyerang' });
    const context = await browser.newContext();
    const page = await context.newPage();
    await registerThroughPages(page, baseUrl, 'Korban');
    expect(await page.locator('#user-name').innerText()).toBe('Korban');

    const sibling = `http://127.0.0.1:${await freePort()}`;
    await plantFrom(context, sibling, `svc_token=${attacker.cookie}; path=/dashboard`);
    expect(await sessionCookiesOf(context, `${baseUrl}/dashboard`)).toHaveLength(2);

    await page.goto(`${baseUrl}/dashboard`);
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(await page.content()).not.toContain('Penyerang');
    // every copy is gone: the next sign-in is the only session the browser holds
    expect(await sessionCookiesOf(context, `${baseUrl}/dashboard`)).toEqual([]);
    await context.close();
  });
});

/** A self-signed certificate for app.svc.test, made by openssl for this run. */
function selfSigned() {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-tls-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=app.svc.test',
      '-addext', 'subjectAltName=DNS:app.svc.test',
      '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
    ], { stdio: 'ignore' }); // prettier-ignore
    return { key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The service behind TLS as a proxy would put it: https on `port`, passed through to the service's plain port. */
async function tlsInFront(port: number, servicePort: number) {
  const server = tls.createServer(selfSigned(), socket => {
    const upstream = net.connect(servicePort, '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    const end = () => (socket.destroy(), upstream.destroy());
    socket.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>(resolve => server.listen(port, '127.0.0.1', resolve));
  return () => new Promise(resolve => server.close(resolve));
}

describe('under an https base URL', () => {
  let service: TestService;
  let baseUrl: string;
  beforeAll(async () => {
    const [port, tlsPort] = [await freePort(), await freePort()];
    baseUrl = `https://app.svc.test:${tlsPort}`;
    service = await startTestService({ PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: baseUrl });
    closing.push(() => service.close());
    await service.listen();
    closing.push(await tlsInFront(tlsPort, port));
  });

  it('refuses a svc_token that a sibling origin sets: the __Host- companion is beyond its reach', async () => {
    const attacker = await registerUser(service, { name: 'Penyerang' });
    const pair = sessionCookies(attacker.cookie);
    // in the attacker's own browser the pair is a session: what follows is refused for the missing companion alone
    const own = await browser.newContext({ ignoreHTTPSErrors: true });
    await own.addCookies(Object.entries(pair).map(([name, value]) => ({ name, value, url: baseUrl, secure: true })));
    const ownPage = await own.newPage();
    await ownPage.goto(`${baseUrl}/dashboard`);
    expect(await ownPage.locator('#user-name').innerText()).toBe('Penyerang');
    await own.close();

    const host = new URL(baseUrl).hostname;
    const siblings = [
      // another port of the same host, over plain http: it cannot set a Secure cookie, so no __Host- one
      { origin: `http://${host}:${await freePort()}`, attribute: 'path=/' },
      // a sibling sub-domain: a cookie for the parent domain reaches the service; a __Host- one cannot have a Domain
      { origin: 'https://evil.svc.test', attribute: 'domain=svc.test; path=/' },
    ];
    for (const { origin, attribute } of siblings) {
      const context = await browser.newContext({ ignoreHTTPSErrors: true });
      await plantFrom(
        context,
        origin,
        `svc_token=${pair.svc_token}; ${attribute}`,
        `__Host-svc_bind=${pair['__Host-svc_bind']}; Secure; path=/`,
      );
      const sent = await context.cookies(`${baseUrl}/dashboard`);
      expect(
        sent.map(c => c.name),
        origin,
      ).toEqual(['svc_token']);

      const page = await context.newPage();
      await page.goto(`${baseUrl}/dashboard`);
      expect(new URL(page.url()).pathname, origin).toBe('/login');
      expect(await page.content()).not.toContain('Penyerang');
      await context.close();
    }
  });

  it("signs in through the pages with both cookies, the companion __Host- and the browser's own", async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    await registerThroughPages(page, baseUrl, 'Pemilik');
    expect(await page.locator('#user-name').innerText()).toBe('Pemilik');
    const companion = (await context.cookies(baseUrl)).find(c => c.name === '__Host-svc_bind');
    expect(companion).toMatchObject({ secure: true, httpOnly: true, path: '/', sameSite: 'Lax' });
    await context.close();
  });
});
