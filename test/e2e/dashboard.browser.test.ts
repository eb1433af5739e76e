import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/db/embedded.ts';
import { launchChromium } from '../support/chromium.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let browser: Browser;
let baseUrl: string;

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  service = await startTestService({ PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: baseUrl });
  await service.listen();
  // the session cookie expires on the service's clock: a browser drops one that expired by its own clock at once
  service.clock.set(new Date());
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

/** A phone-sized browser that fails the test on any script error, CSP violation or request outside the service. */
async function phone(): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2, locale: 'id-ID' });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', message => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', error => problems.push(`page error: ${error.message}`));
  page.on('request', request => {
    if (!request.url().startsWith(baseUrl)) problems.push(`request outside the service: ${request.url()}`);
  });
  return { context, page, problems };
}

const fitsThePhone = async (page: Page) => expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);

/** Moves the keyboard focus with Tab until `selector` has it (at most `max` presses); fails if it never does. */
async function tabTo(page: Page, selector: string, max = 40) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.locator(selector).evaluate(el => el === el.ownerDocument.activeElement).catch(() => false)) return;
  }
  throw new Error(`${selector} never took the focus`);
}

describe('the dashboard in Chromium on a phone-sized screen', () => {
  it('registers, makes an API key and signs out with the keyboard alone', async () => {
    const { context, page, problems } = await phone();
    const response = await page.goto(`${baseUrl}/dashboard`);
    expect(response?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(await page.getAttribute('html', 'lang')).toBe('id');
    await fitsThePhone(page);

    await page.getByRole('link', { name: 'Belum punya akun? Daftar' }).click();
    await page.getByLabel('Nama').fill('Sari Dewi');
    await page.getByLabel('Email').fill(`sari-${Date.now()}@example.com`);
    await page.getByLabel('Password (minimal 8 karakter)').fill('rahasia123');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${baseUrl}/dashboard`);
    expect(await page.locator('#user-name').innerText()).toBe('Sari Dewi');
    await fitsThePhone(page);

    // to the API keys page and through its form without a pointer
    await tabTo(page, 'nav a[href="/dashboard/api-keys"]');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${baseUrl}/dashboard/api-keys`);
    expect(await page.locator('nav a[aria-current="page"]').innerText()).toBe('API key');
    await tabTo(page, '#key-name');
    await page.keyboard.type('Kasir toko');
    await page.keyboard.press('Enter');
    await page.locator('#new-key-value').waitFor();
    const key = await page.locator('#new-key-value').innerText();
    expect(key).toMatch(/^svc_live_/);
    await fitsThePhone(page);
    const used = await fetch(`${baseUrl}/api/v1/accounts`, { headers: { 'x-api-key': key } });
    expect(used.status).toBe(200);

    await tabTo(page, '#logout');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${baseUrl}/login`);
    await page.goto(`${baseUrl}/dashboard/api-keys`);
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('shows a wrong password on the form, and signs in to the page that was asked for', async () => {
    const email = `tono-${Date.now()}@example.com`;
    const registered = await fetch(`${baseUrl}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Tono', email, password: 'rahasia123' }),
    });
    expect(registered.status).toBe(201);
    const { context, page, problems } = await phone();
    await page.goto(`${baseUrl}/dashboard/mutations?type=CREDIT`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('bukan-ini');
    await page.getByRole('button', { name: 'Masuk' }).click();
    await page.locator('#notice').waitFor();
    expect(await page.locator('#notice').innerText()).toBe('Email atau password salah');
    expect(await page.getByLabel('Email').inputValue()).toBe(email);
    expect(await page.getByLabel('Password').inputValue()).toBe('');

    await page.getByLabel('Password').fill('rahasia123');
    await page.getByRole('button', { name: 'Masuk' }).click();
    await page.waitForURL(`${baseUrl}/dashboard/mutations?type=CREDIT`);
    expect(await page.getByLabel('Jenis').inputValue()).toBe('CREDIT');
    await fitsThePhone(page);
    // the refused form's answer is a 401 page, which Chromium reports; nothing else went wrong
    expect(problems).toEqual(['console: Failed to load resource: the server responded with a status of 401 (Unauthorized)']);
    await context.close();
  }, 60_000);
});
