import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { businessData, settledBalance, signedInAdminBrowser, testHoldingAccount } from '../support/gateway.ts';
import { hostileText, limitsOutOfTheWay, percentEncoded } from '../support/hostile-text.ts';
import { keyCallerOf, pageBrowser, signedInBrowser, type PageBrowser } from '../support/pages.ts';
import { freshPhone, linkWalletA } from '../support/payments.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let user: PageBrowser;
let anonymous: PageBrowser;
let admin: PageBrowser;
let walletId: string;
let merchantId: string;
let withdrawalId: string;

beforeAll(async () => {
  service = await startTestService(limitsOutOfTheWay); // the limits are not what it tests
  ({ browser: user } = await signedInBrowser(service));
  walletId = (await linkWalletA(service, await keyCallerOf(service, user))).accountId;
  anonymous = pageBrowser(service);
  await anonymous.get('/login');

  const merchant = await signedInBrowser(service);
  merchantId = (
    await service.app.inject({ url: '/api/auth/me', cookies: { svc_token: merchant.browser.jar.get('svc_token')! } })
  ).json().id;
  await merchant.browser.post('/dashboard/gateway/access-request', businessData);
  let theAdmin;
  ({ admin: theAdmin, browser: admin } = await signedInAdminBrowser(service));
  await theAdmin.session('POST', `/api/admin/gateway/access-requests/${merchantId}/approve`);
  await settledBalance(service, merchantId, 100_000);
  await merchant.browser.get('/dashboard/gateway');
  await merchant.browser.post('/dashboard/gateway/withdrawals', {
    amount: '60000',
    bankCode: 'BCA',
    accountNumber: '1234567890',
    accountHolderName: 'Toko',
  });
  withdrawalId = /data-withdrawal-id="([^"]+)"/.exec((await merchant.browser.get('/dashboard/gateway')).body)![1]!;
});
afterAll(async () => service?.close());

/** A form as bytes: every field percent-encoded, a lone surrogate as the invalid UTF-8 it would take. */
const encoded = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([k, v]) => `${percentEncoded(k)}=${percentEncoded(v)}`)
    .join('&');

type Case = [string, (s: string) => Promise<{ statusCode: number }>];
/** Every page form and filter that takes text, each with the hostile text in one or more of its fields. */
const cases = (): Case[] => {
  const post = (browser: PageBrowser, url: string, fields: (s: string) => Record<string, string>) => (s: string) =>
    browser.postRaw(url, encoded({ _csrf: browser.token!, ...fields(s) }));
  const get = (browser: PageBrowser, url: (q: string) => string) => (s: string) => browser.get(url(percentEncoded(s)));
  return [
    ['login', post(anonymous, '/login', s => ({ email: s, password: s, next: s }))],
    ['register', post(anonymous, '/register', s => ({ name: s, email: `${s}@example.com`, password: 'rahasia123' }))],
    ['api key', post(user, '/dashboard/api-keys', s => ({ name: s }))],
    ['webhook', post(user, '/dashboard/webhooks', s => ({ url: `https://hooks.example/${s}` }))],
    [
      'bank link',
      post(user, '/dashboard/accounts', s => ({
        flow: 'bank',
        providerCode: 'BANK-BCA',
        accountName: s,
        accountNumber: '1234567890',
        username: s,
        password: s,
        intervalMinutes: '60',
      })),
    ],
    [
      'wallet link',
      post(user, '/dashboard/accounts', s => ({
        flow: 'direct',
        providerCode: 'WALLET-D',
        accountName: 'Kasir',
        phoneNumber: s,
        intervalMinutes: s,
      })),
    ],
    [
      'otp send',
      post(user, '/dashboard/accounts/otp/send', s => ({
        providerCode: 'WALLET-B',
        accountName: s,
        phoneNumber: freshPhone(),
        intervalMinutes: '60',
        verificationMethod: s,
      })),
    ],
    [
      'otp relogin',
      post(user, '/dashboard/accounts/otp/send', s => ({
        providerCode: 'WALLET-B',
        accountId: s,
        phoneNumber: freshPhone(),
      })),
    ],
    [
      'otp verify',
      post(user, '/dashboard/accounts/otp/verify', s => ({
        action: 'wallet-b-verify-otp',
        sessionId: s,
        otp: s,
        pin: s,
      })),
    ],
    ['account edit', post(user, `/dashboard/accounts/${walletId}`, s => ({ accountName: s, intervalMinutes: '60' }))],
    [
      'bank transfer',
      post(user, `/dashboard/accounts/${walletId}/transfer/bank`, s => ({ instId: s, accountNumber: s, amount: s })),
    ],
    [
      'access request',
      post(user, '/dashboard/gateway/access-request', s => ({
        ...businessData,
        businessName: s,
        address: s,
        website: s,
      })),
    ],
    [
      'withdrawal',
      post(user, '/dashboard/gateway/withdrawals', s => ({
        amount: '50000',
        bankCode: s,
        accountNumber: '1234567890',
        accountHolderName: s,
      })),
    ],
    ['mutations', get(user, q => `/dashboard/mutations?from=${q}&minAmount=${q}&accountId=${q}`)],
    ['payments', get(user, q => `/dashboard/payments?orderId=${q}&status=${q}`)],
    ['reject access', post(admin, `/admin/access/${merchantId}/reject`, s => ({ note: s }))],
    [
      'pay withdrawal',
      post(admin, `/admin/withdrawals/${withdrawalId}/paid`, s => ({
        reference: s,
        holdingAccountId: testHoldingAccount,
      })),
    ],
    [
      'calendar',
      post(admin, '/admin/calendar', s => ({ year: '2031', source: s, days: `2031-01-01 | libur-nasional | ${s}` })),
    ],
    ['streams', get(admin, q => `/admin/streams?id=${q}`)],
    ['reconciliation', get(admin, q => `/admin/reconciliation?from=${q}&to=2026-01-31`)],
  ];
};

describe('text PostgreSQL cannot store, on the pages', () => {
  it('answers a page (2xx, 3xx or 4xx) to any text in any form or filter, never 5xx; afterwards /ready is 200', async () => {
    const all = cases();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...all.map((_, i) => i)), hostileText, async (index, s) => {
        const [name, send] = all[index]!;
        const response = await send(s);
        expect(response.statusCode, `${name}: ${JSON.stringify(s).slice(0, 80)}`).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
    await service.projections.waitFor(await service.store.headPosition(), 10_000);
    const ready = await service.app.inject({ url: '/ready' });
    expect(ready.statusCode, ready.body).toBe(200);
  }, 120_000);
});
