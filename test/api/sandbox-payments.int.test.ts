import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.ts';
import type { AppDeps } from '../../src/api/deps.ts';
import { sandboxPayer } from '../../src/providers/sandbox-payer.ts';
import { approvedMerchant, holdingAccount, signedInAdmin } from '../support/gateway.ts';
import { checkAnswersAgainstDocument } from '../support/contract-inject.ts';
import { keyHolder } from '../support/http.ts';
import {
  createPayment,
  decodeQrPng,
  linkServiceWallet,
  linkWalletA,
  paymentBody,
  statusOf,
  syncUntil,
} from '../support/payments.ts';
import { eventually } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** What a payer holds from the README alone: the bill's QR payload, its page, and a sandbox that pays either. */
let service: TestService;
const others: FastifyInstance[] = [];
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  for (const app of others) await app.close();
  await service?.close();
});

const get = (url: string, app = service.app) => app.inject({ method: 'GET', url });
const payInSandbox = (paymentId: string, app = service.app) =>
  app.inject({ method: 'POST', url: `/pay/${paymentId}/sandbox-payment` });
const sandboxButton = '>Bayar (sandbox)</button>'; // the page's script names it too

/** The same service reading the same database, its provider another than the sandbox (or a sandbox that fails). */
async function appWith(sandbox: AppDeps['sandbox']) {
  const app = await buildApp({ ...service.deps, sandbox });
  checkAnswersAgainstDocument(app);
  others.push(app);
  return app;
}

describe('qrString: the payload the QR image encodes', () => {
  it('is in the create answer and the status, equal to what the PNG decodes to; a bill without a QR has none', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const created = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', amount: 42_000 }));
    const png = await get(new URL(created.qrisImage!).pathname);
    const { payload } = await decodeQrPng(png.rawPayload);
    expect(payload).toMatch(/^000201/);
    expect((created as { qrString?: string }).qrString).toBe(payload);
    expect((await statusOf(caller, created.id)).qrString).toBe(payload);

    const walletA = await linkWalletA(service, caller);
    const va = await createPayment(caller, paymentBody(walletA.accountId, { type: 'VA-BANK2' }));
    expect(va).not.toHaveProperty('qrString');
    expect(va).not.toHaveProperty('qrisImage');
  });
});

describe('POST /pay/:paymentId/sandbox-payment: the bill paid by a sandbox customer, by payment id', () => {
  it('pays a QRIS bill; the payment completes and its page turns paid', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller, 'WALLET-E');
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
    const paid = await payInSandbox(payment.id);
    expect(paid.statusCode, paid.body).toBe(201);
    expect(paid.json().data).toMatchObject({ providerCode: 'WALLET-E', amount: payment.totalAmount });
    await eventually(async () => (await statusOf(caller, payment.id)).status === 'COMPLETED');
    expect((await get(`/pay/${payment.id}`)).body).toContain('data-status="COMPLETED"');

    const again = await payInSandbox(payment.id);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'PAYMENT_NOT_PENDING' });
  });

  it("pays a virtual account's bill into its number", async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkWalletA(service, caller);
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'VA-BANK1', amount: 80_000 }));
    const paid = await payInSandbox(payment.id);
    expect(paid.statusCode, paid.body).toBe(201);
    expect(paid.json().data).toMatchObject({ providerCode: 'WALLET-A', amount: 80_000 });
    await eventually(async () => (await statusOf(caller, payment.id)).status === 'COMPLETED');
  });

  it('refuses an unknown payment (404), one not billed yet (409), and a bill outside the sandbox (409); nothing is paid', async () => {
    const caller = await keyHolder(service);
    expect((await payInSandbox('5b0c3c1e-0000-4000-8000-000000000000')).statusCode).toBe(404);
    const walletA = await linkWalletA(service, caller);
    const open = await createPayment(caller, paymentBody(walletA.accountId)); // the payer chooses among four
    const notBilled = await payInSandbox(open.id);
    expect(notBilled.statusCode).toBe(409);
    expect(notBilled.json()).toMatchObject({ code: 'PAYMENT_NOT_BILLED' });

    const { accountId } = await linkServiceWallet(caller);
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
    const real = await appWith(null);
    const outside = await payInSandbox(payment.id, real);
    expect(outside.statusCode).toBe(409);
    expect(outside.json()).toMatchObject({ code: 'PAYMENT_NOT_IN_SANDBOX' });
    expect((await statusOf(caller, payment.id)).status).toBe('PENDING');
  });

  it('answers 503 when the sandbox cannot be reached and 502 when it refuses, in its words', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
    const gone = await payInSandbox(payment.id, await appWith(sandboxPayer('http://127.0.0.1:9', 1000)));
    expect(gone.statusCode).toBe(503);
    expect(gone.json()).toMatchObject({ code: 'SANDBOX_UNAVAILABLE' });
    // a server that is no sandbox: its 404 is a refusal
    const listening = await service.listen();
    const refused = await payInSandbox(payment.id, await appWith(sandboxPayer(listening)));
    expect(refused.statusCode).toBe(502);
    expect(refused.json()).toMatchObject({ code: 'SANDBOX_PAYMENT_REFUSED' });
    expect((await statusOf(caller, payment.id)).status).toBe('PENDING');
  });
});

describe('the sandbox pays the PNG a payer downloads', () => {
  it('POST /sandbox/payments with the qris.png body pays the bill, which completes', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', amount: 31_000 }));
    const png = await get(`/pay/${payment.id}/qris.png?download=1`);
    const paid = await fetch(`${service.sandboxUrl}/sandbox/payments`, {
      method: 'POST',
      headers: { 'content-type': 'image/png' },
      body: png.rawPayload,
    });
    expect(paid.status, await paid.clone().text()).toBe(201);
    expect(((await paid.json()) as { amount: number }).amount).toBe(payment.totalAmount);
    await syncUntil(caller, accountId, payment.id, 'COMPLETED');
  });
});

describe('"Bayar (sandbox)" on the payment page', () => {
  it('shows on a pending bill paid into the sandbox, and never for another provider, before a bill or once paid', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
    const page = (await get(`/pay/${payment.id}`)).body;
    expect(page).toContain(`data-sandbox-pay="/pay/${payment.id}/sandbox-payment"${sandboxButton}`);
    expect(page).toContain('bukan uang sungguhan');

    const real = await appWith(null);
    const realPage = await get(`/pay/${payment.id}`, real);
    expect(realPage.statusCode).toBe(200);
    expect(realPage.body).toContain(`id="qris"`); // the same bill
    expect(realPage.body).not.toContain(sandboxButton);
    expect(realPage.body).not.toContain('sandbox-payment');

    const admin = await signedInAdmin(service);
    await holdingAccount(service, admin);
    const merchant = await approvedMerchant(service, admin);
    const unchosen = await createPayment(merchant, paymentBody('GATEWAY', { amount: 40_000 }));
    expect((await get(`/pay/${unchosen.id}`)).body).not.toContain(sandboxButton);

    expect((await payInSandbox(payment.id)).statusCode).toBe(201);
    await eventually(async () => (await statusOf(caller, payment.id)).status === 'COMPLETED');
    expect((await get(`/pay/${payment.id}`)).body).not.toContain(sandboxButton);
  });
});
