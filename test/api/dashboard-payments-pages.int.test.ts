import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyCallerOf, signedInBrowser, textOf } from '../support/pages.ts';
import { createPayment, linkServiceWallet, paymentBody } from '../support/payments.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

describe('the payments pages', () => {
  it('list the viewer’s payments with their filters, and show one with its event history', async () => {
    const { browser } = await signedInBrowser(service);
    const caller = await keyCallerOf(service, browser);
    const { accountId } = await linkServiceWallet(caller);
    const kept = await createPayment(
      caller,
      paymentBody(accountId, { type: 'QRIS-DYNAMIC', amount: 61_000, orderId: 'INV-2026-001' }),
    );
    const lapsing = await createPayment(
      caller,
      paymentBody(accountId, { type: 'QRIS-DYNAMIC', amount: 62_000, orderId: 'INV-2026-002', expiresInMinutes: 5 }),
    );
    await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', amount: 63_000, orderId: 'LAIN-1' }));
    service.clock.advance(6 * 60_000);
    expect(await service.paymentExpiry.tick()).toBeGreaterThanOrEqual(1);

    const all = await browser.get('/dashboard/payments');
    expect(all.statusCode).toBe(200);
    expect(textOf(all.body, 'list')).toBe('Pembayaran (3)');
    const byOrder = await browser.get('/dashboard/payments?orderId=INV-2026');
    expect(byOrder.body).toContain('INV-2026-001');
    expect(byOrder.body).toContain('INV-2026-002');
    expect(byOrder.body).not.toContain('LAIN-1');
    const expired = await browser.get('/dashboard/payments?status=EXPIRED');
    expect(expired.body).toContain(`data-payment-id="${lapsing.id}"`);
    expect(expired.body).not.toContain(`data-payment-id="${kept.id}"`);
    // a wildcard in the order id is a character, not a pattern
    expect(textOf((await browser.get('/dashboard/payments?orderId=INV_2026')).body, 'list')).toBe('Pembayaran (0)');

    const detail = await browser.get(`/dashboard/payments/${lapsing.id}`);
    expect(detail.statusCode).toBe(200);
    expect(textOf(detail.body, 'payment-status')).toBe('Kedaluwarsa');
    expect(textOf(detail.body, 'payment-total')).toBe(`Rp ${lapsing.totalAmount.toLocaleString('id-ID')}`);
    expect(textOf(detail.body, 'payment-url')).toBe(lapsing.paymentUrl);
    const history = /<ol id="payment-events">([\s\S]*?)<\/ol>/.exec(detail.body)![1]!;
    expect([...history.matchAll(/<strong>(\w+)<\/strong>/g)].map(m => m[1])).toEqual([
      'PaymentCreated',
      'PaymentExpired',
    ]);
  });

  it("answer 404 for another user's payment and an unknown one, and 400 for a filter that makes no sense", async () => {
    const owner = await signedInBrowser(service);
    const caller = await keyCallerOf(service, owner.browser);
    const { accountId } = await linkServiceWallet(caller);
    const theirs = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', orderId: 'RAHASIA-1' }));

    const { browser } = await signedInBrowser(service);
    expect((await browser.get(`/dashboard/payments/${theirs.id}`)).statusCode).toBe(404);
    expect((await browser.get('/dashboard/payments/bukan-uuid')).statusCode).toBe(404);
    expect((await browser.get('/dashboard/payments')).body).not.toContain('RAHASIA-1');

    const backwards = await browser.get('/dashboard/payments?from=2026-03-02&to=2026-03-01');
    expect(backwards.statusCode).toBe(400);
    expect(textOf(backwards.body, 'notice')).toContain('tanggal awal harus sebelum tanggal akhir');
    expect((await browser.get('/dashboard/payments?status=PAID')).statusCode).toBe(400);
  });
});
