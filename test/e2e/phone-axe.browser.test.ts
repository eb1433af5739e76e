import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import axe from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueWebhookEvent } from '../../src/webhooks/outbox.ts';
import { startBrowserService } from '../support/chromium.ts';
import {
  approvedMerchant,
  businessData,
  holdingAccount,
  settledBalance,
  signedInAdmin,
  withSession,
} from '../support/gateway.ts';
import { keyHolder, sessionCookie } from '../support/http.ts';
import { nextUuid } from '../support/ids.ts';
import {
  createPayment,
  decodeQrPng,
  linkServiceWallet,
  linkWalletA,
  paymentBody,
  syncUntil,
} from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import type { TestService } from '../support/service.ts';

/**
 * Every dashboard and admin page, each list with rows in it, and the payment page in each state a customer meets, on a
 * phone (375x812, touch, scale 2) and on a desktop (1280x900), audited with axe-core (its default rules and target-size) and measured: nothing of the main content
 * beyond the phone's right edge, and nothing narrower than its content unless it is a scrolling box a keyboard can
 * reach. A full-page screenshot of each page on the phone goes to test/artifacts/ for a person to look at.
 */

let service: TestService;
let browser: Browser;
let baseUrl: string;
const artifacts = path.resolve(import.meta.dirname, '../artifacts');

type Who = { email: string; password: string; paths: string[] };
let merchant: Who;
let admin: Who;
let shop: Awaited<ReturnType<typeof approvedMerchant>>;

/** A payment page the customer opens (no session): what it is called in the report and screenshot, and what must show. */
type CustomerPage = { name: string; url: string; status?: number; shows?: string[]; hides?: string[] };
let customerPages: CustomerPage[];
/** For each screen, a pending QR payment the test pays while its page is open: the receipt with the return countdown. */
const paidWhileOpen: Partial<Record<'phone' | 'desktop', string>> = {};
let qrAccountId: string;

const settle = async () => service.projections.waitFor(await service.store.headPosition(), 10_000);

/** Something in every table of the merchant's dashboard and of the admin console. */
async function makeData() {
  const owner = await signedInAdmin(service);
  const qris = await holdingAccount(service, owner, 'qris', 'WALLET-D');
  shop = await approvedMerchant(service, owner);
  // a settled balance (moves the test clock by days, so the sessions are made again after it): statement entries
  await settledBalance(service, shop.id, 600_000);
  const login = await service.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email: shop.email, password: shop.password },
    remoteAddress: '10.210.0.1',
  });
  expect(login.statusCode, login.body).toBe(200);
  const session = withSession(service, sessionCookie(login));
  const withdrawal = await session('POST', '/api/dashboard/gateway/withdrawals', {
    amount: 100_000,
    bankCode: 'BCA',
    accountNumber: '1234567890',
    accountHolderName: 'Toko Maju Sejahtera Abadi',
  });
  expect(withdrawal.statusCode, withdrawal.body).toBe(201);
  // another merchant waiting for review: the access list's approve and reject actions
  const waiting = await keyHolder(service);
  const requested = await withSession(service, waiting.cookie)('POST', '/api/dashboard/gateway/access-request', {
    ...businessData,
    businessName: 'Warung Sederhana',
  });
  expect(requested.statusCode, requested.body).toBe(201);

  // the merchant's accounts, a mutation, a payment, a webhook endpoint with a delivery
  const walletD = await linkServiceWallet(shop, 'WALLET-D');
  const walletA = await linkWalletA(service, shop);
  await sandboxOf(service).addTransaction({
    providerCode: 'WALLET-A',
    accountRef: walletA.phoneNumber,
    type: 'CREDIT',
    amount: 1_234_567,
    senderName: 'PT PEMBELI SETIA SEKALI',
    description: 'Transfer masuk pembayaran pesanan',
    reference: 'REF-2026-0001-ABCDEFGH',
  });
  expect((await shop.call('GET', `/api/v1/accounts/${walletA.accountId}/refresh`)).statusCode).toBe(200);
  const payment = await createPayment(
    shop,
    paymentBody(walletD.accountId, { type: 'QRIS-DYNAMIC', orderId: `INV-2026-${Date.now()}` }),
  );
  await makePayments(walletD.accountId, walletA.accountId, payment.id);
  const endpoint = await shop.call('POST', '/api/v1/webhooks', {
    url: 'https://hooks.example/shop/notifications/payments',
  });
  expect(endpoint.statusCode, endpoint.body).toBeLessThan(300);
  const endpointId = (endpoint.json().data ?? endpoint.json()).id as string;
  await enqueueWebhookEvent(service.deps, {
    ownerId: shop.id,
    eventId: nextUuid(),
    type: 'payment.expired',
    createdAt: service.clock.now().toISOString(),
    data: { id: payment.id, status: 'EXPIRED' },
  });

  // a credit into the holding account that pays nothing: an open suspense item
  await sandboxOf(service).addTransaction({
    providerCode: 'WALLET-D',
    accountRef: qris.phoneNumber,
    type: 'CREDIT',
    amount: 77_000,
    senderName: 'SALAH KIRIM',
    reference: 'STRAY-77000',
  });
  await eventually(async () => {
    await owner.call('GET', `/api/v1/accounts/${qris.accountId}/refresh`);
    await settle();
    return (
      ((await owner.session('GET', '/api/admin/gateway/suspense?status=OPEN')).json().data as unknown[]).length > 0
    );
  });
  await settle();
  // the settlement the settled balance made: its page, with the payment it paid out
  const settlements = (await shop.call('GET', '/api/v1/gateway/settlements')).json().data as { id: string }[];
  expect(settlements).toHaveLength(1);

  merchant = {
    email: shop.email,
    password: shop.password,
    paths: [
      '/dashboard',
      '/dashboard/api-keys',
      '/dashboard/webhooks',
      `/dashboard/webhooks/${endpointId}`,
      '/dashboard/accounts',
      `/dashboard/accounts/${walletA.accountId}`,
      `/dashboard/accounts/${walletA.accountId}/transfer`,
      '/dashboard/mutations',
      '/dashboard/payments',
      `/dashboard/payments/${payment.id}`,
      '/dashboard/gateway',
      '/dashboard/gateway/settlements',
      `/dashboard/gateway/settlements/${settlements[0]!.id}`,
    ],
  };
  admin = {
    email: owner.email,
    password: owner.password,
    paths: [
      '/admin',
      '/admin/access',
      '/admin/holding-accounts',
      '/admin/withdrawals',
      '/admin/suspense',
      '/admin/reconciliation?from=2026-01-01&to=2026-12-31',
      '/admin/revenue?from=2026-01-01&to=2026-12-31',
      '/admin/payout-report?from=2026-01-01&to=2026-12-31',
      '/admin/balance-history',
      '/admin/calendar',
      '/admin/digests',
      `/admin/streams?id=user-${owner.id}`,
    ],
  };
  // every list has a row before the walk starts (the delivery and the digest are written after their events)
  const tables: Record<string, string> = {
    '/dashboard': 'sessions',
    '/dashboard/api-keys': 'api-keys',
    '/dashboard/webhooks': 'webhooks',
    [`/dashboard/webhooks/${endpointId}`]: 'deliveries',
    '/dashboard/accounts': 'accounts',
    '/dashboard/mutations': 'mutations',
    '/dashboard/payments': 'payments',
    '/dashboard/gateway': 'statement-entries',
    [`/dashboard/gateway/settlements/${settlements[0]!.id}`]: 'settlement-payments',
    '/admin/access': 'access-requests',
    '/admin/holding-accounts': 'holding-accounts',
    '/admin/withdrawals': 'withdrawals',
    '/admin/suspense': 'suspense',
    '/admin/digests': 'digests',
  };
  const shopCookie = sessionCookie(login);
  for (const [url, table] of Object.entries(tables)) {
    const cookie = url.startsWith('/admin') ? owner.cookie : shopCookie;
    await eventually(async () => {
      const page = await service.app.inject({ method: 'GET', url, cookies: { svc_token: cookie } });
      return new RegExp(`<table id="${table}">[\\s\\S]*?<tbody><tr`).test(page.body);
    }, 20_000);
  }
}

/** The payment page in every state: QR, VA and direct transfer pending, a method to choose (gateway and direct), paid, expired, unknown. */
async function makePayments(walletD: string, walletA: string, qrisPending: string) {
  qrAccountId = walletD;
  const open = (body: Record<string, unknown>) =>
    createPayment(shop, paymentBody(walletD, { type: 'QRIS-DYNAMIC', ...body }));
  const va = await createPayment(
    shop,
    paymentBody(walletA, { type: 'VA-BANK1', amount: 125_000, orderId: 'INV-2026-VA-000123' }),
  );
  const direct = await createPayment(shop, paymentBody(walletA, { type: 'DIRECT', amount: 75_000 }));
  const chooseDirect = await createPayment(shop, paymentBody(walletA, { amount: 64_000 }));
  const chooseGateway = await createPayment(shop, paymentBody('GATEWAY', { amount: 40_000 }));
  const gatewayQris = await createPayment(shop, paymentBody('GATEWAY', { type: 'QRIS-DYNAMIC', amount: 40_000 }));
  const paid = await open({ orderId: 'INV-2026-PAID-000042' });
  for (const kind of ['phone', 'desktop'] as const)
    paidWhileOpen[kind] = (await open({ orderId: `INV-2026-LIVE-${kind}` })).id;
  await payQr(paid.id);
  await syncUntil(shop, walletD, paid.id, 'COMPLETED');
  const expired = await open({ expiresInMinutes: 5 });
  service.clock.advance(5 * 60_000);
  expect(await service.paymentExpiry.tick()).toBeGreaterThanOrEqual(1);
  await eventually(
    async () =>
      (await service.app.inject({ method: 'GET', url: `/pay/${expired.id}/status.json` })).json().data.status ===
      'EXPIRED',
  );
  customerPages = [
    {
      name: 'qris-pending',
      url: `/pay/${qrisPending}`,
      shows: ['#qris', '#qris-download', '#countdown', '#paid-check'],
    },
    {
      name: 'va-pending',
      url: `/pay/${va.id}`,
      shows: ['#account-number', 'button[data-copy]:text-is("Salin nomor VA")', '#paid-check'],
    },
    {
      name: 'direct-pending',
      url: `/pay/${direct.id}`,
      shows: ['#account-number', 'button[data-copy]:text-is("Salin nomor")'],
    },
    { name: 'choose-method', url: `/pay/${chooseDirect.id}`, shows: ['#methods button'] },
    { name: 'gateway-choose-method', url: `/pay/${chooseGateway.id}`, shows: ['#methods button'] },
    { name: 'gateway-qris-pending', url: `/pay/${gatewayQris.id}`, shows: ['#qris', '#qris-download'] },
    // opened once paid: the receipt and the way back, no countdown
    {
      name: 'completed',
      url: `/pay/${paid.id}`,
      shows: ['#receipt', '#receipt-paid-at time', '#return'],
      hides: ['#return-note', '#stay', '#qris'],
    },
    {
      name: 'expired',
      url: `/pay/${expired.id}`,
      shows: ['.state-expired h2', '#return-expired'],
      hides: ['#qris', '#paid-check'],
    },
    { name: 'not-found', url: '/pay/00000000-0000-4000-8000-000000000000', status: 404 },
  ];
}

/** The customer pays a payment's QR from their wallet; the receiving account is synchronised. */
async function payQr(paymentId: string) {
  const png = await service.app.inject({ method: 'GET', url: `/pay/${paymentId}/qris.png` });
  await sandboxOf(service).pay({ qris: (await decodeQrPng(png.rawPayload)).payload! });
  const refreshed = await shop.call('GET', `/api/v1/accounts/${qrAccountId}/refresh`);
  expect(refreshed.statusCode, refreshed.body).toBe(200);
}

beforeAll(async () => {
  // webhook URLs are not resolved here (this machine has no DNS)
  ({ service, baseUrl, browser } = await startBrowserService({
    WEBHOOK_ALLOW_PRIVATE: 'true',
    REGISTER_LIMIT_PER_IP: '1000',
  }));
  rmSync(artifacts, { recursive: true, force: true });
  mkdirSync(artifacts, { recursive: true });
  await makeData();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

const viewports = {
  phone: { viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
  desktop: { viewport: { width: 1280, height: 900 } },
};

/** A context that lets the test inject axe-core (the pages' CSP allows no inline script), signed in as `who`. */
async function signedIn(kind: keyof typeof viewports, who: Who) {
  const context = await browser.newContext({ ...viewports[kind], bypassCSP: true, locale: 'id-ID' });
  const page = await context.newPage();
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Masuk' }).click();
  await page.waitForURL(`${baseUrl}/dashboard`);
  return { context, page };
}

type Finding = string;

// browser-side code as text: the test's TypeScript has no DOM types
const runAxe = `axe.run(document, { rules: { 'target-size': { enabled: true } } }).then(r => r.violations.map(v =>
  'axe ' + v.id + ' (' + v.impact + '): ' + v.nodes.map(n => n.target.join(' ') + (n.failureSummary ? ' [' + n.failureSummary.replace(/\\s+/g, ' ').slice(0, 160) + ']' : '')).slice(0, 4).join('; ')))`;

/** What lies past the right edge of a phone (the header and the main content), and what is narrower than its content without being a reachable scroll box. */
const measure = (checkEdge: boolean) => `(() => {
  const found = [];
  const viewport = document.documentElement.clientWidth;
  const name = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\\s+/).join('.') : '')
    + (el.textContent && el.children.length === 0 ? ' "' + el.textContent.trim().slice(0, 30) + '"' : '');
  // visually hidden on purpose (a closed menu's links are not rendered at all: checkVisibility) (a table's header row read by screen readers while the rows show as cards)
  const srOnly = el => { for (let n = el; n; n = n.parentElement) { const r = n.getBoundingClientRect(); if (r.width <= 1 && r.height <= 1 && getComputedStyle(n).overflow === 'hidden') return true; } return false; };
  if (${checkEdge}) {
    for (const el of document.querySelectorAll('header *, main *')) {
      const r = el.getBoundingClientRect();
      if ((r.width === 0 && r.height === 0) || !el.checkVisibility()) continue;
      if ((r.right > viewport + 0.5 || r.left < -0.5) && !srOnly(el)) found.push('past the edge: ' + name(el) + ' x ' + Math.round(r.left) + '..' + Math.round(r.right));
    }
  }
  // an SVG's text as drawn (its font size times the drawing's scale): at least 12 CSS px, a phone's too
  for (const text of document.querySelectorAll('svg text')) {
    const drawn = parseFloat(getComputedStyle(text).fontSize) * (text.getScreenCTM()?.a ?? 1);
    if (text.checkVisibility() && drawn < 12) found.push('text under 12 px: ' + name(text) + ' ' + drawn.toFixed(1) + ' px');
  }
  for (const el of [document.documentElement, ...document.body.querySelectorAll('*')]) {
    // an SVG's parts are drawn to its scale, not laid out as boxes
    if (el.scrollWidth <= el.clientWidth + 1 || el.closest('svg') || !el.checkVisibility() || srOnly(el)) continue;
    const style = getComputedStyle(el);
    const scrollBox = (style.overflowX === 'auto' || style.overflowX === 'scroll') && el.tabIndex >= 0;
    if (scrollBox || el.matches('input, textarea, select')) continue;
    found.push('narrower than its content: ' + name(el) + ' ' + el.clientWidth + ' < ' + el.scrollWidth);
  }
  return found;
})()`;

async function audit(page: Page, url: string, kind: keyof typeof viewports): Promise<Finding[]> {
  const response = await page.goto(`${baseUrl}${url}`);
  if (response?.status() !== 200) return [`status ${response?.status()}`];
  await page.addScriptTag({ content: axe.source });
  const findings = await inspect(page, kind);
  if (kind !== 'phone') {
    // a wide screen shows the navigation as a bar, no menu button
    if (await page.locator('header summary').isVisible()) findings.push('the menu button shows on a wide screen');
    const signedOut = url === '/login' || url === '/register';
    if (
      !signedOut &&
      (!(await page.locator('#logout').isVisible()) || !(await page.locator('header nav a').first().isVisible()))
    )
      findings.push('the navigation is hidden on a wide screen');
    if (url === '/dashboard') await page.screenshot({ path: path.join(artifacts, 'desktop-dashboard.png') });
    return findings;
  }
  const file = `phone-${url
    .replace(/\?.*$/, '')
    .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, 'id')
    .replace(/[^a-z0-9]+/gi, '-')
    .replace(/^-|-$/g, '')}`;
  await page.screenshot({ path: path.join(artifacts, `${file}.png`), fullPage: true });
  if (url === '/dashboard' || url === '/admin') {
    // the menu open: every link and "Keluar" within the screen, each a full tap target, and the page still clean
    await page.getByText('Menu', { exact: true }).click();
    const logout = await page.locator('#logout').boundingBox();
    if (!logout || logout.x < 0 || logout.x + logout.width > 375 || logout.height < 44)
      findings.push(`menu: Keluar at ${JSON.stringify(logout)}`);
    const small = (await page.evaluate(
      `[...document.querySelectorAll('header nav a')].filter(a => a.getBoundingClientRect().height < 44).length`,
    )) as number;
    if (small > 0) findings.push(`menu: ${small} links under 44 px high`);
    findings.push(...(await inspect(page, 'phone')).map(f => `menu open: ${f}`));
    await page.screenshot({ path: path.join(artifacts, `${file}-menu.png`), fullPage: true });
  }
  return findings;
}

/** axe-core (already injected) and the measures, on the page as it is now. */
async function inspect(page: Page, kind: keyof typeof viewports): Promise<Finding[]> {
  return [
    ...((await page.evaluate(runAxe)) as Finding[]),
    ...((await page.evaluate(measure(kind === 'phone'))) as Finding[]),
  ];
}

/** The payment page as a customer opens it, in the state it was made for: what must and must not show, then the audit. */
async function auditCustomerPage(
  page: Page,
  { name, url, status = 200, shows = [], hides = [] }: CustomerPage,
  kind: keyof typeof viewports,
): Promise<Finding[]> {
  const response = await page.goto(`${baseUrl}${url}`);
  if (response?.status() !== status) return [`status ${response?.status()}, not ${status}`];
  await page.addScriptTag({ content: axe.source });
  const findings = [...(await stateFindings(page, shows, hides)), ...(await inspect(page, kind))];
  await customerScreenshot(page, kind, name);
  return findings;
}

async function stateFindings(page: Page, shows: string[], hides: string[]): Promise<Finding[]> {
  const found: Finding[] = [];
  for (const selector of shows)
    if (!(await page.locator(selector).first().isVisible())) found.push(`not shown: ${selector}`);
  for (const selector of hides) if (await page.locator(selector).first().isVisible()) found.push(`shown: ${selector}`);
  return found;
}

async function customerScreenshot(page: Page, kind: keyof typeof viewports, name: string) {
  if (kind === 'phone') await page.screenshot({ path: path.join(artifacts, `phone-pay-${name}.png`), fullPage: true });
}

/**
 * A QR payment paid while its page is open: the receipt with "Kembali ke toko", the countdown back to the shop and
 * "Tetap di sini" (audited within the 10 s it waits, axe injected beforehand), then the page once the customer stays.
 */
async function auditPaidWhileOpen(kind: keyof typeof viewports, report: Record<string, Finding[]>) {
  const context = await browser.newContext({ ...viewports[kind], bypassCSP: true, locale: 'id-ID' });
  await context.route('https://shop.example/**', route =>
    route.fulfill({ contentType: 'text/html', body: '<h1>Terima kasih</h1>' }),
  );
  const page = await context.newPage();
  const url = `${baseUrl}/pay/${paidWhileOpen[kind]}`;
  await page.goto(url);
  await page.addScriptTag({ content: axe.source });
  report['pay: pending, open while it is paid'] = await stateFindings(page, ['#qris', '#countdown'], []);
  await payQr(paidWhileOpen[kind]!);
  await page.locator('#return-note').waitFor({ state: 'visible', timeout: 20_000 });
  const returning = [
    ...(await stateFindings(page, ['#receipt', '#return', '#return-countdown', '#stay'], ['#qris'])),
    ...(await inspect(page, kind)),
  ];
  await customerScreenshot(page, kind, 'completed-while-open');
  if (page.url() !== url) returning.push(`left for ${page.url()} before the audit ended`);
  report['pay: completed while open, returning'] = returning;
  await page.locator('#stay').click();
  report['pay: completed while open, stayed'] = [
    ...(await stateFindings(page, ['#receipt', '#return', '#return-note'], ['#stay'])),
    ...(await inspect(page, kind)),
  ];
  await customerScreenshot(page, kind, 'completed-while-open-stayed');
  await context.close();
}

describe('every dashboard, admin and payment page with data, audited with axe-core', () => {
  for (const kind of ['phone', 'desktop'] as const) {
    it(`on a ${kind === 'phone' ? 'phone (375x812, touch)' : 'desktop (1280x900)'}: no axe violation, nothing past the edge, no sideways scroll but in a reachable box`, async () => {
      const report: Record<string, Finding[]> = {};
      const signedOut = await browser.newContext({ ...viewports[kind], bypassCSP: true, locale: 'id-ID' });
      const entry = await signedOut.newPage();
      for (const url of ['/login', '/register']) report[url] = await audit(entry, url, kind);
      await signedOut.close();
      for (const who of [merchant, admin]) {
        const { context, page } = await signedIn(kind, who);
        for (const url of who.paths) report[url] = await audit(page, url, kind);
        await context.close();
      }
      // the customer's pages: no session, no navigation
      const customer = await browser.newContext({ ...viewports[kind], bypassCSP: true, locale: 'id-ID' });
      const payer = await customer.newPage();
      for (const page of customerPages) report[`pay: ${page.name}`] = await auditCustomerPage(payer, page, kind);
      await customer.close();
      await auditPaidWhileOpen(kind, report);
      const failing = Object.fromEntries(Object.entries(report).filter(([, found]) => found.length > 0));
      console.log(
        `${kind}: ${Object.keys(report).length} pages, ${Object.values(report).flat().length} findings`,
        JSON.stringify(failing, null, 1),
      );
      expect(failing).toEqual({});
    }, 120_000);
  }
});
