import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { businessData, settledBalance, signedInAdminBrowser, testHoldingAccount } from '../support/gateway.ts';
import { pageBrowser, signedInBrowser, textOf } from '../support/pages.ts';
import { linkServiceWallet } from '../support/payments.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

const adminBrowser = () => signedInAdminBrowser(service);

const userIdOf = async (cookie: string) =>
  (await service.app.inject({ method: 'GET', url: '/api/auth/me', cookies: { svc_token: cookie } })).json()
    .id as string;

describe('the gateway pages', () => {
  it('take a merchant from an access request through approval, fee mode, a withdrawal and its payout', async () => {
    const merchant = await signedInBrowser(service);
    const merchantId = await userIdOf(merchant.browser.jar.get('svc_token')!);
    const first = await merchant.browser.get('/dashboard/gateway');
    expect(textOf(first.body, 'access-status')).toBe('Belum mengajukan');

    const incomplete = await merchant.browser.post('/dashboard/gateway/access-request', {
      ...businessData,
      address: '',
    });
    expect(incomplete.statusCode).toBe(400);
    expect(textOf(incomplete.body, 'notice')).toContain('address');
    expect(incomplete.body).toContain(`value="${businessData.businessName}"`);
    const requested = await merchant.browser.post('/dashboard/gateway/access-request', {
      ...businessData,
      website: '',
      description: '',
    });
    expect(requested.headers.location).toBe('/dashboard/gateway?done=requested');
    expect(textOf((await merchant.browser.get('/dashboard/gateway')).body, 'access-status')).toBe(
      'Menunggu peninjauan',
    );

    const { admin, browser } = await adminBrowser();
    const review = await browser.get('/admin/access?status=PENDING');
    expect(review.body).toContain(`data-user-id="${merchantId}"`);
    expect(review.body).toContain(businessData.businessName);
    const noNote = await browser.post(`/admin/access/${merchantId}/reject`, { note: '  ' });
    expect(noNote.statusCode).toBe(400);
    expect(textOf(noNote.body, 'notice')).toBe('Catatan wajib diisi');
    expect((await browser.post(`/admin/access/${merchantId}/approve`)).headers.location).toBe(
      '/admin/access?done=approved',
    );
    expect((await browser.post(`/admin/access/${merchantId}/approve`)).statusCode).toBe(409); // decided already

    // a holding account serving QRIS: the merchant's methods show it
    const { accountId } = await linkServiceWallet(admin);
    const holding = await browser.get('/admin/holding-accounts');
    expect(holding.body).toContain(`<option value="${accountId}"`);
    expect((await browser.post('/admin/holding-accounts', { accountId })).headers.location).toBe(
      '/admin/holding-accounts?done=marked',
    );
    expect((await browser.get('/admin/holding-accounts')).body).toContain(`data-account-id="${accountId}"`);
    const approved = await merchant.browser.get('/dashboard/gateway');
    expect(textOf(approved.body, 'access-status')).toBe('Disetujui');
    expect(textOf(approved.body, 'methods')).toBe('QRIS');

    expect(
      (await merchant.browser.post('/dashboard/gateway/settings', { feeToCustomer: 'true' })).headers.location,
    ).toBe('/dashboard/gateway?done=saved');
    const info = await service.app.inject({
      method: 'GET',
      url: '/api/dashboard/gateway',
      cookies: { svc_token: merchant.browser.jar.get('svc_token')! },
    });
    expect(info.json().data.access.feeToCustomer).toBe(true);

    await settledBalance(service, merchantId, 120_000);
    const funded = await merchant.browser.get('/dashboard/gateway');
    expect(textOf(funded.body, 'balance-available')).toBe('Rp 120.000');
    const tooMuch = await merchant.browser.post('/dashboard/gateway/withdrawals', {
      amount: '120001',
      bankCode: 'BCA',
      accountNumber: '1234567890',
      accountHolderName: 'Toko Maju',
    });
    expect(tooMuch.statusCode).toBe(400);
    expect(textOf(tooMuch.body, 'notice')).toBe('Jumlah melebihi saldo tersedia (120000)');
    expect(tooMuch.body).toContain('value="120001"');
    const notANumber = await merchant.browser.post('/dashboard/gateway/withdrawals', {
      amount: '1e5',
      bankCode: 'BCA',
      accountNumber: '1234567890',
      accountHolderName: 'Toko Maju',
    });
    expect(notANumber.statusCode).toBe(400);
    // the form carries the key made with the page: a second click asks once
    const idempotencyKey = /name="idempotencyKey" value="([^"]+)"/.exec(funded.body)![1]!;
    const form = {
      amount: '100000',
      bankCode: 'BCA',
      accountNumber: '1234567890',
      accountHolderName: 'Toko Maju',
      idempotencyKey,
    };
    const asked = await merchant.browser.post('/dashboard/gateway/withdrawals', form);
    expect(asked.headers.location).toBe('/dashboard/gateway?done=withdrawal');
    expect((await merchant.browser.post('/dashboard/gateway/withdrawals', form)).headers.location).toBe(
      '/dashboard/gateway?done=withdrawal',
    );
    const held = await merchant.browser.get('/dashboard/gateway');
    expect(textOf(held.body, 'balance-available')).toBe('Rp 20.000');
    expect(textOf(held.body, 'balance-on-hold')).toBe('Rp 100.000');
    expect(held.body.match(/data-withdrawal-id="/g)).toHaveLength(1);
    const withdrawalId = /data-withdrawal-id="([^"]+)"/.exec(held.body)![1]!;

    const queue = await browser.get('/admin/withdrawals?status=REQUESTED');
    expect(queue.body).toContain(`data-withdrawal-id="${withdrawalId}"`);
    expect((await browser.post(`/admin/withdrawals/${withdrawalId}/paid`, { reference: '' })).statusCode).toBe(400);
    expect(
      (
        await browser.post(`/admin/withdrawals/${withdrawalId}/paid`, {
          reference: 'TRF-778899',
          holdingAccountId: testHoldingAccount,
        })
      ).headers.location,
    ).toBe('/admin/withdrawals?done=paid');
    const paid = await merchant.browser.get('/dashboard/gateway');
    expect(textOf(paid.body, 'balance-on-hold')).toBe('Rp 0');
    expect(paid.body).toContain('Ref. TRF-778899');

    const today = new Date(service.clock.now().getTime() + 7 * 3_600_000).toISOString().slice(0, 10);
    const report = await browser.get(`/admin/reconciliation?from=2026-01-01&to=${today}`);
    expect(report.statusCode).toBe(200);
    // the test's credits name no real payment, so the holding-account check differs; the ledger itself balances
    expect(textOf(report.body, 'trial-balance')).toBe('Cocok');
    expect(textOf(report.body, 'reconciliation-verdict')).toBe('Selisih');
    expect(/id="fees-earned">.*? (Rp [0-9.]+)<\/dd>/.exec(report.body)?.[1]).toBe('Rp 3.000');
    // one file per table, each linked from the page
    expect(report.body).toContain(`/admin/reconciliation.csv?from=2026-01-01&#38;to=${today}&#38;table=fees`);
    const csv = await browser.get(`/admin/reconciliation.csv?from=2026-01-01&to=${today}&table=merchants`);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body.split('\r\n')[0]).toMatch(/^\uFEFFmerchantId,/); // the byte order mark first
    expect((await browser.get('/admin/reconciliation?from=2026-02-30&to=2026-03-01')).statusCode).toBe(400);
  });

  it('keep the admin console to admins: a user sees 403, a browser without a session goes to /login', async () => {
    const { browser } = await signedInBrowser(service);
    for (const path of ['/admin', '/admin/access', '/admin/withdrawals', '/admin/reconciliation', '/admin/nope']) {
      const response = await browser.get(path);
      expect(response.statusCode, path).toBe(403);
      expect(textOf(response.body, 'error-message')).toBe('Halaman ini hanya untuk admin.');
    }
    const someone = await signedInBrowser(service);
    const someoneId = await userIdOf(someone.browser.jar.get('svc_token')!);
    await someone.browser.post('/dashboard/gateway/access-request', businessData);
    await browser.get('/dashboard');
    expect((await browser.post(`/admin/access/${someoneId}/approve`)).statusCode).toBe(403);
    expect(textOf((await someone.browser.get('/dashboard/gateway')).body, 'access-status')).toBe('Menunggu peninjauan');
    expect((await pageBrowser(service).get('/admin/access')).headers.location).toBe(
      `/login?next=${encodeURIComponent('/admin/access')}`,
    );
    expect((await (await signedInBrowser(service)).browser.get('/dashboard')).body).not.toContain('href="/admin"');
    expect((await (await adminBrowser()).browser.get('/dashboard')).body).toContain('href="/admin"');
  });
});
