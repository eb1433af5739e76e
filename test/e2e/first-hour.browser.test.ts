import axe from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserService } from '../support/chromium.ts';
import { signedInAdmin } from '../support/gateway.ts';
import { freshPhone } from '../support/payments.ts';
import { eventually } from '../support/sandbox.ts';
import type { TestService } from '../support/service.ts';
import { startReceiver } from '../webhooks/support.ts';

/**
 * A newcomer's first hour in Chromium, on a phone and on a desktop: register, make a key, link a sandbox wallet, make
 * a payment link, pay it in the sandbox, sync, send a webhook test event, and see "Mulai" ticked; every page audited
 * with axe-core and, on the phone, nothing beyond its right edge. On the desktop the admin console's header is one row.
 */

let service: TestService;
let browser: Browser;
let baseUrl: string;

beforeAll(async () => {
  // the webhook receiver listens on 127.0.0.1: this instance takes private addresses, and its form says so
  ({ service, baseUrl, browser } = await startBrowserService({ WEBHOOK_ALLOW_PRIVATE: 'true' }));
});
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

const viewports = {
  phone: { viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
  desktop: { viewport: { width: 1280, height: 900 } },
} as const;
type Kind = keyof typeof viewports;

const runAxe = `axe.run(document, { rules: { 'target-size': { enabled: true } } }).then(r => r.violations.map(v =>
  'axe ' + v.id + ': ' + v.nodes.map(n => n.target.join(' ')).slice(0, 4).join('; ')))`;

/** axe-core's violations on the page as it is, and on a phone anything wider than the screen. */
async function findings(page: Page, kind: Kind): Promise<string[]> {
  await page.addScriptTag({ content: axe.source });
  const found = (await page.evaluate(runAxe)) as string[];
  const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  if (kind === 'phone' && width > 375) found.push(`wider than the phone: ${width}`);
  return found;
}

async function newcomerPath(kind: Kind) {
  // axe-core is injected by the test: the context lets it past the pages' CSP (the pages' own script still runs)
  const context = await browser.newContext({ ...viewports[kind], bypassCSP: true, locale: 'id-ID' });
  const page = await context.newPage();
  const report: Record<string, string[]> = {};
  const audit = async (name: string) => {
    report[name] = await findings(page, kind);
  };
  const receiver = await startReceiver();
  try {
    await page.goto(`${baseUrl}/register`);
    await page.getByLabel('Nama').fill('Rina Toko');
    await page.getByLabel('Email').fill(`rina-${kind}-${Date.now()}@example.com`);
    await page.getByLabel('Password (minimal 8 karakter)').fill('rahasia123');
    await page.getByRole('button', { name: 'Daftar' }).click();
    await page.waitForURL(`${baseUrl}/dashboard`);
    expect(await page.locator('#start-progress').innerText()).toBe('0 dari 4 langkah selesai.');
    await audit('Mulai, nothing done');

    await page.locator('#start-api-key a').click();
    await page.locator('#key-name').fill('Kasir');
    await page.getByRole('button', { name: 'Buat', exact: true }).click();
    expect(await page.locator('#new-key-value').innerText()).toMatch(/^svc_live_/);
    await audit('API key made');

    await page.goto(`${baseUrl}/dashboard`);
    await page.locator('#start-account a').click();
    await page.locator('#wallet-provider').selectOption('WALLET-D');
    await page.locator('#wallet-name').fill('Dompet toko');
    await page.locator('#wallet-phone').fill(freshPhone());
    await page.getByRole('button', { name: 'Hubungkan e-wallet' }).click();
    await page.locator('#notice').waitFor();
    const accountId = new URL(page.url()).pathname.split('/').pop()!;
    expect(await page.locator('#account-id').innerText()).toBe(accountId);
    // the page's script shows the copy button beside the id
    await page.getByRole('button', { name: 'Salin ID rekening' }).waitFor();
    await audit('account linked');

    await page.goto(`${baseUrl}/dashboard`);
    await page.locator('#start-payment a').click();
    await page.locator('#link-amount').fill('25000');
    await page.locator('#link-order').fill(`TAUTAN-${kind}`);
    await page.locator('#link-receiver').selectOption(accountId);
    await page.locator('#link-type').selectOption('QRIS-DYNAMIC');
    await audit('payment link form');
    await page.getByRole('button', { name: 'Buat tautan' }).click();
    await page.waitForURL(/\/dashboard\/payments\/[0-9a-f-]{36}\?done=created$/);
    const paymentUrl = await page.locator('#payment-url').innerText();
    await page.getByRole('button', { name: 'Salin alamat halaman pembayaran' }).waitFor();
    await audit('payment link made');

    // the customer's side: the page shared, paid in the sandbox
    await page.goto(paymentUrl);
    await audit('payment page');
    // the sandbox's own button on the page, as a newcomer pays a first bill
    await page.getByRole('button', { name: /Bayar \(sandbox\)/ }).click();
    await page.goto(`${baseUrl}/dashboard/accounts/${accountId}`);
    await page.getByRole('button', { name: 'Sinkron sekarang' }).click();
    await eventually(async () => {
      await page.goto(`${baseUrl}/dashboard`);
      return (await page.locator('#start-payment').getAttribute('data-done')) === 'true';
    });

    await page.locator('#start-webhook a').click();
    expect(await page.locator('#webhook-url-hint').innerText()).toContain('http://127.0.0.1');
    await page.getByLabel('URL endpoint').fill(receiver.url);
    await page.getByRole('button', { name: 'Tambah' }).click();
    const secret = await page.locator('#new-endpoint-secret').innerText();
    await page.locator('#webhooks a').first().click();
    await page.getByRole('button', { name: 'Kirim event uji' }).click();
    await page.locator('#notice').waitFor();
    const [request] = await eventually(async () => receiver.received.length > 0 && receiver.received);
    const event = new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>) as {
      type: string;
    };
    expect(event.type).toBe('webhook.test');
    await eventually(async () => {
      await page.reload();
      return (await page.locator('#deliveries').innerText()).includes('Berhasil');
    });
    await audit('test event delivered');

    await page.goto(`${baseUrl}/dashboard`);
    expect(await page.locator('#start-progress').innerText()).toBe('4 dari 4 langkah selesai.');
    await audit('Mulai, all done');
  } finally {
    await receiver.close();
    await context.close();
  }
  return report;
}

describe("a newcomer's first hour in Chromium", () => {
  for (const kind of ['phone', 'desktop'] as const)
    it(`registers, links, takes a payment by a link and tests a webhook, axe-core clean, on the ${kind}`, async () => {
      const report = await newcomerPath(kind);
      expect(Object.entries(report).filter(([, found]) => found.length > 0)).toEqual([]);
    }, 120_000);

  it("fits the admin console's and the dashboard's header in one row at 1280 px", async () => {
    const admin = await signedInAdmin(service);
    const context = await browser.newContext({ ...viewports.desktop, locale: 'id-ID' });
    const page = await context.newPage();
    await page.goto(`${baseUrl}/login`);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Masuk' }).click();
    await page.waitForURL(`${baseUrl}/dashboard`);
    for (const path of ['/admin', '/dashboard']) {
      await page.goto(`${baseUrl}${path}`);
      // one row: every link and the sign-out button share the brand's line
      const tops = (await page.evaluate(`[...document.querySelectorAll('header .brand, header nav a, #logout')]
        .map(el => Math.round(el.getBoundingClientRect().top + el.getBoundingClientRect().height / 2))`)) as number[];
      expect(Math.max(...tops) - Math.min(...tops), `${path}: ${tops.join(' ')}`).toBeLessThanOrEqual(4);
    }
    await context.close();
  }, 60_000);
});
