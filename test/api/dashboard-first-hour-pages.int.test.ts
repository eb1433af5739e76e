import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { businessData, signedInAdminBrowser } from '../support/gateway.ts';
import { keyCallerOf, signedInBrowser, textOf, type PageBrowser } from '../support/pages.ts';
import { createPayment, decodeQrPng, linkServiceWallet, paymentBody, syncUntil } from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { shortSchedule, startReceiver } from '../webhooks/support.ts';

/** What a newcomer meets in the dashboard's first hour: each page through HTTP, as a browser without script sees it. */

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ WEBHOOK_ALLOW_PRIVATE: 'true' }, { webhooks: shortSchedule });
});
afterAll(async () => service?.close());

const stepDone = (html: string, step: string) => new RegExp(`id="start-${step}" data-done="true"`).test(html);
const accountIdOf = (html: string) => /data-account-id="([^"]+)"/.exec(html)?.[1];

describe('"Mulai" and the account pages', () => {
  it('ticks each step from the read models, each linking to where it is done; the account id shown to copy; no balance before the first sync', async () => {
    const { browser } = await signedInBrowser(service);
    const fresh = await browser.get('/dashboard');
    expect(textOf(fresh.body, 'start-progress')).toBe('0 dari 4 langkah selesai.');
    expect(textOf(fresh.body, 'user-role')).toBe('Pengguna');
    expect(textOf(fresh.body, 'user-plan')).toBe('Gratis (aktif)');
    for (const [step, href] of [
      ['api-key', '/dashboard/api-keys'],
      ['account', '/dashboard/accounts'],
      ['payment', '/dashboard/payments/new'],
      ['webhook', '/dashboard/webhooks'],
    ])
      expect(fresh.body).toMatch(new RegExp(`id="start-${step}" data-done="false">[^]*?<a href="${href}">`));

    const caller = await keyCallerOf(service, browser);
    expect(stepDone((await browser.get('/dashboard')).body, 'api-key')).toBe(true);

    const { accountId } = await linkServiceWallet(caller);
    const listed = await browser.get('/dashboard/accounts');
    expect(accountIdOf(listed.body)).toBe(accountId);
    // the id in a <code> a click selects whole, and a copy button that a script shows
    expect(listed.body).toContain(`<code class="copy" id="account-id-${accountId}">${accountId}</code>`);
    expect(listed.body).toMatch(
      new RegExp(`<button type="button" class="quiet copy" data-copy="${accountId}"[^>]*hidden>`),
    );
    expect(listed.body).toMatch(/<script nonce="[^"]+">/);
    expect(listed.body).toContain('Belum disinkron');
    expect(listed.body).not.toContain('Rp 0');
    const detail = await browser.get(`/dashboard/accounts/${accountId}`);
    expect(textOf(detail.body, 'account-id')).toBe(accountId);
    expect(textOf(detail.body, 'account-balance')).toBe('Belum disinkron');
    expect(stepDone((await browser.get('/dashboard')).body, 'account')).toBe(true);

    // a payment made is not yet the step: a paid one is
    const payment = await createPayment(caller, paymentBody(accountId, { amount: 25_000, type: 'QRIS-DYNAMIC' }));
    // made with the API key: the overview shows it once the read models have it, a moment later
    await service.projections.waitFor(await service.store.headPosition());
    const made = await browser.get('/dashboard');
    expect(stepDone(made.body, 'payment')).toBe(false);
    expect(made.body).toContain('1 dibuat, belum ada yang lunas');
    const qr = await service.app.inject({ url: `/pay/${payment.id}/qris.png` });
    await sandboxOf(service).pay({ qris: (await decodeQrPng(qr.rawPayload)).payload!, amount: payment.totalAmount });
    await syncUntil(caller, accountId, payment.id, 'COMPLETED');
    expect(stepDone((await browser.get('/dashboard')).body, 'payment')).toBe(true);
    expect(textOf((await browser.get(`/dashboard/accounts/${accountId}`)).body, 'account-balance')).toMatch(/^Rp /);

    await browser.post('/dashboard/webhooks', { url: 'http://127.0.0.1:9/hook' });
    const all = await browser.get('/dashboard');
    expect(textOf(all.body, 'start-progress')).toBe('4 dari 4 langkah selesai.');
  });

  it('says the mutation types as words', async () => {
    const { browser } = await signedInBrowser(service);
    const caller = await keyCallerOf(service, browser);
    const { accountId, phoneNumber } = await linkServiceWallet(caller);
    await sandboxOf(service).addTransaction({
      providerCode: 'WALLET-D',
      accountRef: phoneNumber,
      type: 'CREDIT',
      amount: 10_000,
    });
    await caller.call('GET', `/api/v1/accounts/${accountId}/refresh`);
    const page = await eventually(async () => {
      const p = await browser.get('/dashboard/mutations');
      return p.body.includes('data-mutation-id') ? p : null;
    });
    expect(page.body).toContain('<span class="badge ok">Masuk</span>');
    expect(page.body).toContain('<option value="DEBIT">Keluar</option>');
    expect(page.body).not.toMatch(/>(CREDIT|DEBIT)</);
  });
});

describe('payment links', () => {
  it('makes a payment from the dashboard and shows its page to share, with a copy control', async () => {
    const { browser } = await signedInBrowser(service);
    const { accountId } = await linkServiceWallet(await keyCallerOf(service, browser));
    const form = await browser.get('/dashboard/payments/new');
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('<option value="GATEWAY" selected>');
    expect(form.body).toContain(`<option value="${accountId}">`);
    const key = /name="idempotencyKey" value="([^"]+)"/.exec(form.body)![1]!;
    const fields = { amount: '25000', orderId: 'LINK-1', walletAccountId: accountId, type: 'QRIS-DYNAMIC' };
    const made = await browser.post('/dashboard/payments/new', { ...fields, idempotencyKey: key });
    expect(made.statusCode).toBe(303);
    const path = made.headers.location as string;
    expect(path).toMatch(/^\/dashboard\/payments\/[0-9a-f-]{36}\?done=created$/);
    const detail = await browser.get(path);
    expect(detail.statusCode).toBe(200);
    expect(textOf(detail.body, 'notice')).toContain('Pembayaran dibuat');
    const paymentId = path.split('/').pop()!.split('?')[0]!;
    const url = `${service.deps.config.publicBaseUrl}/pay/${paymentId}`;
    expect(textOf(detail.body, 'payment-url')).toBe(url);
    expect(detail.body).toContain(`data-copy="${url}" aria-controls="payment-url"`);
    expect((await service.app.inject({ url: `/pay/${paymentId}` })).statusCode).toBe(200);

    // the same form posted twice (a double click) is one payment
    const again = await browser.post('/dashboard/payments/new', { ...fields, idempotencyKey: key });
    expect(again.headers.location).toBe(path);
    expect(textOf((await browser.get('/dashboard/payments')).body, 'list')).toBe('Pembayaran (1)');
  });

  it('shows a refused payment on the form again, what was typed kept, and makes nothing', async () => {
    const { browser } = await signedInBrowser(service);
    await browser.get('/dashboard/payments/new');
    const bad = await browser.post('/dashboard/payments/new', {
      amount: 'sepuluh',
      orderId: 'LINK-2',
      walletAccountId: 'GATEWAY',
    });
    expect(bad.statusCode).toBe(400);
    expect(textOf(bad.body, 'notice')).toContain('amount');
    expect(bad.body).toContain('value="LINK-2"');
    const foreign = await browser.post('/dashboard/payments/new', {
      amount: '25000',
      orderId: 'LINK-3',
      walletAccountId: '00000000-0000-4000-8000-000000000000',
    });
    expect(foreign.statusCode).toBe(404);
    expect(textOf((await browser.get('/dashboard/payments')).body, 'list')).toBe('Pembayaran (0)');
  });
});

describe('"Kirim event uji"', () => {
  it('sends a webhook.test event signed like the real ones through the outbox, shown in the delivery log; also by the API', async () => {
    const receiver = await startReceiver();
    try {
      const { browser } = await signedInBrowser(service);
      const added = await browser.post('/dashboard/webhooks', { url: receiver.url });
      const secret = textOf(added.body, 'new-endpoint-secret')!;
      const endpointId = /data-endpoint-id="([^"]+)"/.exec(added.body)![1]!;
      const log = await browser.get(`/dashboard/webhooks/${endpointId}`);
      expect(log.body).toContain('Kirim event uji');
      const sent = await browser.post(`/dashboard/webhooks/${endpointId}/test`);
      expect(sent.statusCode).toBe(303);
      expect(sent.headers.location).toBe(`/dashboard/webhooks/${endpointId}?done=test-sent`);

      const [request] = await eventually(async () => receiver.received.length > 0 && receiver.received);
      const verified = new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>) as {
        type: string;
        data: unknown;
      };
      expect(verified.type).toBe('webhook.test');
      expect(verified.data).toEqual({ endpointId, url: receiver.url });
      const shown = await eventually(async () => {
        const page = await browser.get(`/dashboard/webhooks/${endpointId}?status=succeeded`);
        return page.body.includes('webhook.test') ? page : null;
      });
      expect(shown.body).toContain('Berhasil');

      const caller = await keyCallerOf(service, browser);
      const byApi = await caller.call('POST', `/api/v1/webhooks/${endpointId}/test`);
      expect(byApi.statusCode, byApi.body).toBe(202);
      expect(byApi.json().data).toMatchObject({ type: 'webhook.test', status: 'pending' });
      await eventually(async () => receiver.received.length === 2);

      // another user's endpoint is unknown to them, and nothing is sent
      const other = await signedInBrowser(service);
      expect((await other.browser.post(`/dashboard/webhooks/${endpointId}/test`)).statusCode).toBe(404);
      const otherCaller = await keyCallerOf(service, other.browser);
      expect((await otherCaller.call('POST', `/api/v1/webhooks/${endpointId}/test`)).statusCode).toBe(404);
      await new Promise(r => setTimeout(r, 300));
      expect(receiver.received.length).toBe(2);
    } finally {
      await receiver.close();
    }
  });

  it('says what this instance accepts for a URL', async () => {
    const { browser } = await signedInBrowser(service);
    expect(textOf((await browser.get('/dashboard/webhooks')).body, 'webhook-url-hint')).toContain('http://127.0.0.1');
    const strict = await startTestService();
    try {
      const { browser: elsewhere } = await signedInBrowser(strict);
      const hint = textOf((await elsewhere.get('/dashboard/webhooks')).body, 'webhook-url-hint');
      expect(hint).toContain('alamat lokal dan jaringan privat ditolak');
      expect(hint).not.toContain('127.0.0.1');
    } finally {
      await strict.close();
    }
  });
});

describe('the admin console', () => {
  let admin: PageBrowser;
  beforeAll(async () => {
    ({ browser: admin } = await signedInAdminBrowser(service));
  });

  it('says the tabs and the business fields in words, and warns while no holding account serves an approved merchant', async () => {
    const merchant = await signedInBrowser(service);
    await merchant.browser.get('/dashboard/gateway');
    await merchant.browser.post('/dashboard/gateway/access-request', businessData);
    const pending = await admin.get('/admin/access?status=PENDING');
    for (const word of [
      'Menunggu peninjauan',
      'Disetujui',
      'Ditolak',
      'Nama usaha',
      'Telepon',
      'Alamat',
      'Jenis usaha',
    ])
      expect(pending.body).toContain(word);
    expect(pending.body).not.toMatch(/>(PENDING|APPROVED|REJECTED|businessName|phone|address|businessType)</);
    expect(textOf(pending.body, 'holding-warning')).toContain('503 NO_HOLDING_ACCOUNT');
    expect(textOf((await admin.get('/admin')).body, 'holding-warning')).toContain('Belum ada rekening penampung aktif');
    expect((await admin.get('/admin/withdrawals')).body).toMatch(/>Diproses<\/a>/);

    // a holding account for dynamic QRIS only: the virtual accounts still have none
    const adminCaller = await keyCallerOf(service, admin);
    const { accountId } = await linkServiceWallet(adminCaller);
    await admin.get('/admin/holding-accounts');
    expect((await admin.post('/admin/holding-accounts', { accountId })).statusCode).toBe(303);
    const partly = textOf((await admin.get('/admin/access')).body, 'holding-warning');
    expect(partly).toContain('VA-BANK1, VA-BANK2, VA-BANK3');
    expect(partly).not.toContain('QRIS-DYNAMIC');
  });
});
