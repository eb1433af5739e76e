import axe from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPayment } from '../../src/projections/payments.ts';
import { phonePage, startBrowserService } from '../support/chromium.ts';
import { keyHolder } from '../support/http.ts';
import { createPayment, decodeQrPng, linkServiceWallet, paymentBody } from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import type { TestService } from '../support/service.ts';

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

// browser-side code as text (the test's TypeScript has no DOM types), evaluated through the driver, which the page's
// CSP does not govern: the page itself runs under its own CSP, unchanged
const runAxe = `axe.run(document, { rules: { 'target-size': { enabled: true } } }).then(r => r.violations.map(v =>
  v.id + ' (' + v.impact + '): ' + v.nodes.map(n => n.target.join(' ')).slice(0, 4).join('; ')))`;
const auditAxe = async (page: Page) => (await page.evaluate(runAxe)) as string[];
const widthOfPage = 'document.documentElement.scrollWidth';

/** A QR payment and how its payer pays it: the sandbox wallet pays the QR, and the receiving account is synchronised. */
async function qrPayment() {
  const caller = await keyHolder(service);
  const { accountId } = await linkServiceWallet(caller);
  const payment = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', amount: 75_000 }));
  const pay = async () => {
    const png = await service.app.inject({ method: 'GET', url: `/pay/${payment.id}/qris.png` });
    await sandboxOf(service).pay({ qris: (await decodeQrPng(png.rawPayload)).payload! });
    const refreshed = await caller.call('GET', `/api/v1/accounts/${accountId}/refresh`);
    expect(refreshed.statusCode, refreshed.body).toBe(200);
  };
  return { payment, pay };
}

/** When the read model says COMPLETED, looked at every 10 ms or so. */
function completedAt(paymentId: string): Promise<number> {
  return eventually(async () => {
    const row = await findPayment(service.pool, paymentId);
    return row?.status === 'COMPLETED' ? Date.now() : 0;
  }, 30_000);
}

describe('the payment page hears its payment complete', () => {
  it('turns paid within a second of COMPLETED through its event stream, its polling held back, at 375 px with axe clean', async () => {
    const { payment, pay } = await qrPayment();
    const { context, page, problems } = await phonePage(browser, baseUrl, { locale: 'id-ID' });
    // the status requests are answered only after 30 s: whatever turns the page within the second is the stream
    const polled: string[] = [];
    await context.route('**/pay/*/status.json', route => {
      polled.push(route.request().url());
      setTimeout(() => void route.continue().catch(() => undefined), 30_000);
    });
    const streamOpen = page.waitForResponse(r => r.url().endsWith(`/pay/${payment.id}/events`));
    await page.goto(payment.paymentUrl);
    expect((await streamOpen).status()).toBe(200);
    await page.evaluate(axe.source);
    expect(await page.evaluate(widthOfPage)).toBeLessThanOrEqual(375);

    // "Saya sudah bayar" says what happens now and next, in Indonesian
    await page.locator('#paid-check').tap();
    await page.locator('#check-note').waitFor({ state: 'visible' });
    const note = await page.locator('#check-note').innerText();
    expect(note).toContain('Kami sedang memeriksa rekening penerima sekarang.');
    expect(note).toContain('Halaman ini berubah sendiri');
    expect(note).toContain('Belum berubah setelah 5 menit?');
    expect(await auditAxe(page)).toEqual([]);

    // a status request on its way and held: the page asks no other until it is answered
    await eventually(async () => polled.length > 0, 10_000);
    const completed = completedAt(payment.id);
    await pay();
    await page.locator('#payment[data-status="COMPLETED"]').waitFor({ timeout: 10_000 });
    const flipped = Date.now();
    expect(flipped - (await completed)).toBeLessThan(1000);
    expect(await page.locator('.state-completed h2').innerText()).toBe('Pembayaran berhasil');
    expect(await page.locator('#receipt-paid-at').innerText()).toMatch(/WIB$/);
    expect(polled).toHaveLength(1); // the one status request, still unanswered
    expect(await auditAxe(page)).toEqual([]);
    expect(await page.evaluate(widthOfPage)).toBeLessThanOrEqual(375);
    expect(problems).toEqual([]); // no CSP violation: the stream is same-origin, as connect-src 'self' allows
    await context.close();
  }, 90_000);

  it('turns paid by its polling where the stream fails', async () => {
    const { payment, pay } = await qrPayment();
    const { context, page, problems } = await phonePage(browser, baseUrl);
    await context.route('**/pay/*/events', route => route.abort());
    await page.goto(payment.paymentUrl);
    const completed = completedAt(payment.id);
    await pay();
    await page.locator('#payment[data-status="COMPLETED"]').waitFor({ timeout: 10_000 });
    expect(Date.now() - (await completed)).toBeLessThan(3000 + 1000); // a poll every 3 s
    // the refused stream is the browser's only complaint
    expect(problems.filter(p => !p.includes('net::ERR_FAILED'))).toEqual([]);
    await context.close();
  }, 90_000);
});
