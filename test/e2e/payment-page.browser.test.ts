import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../src/db/pool.ts';
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

// browser-side code as expressions (the test's TypeScript has no DOM types), evaluated from here: the page's CSP
// refuses the eval that page.waitForFunction would need
const widthOfPage = 'document.documentElement.scrollWidth';
/** The browser hiding the page (the payer in another app) or showing it again, as the page's script hears it. */
const visibility = (state: 'hidden' | 'visible') =>
  `Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => '${state}' });
   Object.defineProperty(document, 'hidden', { configurable: true, get: () => ${state === 'hidden'} });
   document.dispatchEvent(new Event('visibilitychange'))`;
/** The browser keeping the page for going back (the back-forward cache): it may come back, so it is not closed. */
const keptForBack = `window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: true }))`;
/**
 * The page being closed or left for another address, as the browser tells it before it goes. Fired here rather than
 * by closing the page: a request a page sends while it is torn down reaches the service or not as the browser's load
 * allows, which is the browser's business; what the page's script says is ours.
 */
const closing = `window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: false }))`;
/** Every link and button the payer can see now, with its size in CSS px. */
const tapTargets = `[...document.querySelectorAll('a[href], button')].filter(el => el.getClientRects().length > 0)
  .map(el => { const r = el.getBoundingClientRect(); return { name: el.textContent.trim(), width: r.width, height: r.height }; })`;

/** Fits a 375 px phone, and every link and button is a 44 px tall target at least (the page's are all buttons). */
async function expectPhoneFriendly(page: Page) {
  expect(await page.evaluate(widthOfPage)).toBeLessThanOrEqual(375);
  const targets = (await page.evaluate(tapTargets)) as { name: string; width: number; height: number }[];
  expect(targets.length).toBeGreaterThan(0);
  for (const target of targets) {
    expect(target.height, target.name).toBeGreaterThanOrEqual(44);
    expect(target.width, target.name).toBeGreaterThanOrEqual(44);
  }
}

/** The customer pays the QR of a payment from their wallet; the receiving account is synchronised. */
async function payQr(caller: Awaited<ReturnType<typeof keyHolder>>, accountId: string, paymentId: string) {
  const png = await service.app.inject({ method: 'GET', url: `/pay/${paymentId}/qris.png` });
  await sandboxOf(service).pay({ qris: (await decodeQrPng(png.rawPayload)).payload! });
  const refreshed = await caller.call('GET', `/api/v1/accounts/${accountId}/refresh`);
  expect(refreshed.statusCode, refreshed.body).toBe(200);
}

describe('the payment page in Chromium on a phone-sized screen', () => {
  it('shows a QR payment with the shop and a running countdown, turns paid with a receipt, and returns to the shop after 10 s', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const redirectUrl = `${shop}/thanks?order=INV-BROWSER-1`;
    const payment = await createPayment(
      caller,
      paymentBody(accountId, { type: 'QRIS-DYNAMIC', amount: 50_000, orderId: 'INV-BROWSER-1', redirectUrl }),
    );
    expect(payment.paymentUrl).toBe(`${baseUrl}/pay/${payment.id}`);
    const { context, page, problems } = await phone();

    const response = await page.goto(payment.paymentUrl);
    expect(response?.status()).toBe(200);
    expect(await text(page, '#total')).toBe(formatRupiah(payment.totalAmount));
    expect(await text(page, '#amount')).toBe('Rp 50.000');
    expect(await text(page, '#unique-code')).toBe(`Rp ${payment.uniqueCode}`);
    expect(await text(page, '#method')).toBe('QRIS · Wallet D');
    expect(await text(page, '#shop')).toBe(caller.name);
    const qrSize = `[document.querySelector('#qris').complete, document.querySelector('#qris').naturalWidth, document.querySelector('#qris').naturalHeight]`;
    await expect.poll(() => page.evaluate(qrSize)).toEqual([true, 256, 256]);
    expect(await page.locator('#qris').isVisible()).toBe(true);
    // fits the phone: no sideways scrolling
    await expectPhoneFriendly(page);

    // "Unduh QRIS" saves the QR under the order's name, for a wallet app to read from the gallery
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#qris-download').tap()]);
    expect(download.suggestedFilename()).toBe('QRIS-INV-BROWSER-1.png');
    expect((await decodeQrPng(await readFile((await download.path())!))).width).toBe(256);
    expect(page.url()).toBe(payment.paymentUrl);

    const first = await text(page, '#countdown');
    expect(first).toMatch(/^(1:00:00|59:\d\d)$/);
    await expect.poll(() => text(page, '#countdown'), { timeout: 5000 }).not.toBe(first);
    expect(await text(page, '#countdown')).toMatch(/^59:\d\d$/);

    await payQr(caller, accountId, payment.id);

    await page.locator('#return-note').waitFor({ state: 'visible', timeout: 15_000 });
    const noticed = Date.now();
    expect(await page.locator('#payment[data-status="COMPLETED"]').count()).toBe(1);
    expect(await text(page, '.state-completed h2')).toBe('Pembayaran berhasil');
    expect(await page.locator('#qris').isVisible()).toBe(false);
    // the receipt, its time learned from the status the page polled
    expect(await text(page, '#receipt-shop')).toBe(caller.name);
    expect(await text(page, '#receipt-amount')).toBe(formatRupiah(payment.totalAmount));
    expect(await text(page, '#receipt-order')).toBe('INV-BROWSER-1');
    expect(await text(page, '#receipt-paid-at')).toMatch(/^\d{1,2} \S+ \d{4}.* \d\d[.:]\d\d WIB$/);
    expect(await page.locator('#return').isVisible()).toBe(true);
    expect(await page.locator('#stay').isVisible()).toBe(true);
    // the countdown is in sight and counts down from 10
    expect(Number(await text(page, '#return-countdown'))).toBeGreaterThanOrEqual(9);
    await expectPhoneFriendly(page);
    await expect.poll(() => text(page, '#return-countdown'), { timeout: 3000 }).toMatch(/^[1-8]$/);
    expect(await text(page, '#return-note')).toMatch(/^Kembali ke toko dalam \d+ detik$/);
    expect(page.url()).toBe(payment.paymentUrl);
    await page.waitForURL(redirectUrl, { timeout: 15_000 });
    expect(Date.now() - noticed).toBeGreaterThanOrEqual(9_000); // at least 10 s after the page showed it, seen a moment later
    expect(await page.locator('h1').innerText()).toBe('Terima kasih');
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('asks nothing while out of sight, saying so once as it leaves, and asks at once when back', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
    const { context, page, problems } = await phone();
    const asked: { at: number; url: string }[] = [];
    page.on('request', request => {
      if (request.url().includes('/status.json')) asked.push({ at: Date.now(), url: request.url() });
    });
    await page.goto(payment.paymentUrl);
    await expect.poll(() => asked.length, { timeout: 10_000 }).toBeGreaterThan(0);

    // the payer switches to the wallet app: the browser hides the page (and may keep it for going back), never closes it
    await page.evaluate(visibility('hidden'));
    await expect.poll(() => asked.filter(a => a.url.endsWith('?visibility=hidden')).length).toBe(1);
    const left = Date.now();
    await page.evaluate(keptForBack);
    await new Promise(resolve => setTimeout(resolve, 7000)); // two polls' worth
    expect(asked.filter(a => a.at > left)).toEqual([]);
    const signals = await query<{ page_hidden_at: Date | null }>(
      service.pool,
      'ReadHiddenSignal',
      'select page_hidden_at from payment_check_signals where account_id = $1',
      [accountId],
    );
    expect(signals.rows[0]?.page_hidden_at).toBeInstanceOf(Date);

    // back from the app: a status request at once, not at the next poll
    const back = Date.now();
    await page.evaluate(visibility('visible'));
    await expect.poll(() => asked.filter(a => a.at >= back).length, { timeout: 1500, interval: 100 }).toBe(1);
    expect(asked.filter(a => a.at >= back)[0]!.url).toBe(`${baseUrl}/pay/${payment.id}/status.json`);
    expect(problems).toEqual([]);
    await context.close();
  }, 30_000);

  it('says once that it is closed as the payer closes it', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
    const { context, page, problems } = await phone();
    await page.goto(payment.paymentUrl);
    await page.locator('#countdown').waitFor();
    // what the service hears (the spy sees each request's signal before it is coalesced into the table)
    const heard: string[] = [];
    const payerSeen = service.paymentChecks.payerSeen;
    service.paymentChecks.payerSeen = (id, kind) => {
      if (id === accountId) heard.push(kind);
      return payerSeen(id, kind);
    };
    try {
      await page.evaluate(closing);
      await expect.poll(() => heard.filter(kind => kind === 'closed').length, { timeout: 5000 }).toBe(1);
      await new Promise(resolve => setTimeout(resolve, 1000)); // anything more it would say
      expect(heard.filter(kind => kind === 'closed')).toEqual(['closed']);
    } finally {
      service.paymentChecks.payerSeen = payerSeen;
    }
    const signals = await query<{ page_closed_at: Date | null }>(
      service.pool,
      'ReadClosedSignal',
      'select page_closed_at from payment_check_signals where account_id = $1',
      [accountId],
    );
    expect(signals.rows[0]?.page_closed_at).toBeInstanceOf(Date);
    expect(problems).toEqual([]);
    await context.close();
  }, 30_000);

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

  it('stays on the receipt when the payer taps "Tetap di sini", and a receipt opened later does not leave by itself', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller, 'WALLET-E');
    const payment = await createPayment(
      caller,
      paymentBody(accountId, { type: 'QRIS-DYNAMIC', orderId: 'INV-STAY-1', redirectUrl: `${shop}/thanks` }),
    );
    const { context, page, problems } = await phone();
    await page.goto(payment.paymentUrl);
    await payQr(caller, accountId, payment.id);
    await page.locator('#stay').waitFor({ state: 'visible', timeout: 15_000 });
    await page.locator('#stay').tap();
    expect(await page.locator('#stay').isVisible()).toBe(false);
    expect(await text(page, '#return-note')).toMatch(/^Anda tetap di halaman ini/);
    expect(await page.evaluate('document.activeElement.id')).toBe('return');
    await page.waitForTimeout(11_000);
    expect(page.url()).toBe(payment.paymentUrl);
    expect(await page.locator('#receipt').isVisible()).toBe(true);

    // opened again once paid: the receipt from the server, "Kembali ke toko", and no countdown
    await page.reload();
    expect(await page.locator('#payment[data-status="COMPLETED"]').count()).toBe(1);
    expect(await text(page, '#receipt-order')).toBe('INV-STAY-1');
    expect(await text(page, '#receipt-paid-at')).toMatch(/ WIB$/);
    expect(await page.locator('#return').isVisible()).toBe(true);
    expect(await page.locator('#return-note').isVisible()).toBe(false);
    expect(await page.locator('#stay').isVisible()).toBe(false);
    await expectPhoneFriendly(page);
    await page.waitForTimeout(1500);
    expect(page.url()).toBe(payment.paymentUrl);
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
    expect(await text(page, '#method')).toBe('Virtual account Mandiri · Wallet A');
    expect(await text(page, '#shop')).toBe(caller.name);
    const button = page.locator('#account-number + button');
    expect(await button.innerText()).toBe('Salin nomor VA');
    await expectPhoneFriendly(page);
    await button.tap();
    await expect.poll(() => text(page, '#account-number + button')).toBe('Tersalin');
    expect(await text(page, '#copy-note')).toBe('Nomor VA tersalin.');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(payment.accountNumber);
    await expect.poll(() => button.innerText(), { timeout: 4000 }).toBe('Salin nomor VA');
    expect(problems).toEqual([]);
    await context.close();

    // without script: no button that would do nothing, the number as text to select
    const noScript = await browser.newContext({
      viewport: { width: 375, height: 667 },
      isMobile: true,
      hasTouch: true,
      javaScriptEnabled: false,
    });
    const plain = await noScript.newPage();
    await plain.goto(payment.paymentUrl);
    expect(await plain.locator('#account-number').innerText()).toBe(payment.accountNumber);
    expect(await plain.locator('#account-number + button').isVisible()).toBe(false);
    await noScript.close();
  }, 60_000);

  it('shows the expired state and stops the countdown when the payment expires', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller, 'WALLET-E');
    const payment = await createPayment(
      caller,
      paymentBody(accountId, { type: 'QRIS-DYNAMIC', expiresInMinutes: 5, redirectUrl: `${shop}/thanks` }),
    );
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
