import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { phonePage, startBrowserService } from '../support/chromium.ts';
import { signedInAdmin } from '../support/gateway.ts';
import { freshPhone } from '../support/payments.ts';
import { sandboxOf } from '../support/sandbox.ts';
import type { TestService } from '../support/service.ts';
import { checkedFetch } from '../support/contract-fetch.ts';

let service: TestService;
let browser: Browser;
let baseUrl: string;

beforeAll(async () => {
  // webhook URLs are not resolved here (this machine has no DNS): the page's webhook form takes an example host
  ({ service, baseUrl, browser } = await startBrowserService({ WEBHOOK_ALLOW_PRIVATE: 'true' }));
});
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

const phone = () => phonePage(browser, baseUrl, { locale: 'id-ID' });

const fitsThePhone = async (page: Page) =>
  expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);

/** Moves the keyboard focus with Tab until `selector` has it (at most `max` presses); fails if it never does. */
async function tabTo(page: Page, selector: string, max = 40) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (
      await page
        .locator(selector)
        .evaluate(el => el === el.ownerDocument.activeElement)
        .catch(() => false)
    )
      return;
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

    // to the API keys page and through its form without a pointer; on the phone the navigation is behind "Menu"
    await tabTo(page, 'header summary');
    await page.keyboard.press('Enter');
    await tabTo(page, 'nav a[href="/dashboard/api-keys"]');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${baseUrl}/dashboard/api-keys`);
    // the closed menu renders nothing: its text, not its rendered text
    expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe('API key');
    await tabTo(page, '#key-name');
    await page.keyboard.type('Kasir toko');
    await page.keyboard.press('Enter');
    await page.locator('#new-key-value').waitFor();
    const key = await page.locator('#new-key-value').innerText();
    expect(key).toMatch(/^svc_live_/);
    await fitsThePhone(page);
    const used = await checkedFetch(`${baseUrl}/api/v1/accounts`, { headers: { 'x-api-key': key } });
    expect(used.status).toBe(200);

    await tabTo(page, 'header summary');
    await page.keyboard.press('Enter');
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
    const registered = await checkedFetch(`${baseUrl}/api/auth/register`, {
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
    expect(await page.getByLabel('Jenis', { exact: true }).inputValue()).toBe('CREDIT');
    await fitsThePhone(page);
    // the refused form's answer is a 401 page, which Chromium reports; nothing else went wrong
    expect(problems).toEqual([
      'console: Failed to load resource: the server responded with a status of 401 (Unauthorized)',
    ]);
    await context.close();
  }, 60_000);

  it('fits every dashboard and admin page on the phone, with a label for every field and a name for every button', async () => {
    const admin = await signedInAdmin(service);
    const { context, page, problems } = await phone();
    await page.goto(`${baseUrl}/login`);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Masuk' }).click();
    await page.waitForURL(`${baseUrl}/dashboard`);

    // something in every list: a wallet linked by OTP through the pages, a payment, a webhook endpoint
    await page.goto(`${baseUrl}/dashboard/accounts`);
    const phoneNumber = freshPhone();
    await page.getByLabel('E-wallet', { exact: true }).nth(1).selectOption('WALLET-A');
    await page.locator('#otp-name').fill('Dompet A');
    await page.locator('#otp-phone').fill(phoneNumber);
    await page.locator('#otp-pin').fill('123456');
    await page.getByRole('button', { name: 'Kirim kode OTP' }).click();
    await page.getByLabel('Kode OTP', { exact: true }).fill(await sandboxOf(service).otp(phoneNumber));
    await page.getByRole('button', { name: 'Verifikasi' }).click();
    await page.locator('#notice').waitFor();
    expect(await page.locator('#notice').innerText()).toContain('Terhubung');
    const accountId = new URL(page.url()).pathname.split('/').pop()!;
    await page.goto(`${baseUrl}/dashboard/webhooks`);
    await page.getByLabel('URL endpoint').fill('https://hooks.example/shop');
    await page.getByRole('button', { name: 'Tambah' }).click();
    await page.locator('#new-endpoint-secret').waitFor();
    const endpointPath = await page.locator('#webhooks a').first().getAttribute('href');

    const paths = [
      '/dashboard',
      '/dashboard/api-keys',
      '/dashboard/webhooks',
      endpointPath!,
      '/dashboard/accounts',
      `/dashboard/accounts/${accountId}`,
      `/dashboard/accounts/${accountId}/transfer`,
      '/dashboard/mutations',
      '/dashboard/payments',
      '/dashboard/gateway',
      '/admin',
      '/admin/access',
      '/admin/holding-accounts',
      '/admin/withdrawals',
      '/admin/suspense',
      '/admin/reconciliation?from=2026-01-01&to=2026-12-31',
      '/admin/calendar',
      '/admin/digests',
      `/admin/streams?id=user-${admin.id}`,
    ];
    for (const path of paths) {
      const response = await page.goto(`${baseUrl}${path}`);
      expect(response?.status(), path).toBe(200);
      expect(await page.evaluate('document.documentElement.scrollWidth'), path).toBeLessThanOrEqual(375);
      // browser-side code as text: the test's TypeScript has no DOM types
      const unlabelled =
        await page.evaluate(`[...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
        .filter(el => el.labels.length === 0).map(el => el.name)`);
      expect(unlabelled, path).toEqual([]);
      const nameless = await page.evaluate(
        `[...document.querySelectorAll('button, a')].filter(el => !el.textContent.trim() && !el.getAttribute('aria-label')).length`,
      );
      expect(nameless, path).toBe(0);
      expect(await page.locator('h1').count(), path).toBe(1);
    }
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);
});
