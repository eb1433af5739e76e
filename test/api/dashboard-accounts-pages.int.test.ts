import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyCallerOf, signedInBrowser, textOf, type PageBrowser } from '../support/pages.ts';
import { freshPhone } from '../support/payments.ts';
import { sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

const idFrom = (location: unknown) => /\/dashboard\/accounts\/([0-9a-f-]{36})/.exec(String(location))![1]!;
const hidden = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];

/** Links a WALLET-B account through the pages' OTP steps. */
async function linkWalletB(browser: PageBrowser, phoneNumber = freshPhone()) {
  await browser.get('/dashboard/accounts');
  const sent = await browser.post('/dashboard/accounts/otp/send', {
    providerCode: 'WALLET-B',
    accountName: 'Dompet B',
    phoneNumber,
    intervalMinutes: '60',
    verificationMethod: 'SMS',
  });
  expect(sent.statusCode, sent.body).toBe(200);
  // in the page's words: where the code went (the number masked) and until when, in WIB
  expect(textOf(sent.body, 'otp-message')).toMatch(
    new RegExp(`^Kode OTP dikirim ke \\*+${phoneNumber.slice(-4)} lewat SMS; berlaku sampai .+ WIB$`),
  );
  const otp = await sandboxOf(service).otp(phoneNumber);
  const verified = await browser.post('/dashboard/accounts/otp/verify', {
    action: hidden(sent.body, 'action')!,
    sessionId: hidden(sent.body, 'sessionId')!,
    otp,
    pin: '123456',
  });
  expect(verified.statusCode, verified.body).toBe(303);
  return { accountId: idFrom(verified.headers.location), phoneNumber };
}

describe('the accounts pages', () => {
  it('link a bank by its login, show it, synchronise it now, change its settings and delete it', async () => {
    const { browser } = await signedInBrowser(service);
    const caller = await keyCallerOf(service, browser);
    const form = {
      flow: 'bank',
      providerCode: 'BANK-BCA',
      accountName: 'Rekening toko',
      accountNumber: '1234567890',
      username: 'toko',
      intervalMinutes: '30',
    };
    const noPassword = await browser.post('/dashboard/accounts', form);
    expect(noPassword.statusCode).toBe(400);
    expect(textOf(noPassword.body, 'notice')).toContain('password');
    expect(noPassword.body).toContain('value="Rekening toko"');

    const linked = await browser.post('/dashboard/accounts', { ...form, password: 'rahasia-bank' });
    expect(linked.statusCode, linked.body).toBe(303);
    const accountId = idFrom(linked.headers.location);
    const api = (await caller.call('GET', `/api/v1/accounts/${accountId}`)).json().data;
    expect(api).toMatchObject({
      providerCode: 'BANK-BCA',
      accountName: 'Rekening toko',
      accountNumber: '1234567890',
      intervalMinutes: 30,
      isActive: true,
    });
    const detail = await browser.get(linked.headers.location as string);
    expect(textOf(detail.body, 'notice')).toContain('Terhubung');
    expect(detail.body).not.toContain('rahasia-bank');
    expect((await browser.get('/dashboard/accounts')).body).toContain(`data-account-id="${accountId}"`);

    const refreshed = await browser.post(`/dashboard/accounts/${accountId}/refresh`);
    expect(refreshed.headers.location).toBe(`/dashboard/accounts/${accountId}?done=refreshed`);
    expect((await caller.call('GET', `/api/v1/accounts/${accountId}`)).json().data.lastSync).not.toBeNull();

    const badInterval = await browser.post(`/dashboard/accounts/${accountId}`, {
      accountName: 'Toko',
      intervalMinutes: '2',
    });
    expect(badInterval.statusCode).toBe(400);
    expect(textOf(badInterval.body, 'notice')).toBe('Interval minimal 5 menit');
    const saved = await browser.post(`/dashboard/accounts/${accountId}`, {
      accountName: 'Toko pusat',
      intervalMinutes: '120',
    });
    expect(saved.headers.location).toBe(`/dashboard/accounts/${accountId}?done=saved`);
    expect((await caller.call('GET', `/api/v1/accounts/${accountId}`)).json().data).toMatchObject({
      accountName: 'Toko pusat',
      intervalMinutes: 120,
    });

    const deleted = await browser.post(`/dashboard/accounts/${accountId}/delete`);
    expect(deleted.headers.location).toBe('/dashboard/accounts?done=deleted');
    expect((await caller.call('GET', `/api/v1/accounts/${accountId}`)).statusCode).toBe(404);
    expect((await browser.get(`/dashboard/accounts/${accountId}`)).statusCode).toBe(404);
  });

  it('link a wallet by phone, and wallets by OTP: B with its PIN, C with a second code when the provider asks', async () => {
    const { browser } = await signedInBrowser(service);
    const caller = await keyCallerOf(service, browser);
    const direct = await browser.post('/dashboard/accounts', {
      flow: 'direct',
      providerCode: 'WALLET-D',
      accountName: 'Kasir',
      phoneNumber: freshPhone(),
      intervalMinutes: '60',
    });
    expect(direct.statusCode, direct.body).toBe(303);

    const b = await linkWalletB(browser);
    expect((await caller.call('GET', `/api/v1/accounts/${b.accountId}`)).json().data).toMatchObject({
      providerCode: 'WALLET-B',
      phoneNumber: b.phoneNumber,
      isActive: true,
    });

    await sandboxOf(service).faults({ providerCode: 'WALLET-C', requireSecondOtp: true });
    try {
      const phoneNumber = freshPhone();
      const sent = await browser.post('/dashboard/accounts/otp/send', {
        providerCode: 'WALLET-C',
        accountName: 'Dompet C',
        phoneNumber,
        intervalMinutes: '60',
      });
      const wrong = await browser.post('/dashboard/accounts/otp/verify', {
        action: 'wallet-c-verify-otp',
        sessionId: hidden(sent.body, 'sessionId')!,
        otp: '0000',
      });
      expect(wrong.statusCode).toBe(400);
      const step2 = await browser.post('/dashboard/accounts/otp/verify', {
        action: 'wallet-c-verify-otp',
        sessionId: hidden(sent.body, 'sessionId')!,
        otp: await sandboxOf(service).otp(phoneNumber),
      });
      expect(step2.statusCode, step2.body).toBe(200);
      expect(textOf(step2.body, 'otp-step')).toBe('Masukkan kode OTP kedua');
      expect(hidden(step2.body, 'action')).toBe('wallet-c-verify-second-otp');
      const step3 = await browser.post('/dashboard/accounts/otp/verify', {
        action: 'wallet-c-verify-second-otp',
        sessionId: hidden(step2.body, 'sessionId')!,
        otp: await sandboxOf(service).otp(phoneNumber),
      });
      expect(step3.statusCode, step3.body).toBe(303);
      expect(
        (await caller.call('GET', `/api/v1/accounts/${idFrom(step3.headers.location)}`)).json().data,
      ).toMatchObject({ providerCode: 'WALLET-C', isActive: true });
    } finally {
      await sandboxOf(service).clearFaults();
    }
    const list = (await caller.call('GET', '/api/v1/accounts?limit=100')).json().data as { providerCode: string }[];
    expect(list.map(a => a.providerCode).sort()).toEqual(['WALLET-B', 'WALLET-C', 'WALLET-D']);
  });

  it("answer 404 for another user's account on every page and form, and leave it alone", async () => {
    const owner = await signedInBrowser(service);
    const { accountId, phoneNumber } = await linkWalletB(owner.browser);
    const { browser } = await signedInBrowser(service);
    await browser.get('/dashboard/accounts');
    expect((await browser.get(`/dashboard/accounts/${accountId}`)).statusCode).toBe(404);
    expect(
      (await browser.post(`/dashboard/accounts/${accountId}`, { accountName: 'Milik saya', intervalMinutes: '60' }))
        .statusCode,
    ).toBe(404);
    expect((await browser.post(`/dashboard/accounts/${accountId}/refresh`)).statusCode).toBe(404);
    expect((await browser.post(`/dashboard/accounts/${accountId}/delete`)).statusCode).toBe(404);
    const relogin = await browser.post('/dashboard/accounts/otp/send', {
      providerCode: 'WALLET-B',
      accountId,
      phoneNumber,
    });
    expect(relogin.statusCode).toBe(404);
    expect((await browser.get('/dashboard/accounts/bukan-uuid')).statusCode).toBe(404);
    const still = await owner.browser.get(`/dashboard/accounts/${accountId}`);
    expect(still.statusCode).toBe(200);
    expect(still.body).toContain('Dompet B');
  });
});
