import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyHolder } from '../support/http.ts';
import { decodeQrPng, linkServiceWallet, paymentBody, statusOf } from '../support/payments.ts';
import { sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * The interface's omitted type: "when empty the buyer chooses on the payment page", and type is "null while the buyer
 * has not chosen". So also into an account whose provider offers one type: the page offers it and bills it as it opens.
 */
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

const pageOf = (id: string) => service.app.inject({ method: 'GET', url: `/pay/${id}` });

describe('POST /api/v1/payments without type into a provider of one type (QRIS-DYNAMIC)', () => {
  it('answers type null, methodSelection payer and no bill; the page bills the one method as the payer opens it', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller, 'WALLET-D');
    const created = await caller.call('POST', '/api/v1/payments', paymentBody(accountId, { amount: 64_000 }));
    expect(created.statusCode, created.body).toBe(200);
    const data = created.json().data;
    expect(data).toMatchObject({ status: 'PENDING', type: null, methodSelection: 'payer', amount: 64_000 });
    for (const billed of ['uniqueCode', 'totalAmount', 'accountNumber', 'qrisImage', 'qrString'])
      expect(data).not.toHaveProperty(billed);
    expect(await statusOf(caller, data.id)).toMatchObject({ type: null, methodSelection: 'payer' });

    const page = await pageOf(data.id);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('QRIS · Wallet D');
    expect(page.body).toContain(`src="/pay/${data.id}/qris.png"`);
    const billed = await statusOf(caller, data.id);
    expect(billed).toMatchObject({ type: 'QRIS-DYNAMIC', methodSelection: 'payer', amount: 64_000 });
    expect(billed.totalAmount).toBe(64_000 + (billed.uniqueCode as number));
    const png = await service.app.inject({ method: 'GET', url: `/pay/${data.id}/qris.png` });
    expect((await decodeQrPng(png.rawPayload)).payload).toBe(billed.qrString);

    // opened again: the same bill
    expect((await pageOf(data.id)).statusCode).toBe(200);
    expect((await statusOf(caller, data.id)).totalAmount).toBe(billed.totalAmount);
  });

  it('offers the one method, unbilled, when the provider cannot bill it as the page opens', async () => {
    const caller = await keyHolder(service);
    const sandbox = sandboxOf(service);
    const { accountId } = await linkServiceWallet(caller, 'WALLET-A-BUSINESS');
    const created = await caller.call('POST', '/api/v1/payments', paymentBody(accountId));
    const id = created.json().data.id as string;
    // the provider's session ends and it refuses a new one: the account's QR cannot be fetched now
    await sandbox.faults({ providerCode: 'WALLET-A-BUSINESS', expireSessions: true, refuseLogin: true });
    try {
      const page = await pageOf(id);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(`data-choose="/pay/${id}/method" data-type="QRIS-DYNAMIC"`);
      expect((await statusOf(caller, id)).type).toBeNull();
    } finally {
      await sandbox.clearFaults();
    }
  });

  it('bills a type given at once, as before (no methodSelection)', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller, 'WALLET-E');
    const fixed = await caller.call('POST', '/api/v1/payments', paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
    expect(fixed.json().data).toMatchObject({ type: 'QRIS-DYNAMIC', qrString: expect.stringMatching(/^000201/) });
    expect(fixed.json().data).not.toHaveProperty('methodSelection');
  });
});
