import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInAdminBrowser } from '../support/gateway.ts';
import { signedInBrowser, textOf, type PageBrowser } from '../support/pages.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

/** A form with one field sent twice, as no page's form sends it. */
const twice = (browser: PageBrowser, url: string, name: string) =>
  browser.postRaw(url, `_csrf=${encodeURIComponent(browser.token!)}&${name}=a&${name}=b`);

describe('forms through their schemas', () => {
  it("an admin's refusal of a merchant without a note is the review page's 400 in its words", async () => {
    const { browser } = await signedInAdminBrowser(service);
    await browser.get('/admin/access');
    const refused = await browser.post(`/admin/access/${randomUUID()}/reject`);
    expect(refused.statusCode).toBe(400);
    expect(textOf(refused.body, 'notice')).toContain('Catatan wajib diisi');
    expect(refused.body).toContain('Akses gateway');
  });

  it('a field sent twice is a 400 page, never a 500, on the admin forms', async () => {
    const { browser } = await signedInAdminBrowser(service);
    await browser.get('/admin/access');
    expect((await twice(browser, `/admin/access/${randomUUID()}/deactivate`, 'note')).statusCode).toBe(400);
    await browser.get('/admin/holding-accounts');
    const marked = await twice(browser, '/admin/holding-accounts', 'accountId');
    expect(marked.statusCode).toBe(400);
    expect(marked.body).toContain('Rekening penampung');
  });

  it("a bank linked without a name is the accounts page's 400 in its words, the form as typed", async () => {
    const { browser } = await signedInBrowser(service);
    await browser.get('/dashboard/accounts');
    const form = {
      flow: 'bank',
      providerCode: 'BANK-BCA',
      accountName: '  ',
      intervalMinutes: '60',
      username: 'toko1',
    };
    const refused = await browser.post('/dashboard/accounts', form);
    expect(refused.statusCode).toBe(400);
    expect(textOf(refused.body, 'notice')).toContain('Nama wajib diisi');
    expect(refused.body).toContain('value="toko1"');
  });

  it("a merchant's fee form without a choice is the gateway page's 400 in its words", async () => {
    const { browser } = await signedInBrowser(service);
    await browser.get('/dashboard/gateway');
    const refused = await browser.post('/dashboard/gateway/settings', { feeToCustomer: 'maybe' });
    expect(refused.statusCode).toBe(400);
    expect(textOf(refused.body, 'notice')).toContain('Pilih siapa yang menanggung biaya');
  });
});
