import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatRupiah } from '../../src/web/html.ts';
import { approvedMerchant, businessData, holdingAccount, signedInAdmin } from '../support/gateway.ts';
import { keyHolder } from '../support/http.ts';
import {
  createPayment,
  decodeQrPng,
  linkServiceWallet,
  linkWalletA,
  paymentBody,
  syncUntil,
} from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { nextUuid } from '../support/ids.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

const get = (url: string) => service.app.inject({ method: 'GET', url }); // no API key: the customer's browser
const pageOf = (id: string) => get(`/pay/${id}`);
const statusJsonOf = (id: string) => get(`/pay/${id}/status.json`);

/** The nonce of a response's CSP, which its one inline script and style must carry. */
function cspNonce(csp: string) {
  const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
  expect(nonce, csp).toBeTruthy();
  return nonce!;
}

/** Ids that appear more than once on a page (an id names one element). */
function duplicateIds(html: string) {
  const ids = [...html.matchAll(/\sid="([^"]*)"/g)].map(m => m[1]);
  return ids.filter((id, i) => ids.indexOf(id) !== i);
}

/** The page's headings, in order: all of them Indonesian, whichever state the page opens in. */
const headingsOf = (html: string) => [...html.matchAll(/<h([1-6])\b[^>]*>(.*?)<\/h\1>/gs)].map(m => m[2]);
const indonesianHeadings = [
  'Total bayar',
  'Pembayaran berhasil',
  'Bukti pembayaran',
  'Pembayaran kedaluwarsa',
  'Pembayaran gagal',
];

function expectPageHeaders(headers: Record<string, unknown>) {
  expect(headers['content-type']).toBe('text/html; charset=utf-8');
  expect(headers['cache-control']).toBe('no-store');
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['referrer-policy']).toBe('no-referrer');
  expect(headers['x-content-type-options']).toBe('nosniff');
  const csp = String(headers['content-security-policy']);
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("connect-src 'self'");
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).not.toContain('unsafe-eval');
}

describe('GET /pay/:paymentId (the hosted payment page)', () => {
  it('shows a QR payment: amount, unique code and total in rupiah, the QR image, method, countdown; strict headers', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const payment = await createPayment(
      caller,
      paymentBody(accountId, { type: 'QRIS-DYNAMIC', amount: 50_000, orderId: 'INV-QR-1' }),
    );
    const page = await pageOf(payment.id);
    expect(page.statusCode).toBe(200);
    expectPageHeaders(page.headers);
    const html = page.body;
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).toContain(`<p class="total" id="total">${formatRupiah(payment.totalAmount)}</p>`);
    expect(html).toContain(`<dd id="amount">Rp 50.000</dd>`);
    expect(html).toContain(`<dd id="unique-code">Rp ${payment.uniqueCode}</dd>`);
    expect(formatRupiah(payment.totalAmount)).toBe(`Rp 50.${String(payment.uniqueCode).padStart(3, '0')}`);
    expect(html).toContain(`src="/pay/${payment.id}/qris.png" width="256" height="256"`);
    expect(html).toContain('QRIS · Wallet D');
    // whom the customer pays, above the amount: the receiving account's owner, by the name they registered with
    expect(html).toContain(`<p class="payee">Pembayaran kepada <strong id="shop">${caller.name}</strong></p>`);
    expect(html.indexOf('id="shop"')).toBeLessThan(html.indexOf('id="total"'));
    expect(html).not.toContain(caller.email);
    expect(html).toContain(
      `<a id="qris-download" class="button secondary wide qr-download" href="/pay/${payment.id}/qris.png?download=1" download="QRIS-INV-QR-1.png">Unduh QRIS</a>`,
    );
    expect(duplicateIds(html)).toEqual([]);
    expect(headingsOf(html)).toEqual(indonesianHeadings);
    expect(html).not.toContain('http-equiv="refresh"'); // without script nothing leaves the page by itself
    expect(html).toContain('id="countdown"');
    expect(html).toContain('data-status="PENDING"');
    expect(html).toContain(`data-status-url="/pay/${payment.id}/status.json"`);
    expect(html).toContain(`data-expires-at="${payment.expiresAt}"`);
    expect(html).toContain('<dd id="order">INV-QR-1</dd>');
    expect(html).not.toMatch(/<button[^>]*data-copy/); // nothing to copy for a QR
    expect(html).toContain('>Saya sudah bayar</button>');
    expect(html.match(/href="https:\/\/shop.example\/thanks"/g)).toHaveLength(3); // one "Kembali ke toko" per ended state
    expect(html).toContain('<a id="return" class="button wide" href="https://shop.example/thanks">Kembali ke toko</a>');

    // the one script and the one style carry this response's nonce, and every response gets its own
    const nonce = cspNonce(String(page.headers['content-security-policy']));
    expect(html.match(/<script\b[^>]*>/g)).toEqual([`<script nonce="${nonce}">`]);
    expect(html.match(/<style\b[^>]*>/g)).toEqual([`<style nonce="${nonce}">`]);
    expect(html).not.toMatch(/\sstyle="|\son[a-z]+="/); // no inline style or handler attributes (the CSP refuses them)
    const again = await pageOf(payment.id);
    expect(cspNonce(String(again.headers['content-security-policy']))).not.toBe(nonce);

    const png = await get(`/pay/${payment.id}/qris.png`);
    expect(png.statusCode).toBe(200);
    expect((await decodeQrPng(png.rawPayload)).width).toBe(256);
    expect(png.headers['content-disposition']).toBeUndefined(); // shown in the page, not saved

    // "Unduh QRIS": the same PNG, saved under the order's name
    const download = await get(`/pay/${payment.id}/qris.png?download=1`);
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('image/png');
    expect(download.headers['content-disposition']).toBe('attachment; filename="QRIS-INV-QR-1.png"');
    expect(download.rawPayload.equals(png.rawPayload)).toBe(true);
  });

  it('names the gateway merchant by the business name of its access request, and says "Gerbang pembayaran" before a method is chosen', async () => {
    const admin = await signedInAdmin(service);
    await holdingAccount(service, admin);
    const merchant = await approvedMerchant(service, admin);
    const fixed = await createPayment(
      merchant,
      paymentBody('GATEWAY', { type: 'QRIS-DYNAMIC', amount: 40_000, orderId: 'INV-GW-1' }),
    );
    const html = (await pageOf(fixed.id)).body;
    expect(html).toContain(
      `<p class="payee">Pembayaran kepada <strong id="shop">${businessData.businessName}</strong></p>`,
    );
    expect(html).not.toContain(merchant.name);
    expect(html).toContain('QRIS · Wallet D'); // the holding account's wallet
    expect(html).toContain('download="QRIS-INV-GW-1.png">Unduh QRIS</a>');

    const open = await createPayment(merchant, paymentBody('GATEWAY', { amount: 40_000 }));
    const openHtml = (await pageOf(open.id)).body;
    expect(openHtml).toContain(`<strong id="shop">${businessData.businessName}</strong>`);
    expect(openHtml).toContain('Metode belum dipilih · Gerbang pembayaran');
    expect(openHtml).not.toMatch(/Payment Gateway/i);
    expect(openHtml).not.toContain('id="qris-download"');
    expect(duplicateIds(openHtml)).toEqual([]);
    expect(headingsOf(openHtml)).toEqual(indonesianHeadings);
  });

  it('shows a virtual account number and a DIRECT destination with copy buttons, and no QR', async () => {
    const caller = await keyHolder(service);
    const { accountId, phoneNumber } = await linkWalletA(service, caller);
    const va = await createPayment(caller, paymentBody(accountId, { type: 'VA-BANK2', amount: 120_000 }));
    const vaPage = await pageOf(va.id);
    expect(vaPage.statusCode).toBe(200);
    expectPageHeaders(vaPage.headers);
    expect(vaPage.body).toContain('<p class="total" id="total">Rp 120.000</p>');
    expect(vaPage.body).toContain('<dd id="amount">Rp 120.000</dd>');
    expect(vaPage.body).not.toContain('id="unique-code"'); // virtual accounts have none
    expect(vaPage.body).toContain('Virtual account BRI · Wallet A');
    expect(vaPage.body).toContain(`<strong id="shop">${caller.name}</strong>`);
    // the copy button shows once the script runs; without it the number is plain, selectable text
    expect(vaPage.body).toContain(
      `<span id="account-number">${va.accountNumber}</span><button type="button" class="secondary" data-copy="${va.accountNumber}" data-copied="Nomor VA tersalin." hidden>Salin nomor VA</button>`,
    );
    expect(vaPage.body).toContain('data-copy="120000" data-copied="Nominal tersalin." hidden>Salin nominal</button>');
    expect(vaPage.body).toContain('<p class="hint" id="copy-note" role="status"></p>');
    expect(vaPage.body).not.toContain('<img');
    expect(vaPage.body).not.toContain('Unduh QRIS');
    expect(duplicateIds(vaPage.body)).toEqual([]);

    const direct = await createPayment(caller, paymentBody(accountId, { type: 'DIRECT', amount: 30_000 }));
    const directPage = (await pageOf(direct.id)).body;
    expect(directPage).toContain(`<span id="account-number">${phoneNumber}</span>`);
    expect(directPage).toContain(
      `data-copy="${phoneNumber}" data-copied="Nomor tujuan tersalin." hidden>Salin nomor</button>`,
    );
    expect(directPage).toContain(`<dd id="unique-code">Rp ${direct.uniqueCode}</dd>`);
    expect(directPage).toContain(`<p class="total" id="total">${formatRupiah(direct.totalAmount)}</p>`);
    expect(directPage).toContain('Transfer langsung · Wallet A');
  });

  it('escapes what the merchant sent (orderId, redirectUrl) wherever it lands in the HTML', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const orderId = `<script>alert("x")</script>&'`;
    const redirectUrl = `https://shop.example/back?q="><img src=x onerror=alert(1)>&a='1'`;
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', orderId, redirectUrl }));
    const html = (await pageOf(payment.id)).body;
    expect(html).toContain('<dd id="order">&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;&#38;&#39;</dd>');
    expect(html).not.toContain('alert("x")');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('onerror=alert(1)>');
    const href = /<a id="return" class="button wide" href="([^"]*)">/.exec(html)?.[1];
    expect(href).toBeDefined();
    expect(href).not.toMatch(/[<>"']/);
    expect(new URL(href!.replaceAll('&#38;', '&')).origin).toBe('https://shop.example');

    // the downloaded QR's file name keeps only letters, digits, '.', '_' and '-': nothing ends the header's quotes
    const fileName = 'QRIS-_script_alert__x____script___.png';
    expect(html).toContain(`download="${fileName}">Unduh QRIS</a>`);
    const download = await get(`/pay/${payment.id}/qris.png?download=1`);
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-disposition']).toBe(`attachment; filename="${fileName}"`);
  });

  it('answers a 404 page for an unknown or malformed id, with the same headers', async () => {
    for (const id of [nextUuid(), 'not-a-uuid', `${nextUuid()}x`, '%3Cscript%3E']) {
      const page = await pageOf(id);
      expect(page.statusCode, id).toBe(404);
      expectPageHeaders(page.headers);
      expect(page.body).toContain('Pembayaran tidak ditemukan');
      expect(page.body).not.toContain('<script');
    }
  });
});

describe('GET /pay/:paymentId/status.json', () => {
  it('answers only what the page needs, without a key, and follows the payment to COMPLETED', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller, 'WALLET-E');
    const payment = await createPayment(
      caller,
      paymentBody(accountId, { type: 'QRIS-DYNAMIC', orderId: 'INV-PAID-1' }),
    );
    const response = await statusJsonOf(payment.id);
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    const { status, data } = response.json();
    expect(status).toBe('success');
    expect(Object.keys(data).sort()).toEqual(
      // paidAt only once paid
      [
        'accountNumber',
        'amount',
        'expiresAt',
        'now',
        'qrisImage',
        'redirectUrl',
        'status',
        'totalAmount',
        'type',
        'uniqueCode',
      ].sort(),
    );
    expect(data).toEqual({
      status: 'PENDING',
      type: 'QRIS-DYNAMIC',
      amount: 50_000,
      uniqueCode: payment.uniqueCode,
      totalAmount: payment.totalAmount,
      accountNumber: payment.accountNumber,
      qrisImage: payment.qrisImage,
      expiresAt: payment.expiresAt,
      redirectUrl: 'https://shop.example/thanks',
      now: service.clock.now().toISOString(),
    });

    const png = await get(new URL(payment.qrisImage!).pathname);
    await sandboxOf(service).pay({ qris: (await decodeQrPng(png.rawPayload)).payload! });
    await syncUntil(caller, accountId, payment.id, 'COMPLETED');
    await eventually(async () => (await statusJsonOf(payment.id)).json().data.status === 'COMPLETED');
    const paid = (await statusJsonOf(payment.id)).json().data;
    expect(paid.paidAt).toMatch(/^\d{4}-\d\d-\d\dT/);

    // the receipt: shop, what was paid, the order, when; "Kembali ke toko" there, the script's countdown and
    // "Tetap di sini" hidden until a page sees the payment complete
    const html = (await pageOf(payment.id)).body;
    expect(html).toContain('data-status="COMPLETED"');
    expect(html).toContain(`<dd id="receipt-shop">${caller.name}</dd>`);
    expect(html).toContain(`<dd id="receipt-amount">${formatRupiah(payment.totalAmount)}</dd>`);
    expect(html).toContain('<dd id="receipt-order">INV-PAID-1</dd>');
    const paidAtWib = new Intl.DateTimeFormat('id-ID', {
      timeZone: 'Asia/Jakarta',
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
    }).format(new Date(paid.paidAt));
    expect(html).toContain(`<dd id="receipt-paid-at"><time datetime="${paid.paidAt}">${paidAtWib} WIB</time></dd>`);
    expect(html).toContain('<a id="return" class="button wide" href="https://shop.example/thanks">Kembali ke toko</a>');
    expect(html).toContain('<p class="return-note" id="return-note" aria-live="off" hidden>');
    expect(html).toContain('<button type="button" id="stay" class="secondary wide" hidden>Tetap di sini</button>');
    expect(html).not.toContain('http-equiv="refresh"');
    expect(duplicateIds(html)).toEqual([]);
    expect(headingsOf(html)).toEqual(indonesianHeadings);
  });

  it('answers EXPIRED once the payment expired, and the page opens in its expired state', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkWalletA(service, caller);
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'VA-BANK1', expiresInMinutes: 5 }));
    expect((await statusJsonOf(payment.id)).json().data).toMatchObject({
      status: 'PENDING',
      accountNumber: payment.accountNumber,
    });
    expect((await statusJsonOf(payment.id)).json().data.qrisImage).toBeUndefined();
    service.clock.advance(5 * 60_000);
    await service.paymentExpiry.tick();
    await eventually(async () => (await statusJsonOf(payment.id)).json().data.status === 'EXPIRED');
    expect((await pageOf(payment.id)).body).toContain('data-status="EXPIRED"');
  });

  it('answers 404 JSON for an unknown or malformed id', async () => {
    for (const id of [nextUuid(), 'not-a-uuid']) {
      const response = await statusJsonOf(id);
      expect(response.statusCode, id).toBe(404);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.json()).toMatchObject({ status: 'error', code: 'PAYMENT_NOT_FOUND' });
    }
    expect((await get(`/pay/not-a-uuid/qris.png`)).statusCode).toBe(404);
  });
});
