import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatRupiah } from '../../src/web/html.ts';
import { phonePage, startBrowserService } from '../support/chromium.ts';
import { keyHolder } from '../support/http.ts';
import { createPayment, decodeQrPng, linkServiceWallet, linkWalletA, paymentBody } from '../support/payments.ts';
import { sandboxOf } from '../support/sandbox.ts';
import type { TestService } from '../support/service.ts';

const shop = 'https://shop.example'; // never reached: the browser context answers it itself
let service: TestService;
let browser: Browser;
let baseUrl: string;

beforeAll(async () => {
  ({ service, baseUrl, browser } = await startBrowserService());
});
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

const phone = () => phonePage(browser, baseUrl, { answer: { [shop]: '<h1>Terima kasih</h1>' } });

const text = (page: Page, selector: string) => page.locator(selector).innerText();

describe('the payment page in Chromium on a phone-sized screen', () => {
  it('shows a QR payment with a running countdown, turns paid when the money arrives and returns to the shop', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const redirectUrl = `${shop}/thanks?order=INV-BROWSER-1`;
    const payment = await createPayment(caller, paymentBody(accountId, { amount: 50_000, orderId: 'INV-BROWSER-1', redirectUrl }));
    expect(payment.paymentUrl).toBe(`${baseUrl}/pay/${payment.id}`);
    const { context, page, problems } = await phone();

    const response = await page.goto(payment.paymentUrl);
    expect(response?.status()).toBe(200);
    expect(await text(page, '#total')).toBe(formatRupiah(payment.totalAmount));
    expect(await text(page, '#amount')).toBe('Rp 50.000');
    expect(await text(page, '#unique-code')).toBe(`Rp ${payment.uniqueCode}`);
    expect(await text(page, '#method')).toBe('QRIS · Wallet D');
    // browser-side code as expressions (the test's TypeScript has no DOM types), polled from here: the page's CSP
    // refuses the eval that page.waitForFunction would need
    const qrSize = `[document.querySelector('#qris').complete, document.querySelector('#qris').naturalWidth, document.querySelector('#qris').naturalHeight]`;
    await expect.poll(() => page.evaluate(qrSize)).toEqual([true, 256, 256]);
    expect(await page.locator('#qris').isVisible()).toBe(true);
    // fits the phone: no sideways scrolling
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);

    const first = await text(page, '#countdown');
    expect(first).toMatch(/^(1:00:00|59:\d\d)$/);
    await expect.poll(() => text(page, '#countdown'), { timeout: 5000 }).not.toBe(first);
    expect(await text(page, '#countdown')).toMatch(/^59:\d\d$/);

    // the customer scans and pays; the receiving account is synchronised
    const png = await service.app.inject({ method: 'GET', url: `/pay/${payment.id}/qris.png` });
    await sandboxOf(service).pay({ qris: (await decodeQrPng(png.rawPayload)).payload! });
    const refreshed = await caller.call('GET', `/api/v1/accounts/${accountId}/refresh`);
    expect(refreshed.statusCode, refreshed.body).toBe(200);

    await page.locator('#payment[data-status="COMPLETED"]').waitFor({ timeout: 15_000 });
    expect(await page.locator('.state-completed h2').isVisible()).toBe(true);
    expect(await text(page, '.state-completed h2')).toBe('Pembayaran berhasil');
    expect(await text(page, '#redirect-note')).toMatch(/diarahkan kembali ke toko dalam \d detik/);
    expect(await page.locator('#qris').isVisible()).toBe(false);
    await page.waitForURL(redirectUrl, { timeout: 10_000 });
    expect(await page.locator('h1').innerText()).toBe('Terima kasih');
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('lets the payer choose the method of a payment created without a type, then shows the bill', async () => {
    const caller = await keyHolder(service);
    const { accountId, phoneNumber } = await linkWalletA(service, caller);
    const payment = await createPayment(caller, paymentBody(accountId, { amount: 33_000 }));
    expect(payment.type).toBeNull();
    const { context, page, problems } = await phone();
    await page.goto(payment.paymentUrl);
    expect(await text(page, '#method')).toBe('Metode belum dipilih · Wallet A');
    await page.locator('button[data-type="DIRECT"]').tap();
    await expect.poll(() => page.locator('#account-number').count()).toBe(1);
    expect(await text(page, '#account-number')).toBe(phoneNumber);
    expect(await text(page, '#method')).toBe('Transfer langsung · Wallet A');
    const total = Number((await text(page, '#total')).replace(/[^0-9]/g, ''));
    expect(total).toBeGreaterThan(33_000);
    expect(total).toBeLessThanOrEqual(33_999);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('copies a virtual account number with its button', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkWalletA(service, caller);
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'VA-BANK3', amount: 75_000 }));
    const { context, page, problems } = await phone();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
    await page.goto(payment.paymentUrl);
    expect(await text(page, '#account-number')).toBe(payment.accountNumber);
    expect(await text(page, '#total')).toBe('Rp 75.000');
    expect(await text(page, '#method')).toBe('Virtual account BANK3 · Wallet A');
    const button = page.locator('#account-number + button');
    await button.tap();
    await expect.poll(() => text(page, '#account-number + button')).toBe('Tersalin');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(payment.accountNumber);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('shows the expired state and stops the countdown when the payment expires', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller, 'WALLET-E');
    const payment = await createPayment(caller, paymentBody(accountId, { expiresInMinutes: 5, redirectUrl: `${shop}/thanks` }));
    const { context, page, problems } = await phone();
    await page.goto(payment.paymentUrl);
    expect(await text(page, '#countdown')).toMatch(/^0[45]:\d\d$/);

    service.clock.advance(5 * 60_000);
    expect(await service.paymentExpiry.tick()).toBeGreaterThanOrEqual(1);
    await page.locator('#payment[data-status="EXPIRED"]').waitFor({ timeout: 15_000 });
    expect(await page.locator('.state-expired h2').isVisible()).toBe(true);
    expect(await text(page, '.state-expired h2')).toBe('Pembayaran kedaluwarsa');
    expect(await page.locator('#qris').isVisible()).toBe(false);
    const stopped = await page.locator('#countdown').textContent();
    await page.waitForTimeout(1500);
    expect(await page.locator('#countdown').textContent()).toBe(stopped);
    expect(page.url()).toBe(payment.paymentUrl); // an expired payment does not send the customer away
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
