import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyHolder } from '../support/http.ts';
import {
  createPayment,
  decodeQrPng,
  linkServiceWallet,
  linkWalletA,
  paymentBody,
  statusOf,
} from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver } from '../webhooks/support.ts';

/**
 * The whole payment story over HTTP: create, the customer pays in the sandbox, the account is synchronised, the
 * payment completes, and the merchant's endpoint receives a signed `payment.completed` that verifies with the
 * Standard Webhooks library. Also the `payment.expired` of a payment nobody paid.
 */
let service: TestService;
let sandbox: ReturnType<typeof sandboxOf>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  service = await startTestService(
    { WEBHOOK_ALLOW_PRIVATE: 'true' },
    { webhooks: { retryDelaysMs: [0, 50, 50], pollIntervalMs: 100 } },
  );
  sandbox = sandboxOf(service);
  receiver = await startReceiver();
});
afterAll(async () => {
  await service?.close();
  await receiver?.close();
});

type Caller = Awaited<ReturnType<typeof keyHolder>>;

async function merchantWithEndpoint() {
  const caller = await keyHolder(service);
  const registered = await caller.call('POST', '/api/v1/webhooks', { url: receiver.url });
  expect(registered.statusCode, registered.body).toBe(200);
  return { caller, secret: registered.json().data.secret as string };
}

/** The webhook of `type` about `paymentId`, verified with the endpoint's secret. */
async function webhookFor(secret: string, paymentId: string, type: string) {
  const verifier = new Webhook(secret);
  return eventually(async () => {
    for (const r of receiver.received) {
      const body = JSON.parse(r.body) as { type: string; data: { id: string } };
      if (body.type !== type || body.data.id !== paymentId) continue;
      return verifier.verify(r.body, {
        'webhook-id': String(r.headers['webhook-id']),
        'webhook-timestamp': String(r.headers['webhook-timestamp']),
        'webhook-signature': String(r.headers['webhook-signature']),
      }) as { id: string; type: string; createdAt: string; data: Record<string, unknown> };
    }
    return null;
  });
}

async function refresh(caller: Caller, accountId: string) {
  const response = await caller.call('GET', `/api/v1/accounts/${accountId}/refresh`);
  expect(response.statusCode, response.body).toBe(200);
}

describe('a payment from creation to webhook', () => {
  it('QRIS-DYNAMIC: the QR is paid, synchronised, completed and announced', async () => {
    const { caller, secret } = await merchantWithEndpoint();
    const { accountId } = await linkServiceWallet(caller, 'WALLET-D');
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', amount: 88_000 }));
    const png = await service.app.inject({ method: 'GET', url: new URL(payment.qrisImage!).pathname });
    await sandbox.pay({ qris: (await decodeQrPng(png.rawPayload)).payload! });
    await refresh(caller, accountId);
    const hook = await webhookFor(secret, payment.id, 'payment.completed');
    expect(hook.data).toMatchObject({
      id: payment.id,
      status: 'COMPLETED',
      amount: 88_000,
      totalAmount: payment.totalAmount,
      type: 'QRIS-DYNAMIC',
    });
    expect(hook.data).toEqual(await statusOf(caller, payment.id));
  });

  it('a virtual account of WALLET-A: paid into its number', async () => {
    const { caller, secret } = await merchantWithEndpoint();
    const { accountId } = await linkWalletA(service, caller);
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'VA-BANK3', amount: 250_000 }));
    await sandbox.pay({ vaNumber: payment.accountNumber!, amount: 250_000 });
    await refresh(caller, accountId);
    const hook = await webhookFor(secret, payment.id, 'payment.completed');
    expect(hook.data).toMatchObject({ status: 'COMPLETED', accountNumber: payment.accountNumber, uniqueCode: 0 });
  });

  it('DIRECT to WALLET-A: a transfer of the exact total', async () => {
    const { caller, secret } = await merchantWithEndpoint();
    const { accountId, phoneNumber } = await linkWalletA(service, caller);
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'DIRECT', amount: 15_000 }));
    await sandbox.pay({ accountNumber: phoneNumber, providerCode: 'WALLET-A', amount: payment.totalAmount });
    await refresh(caller, accountId);
    const hook = await webhookFor(secret, payment.id, 'payment.completed');
    expect(hook.data).toMatchObject({ status: 'COMPLETED', type: 'DIRECT', totalAmount: payment.totalAmount });
  });

  it('an unpaid payment expires and is announced once', async () => {
    const { caller, secret } = await merchantWithEndpoint();
    const { accountId } = await linkServiceWallet(caller, 'WALLET-E');
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', expiresInMinutes: 5 }));
    service.clock.advance(5 * 60_000);
    await service.paymentExpiry.tick();
    await service.paymentExpiry.tick();
    const hook = await webhookFor(secret, payment.id, 'payment.expired');
    expect(hook.data).toMatchObject({ id: payment.id, status: 'EXPIRED' });
    await service.sagas.waitFor(await service.store.headPosition());
    const announced = receiver.received.filter(r => r.body.includes(payment.id) && r.body.includes('payment.expired'));
    expect(new Set(announced.map(r => r.headers['webhook-id'])).size).toBe(1);
  });
});
