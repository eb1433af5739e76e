import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type AccountSyncClient } from '@account-sync/client';
import { keyHolder } from '../support/http.ts';
import { freshPhone } from '../support/payments.ts';
import { sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * The generated client (clients/typescript) over real HTTP, as an API client that has only the document: typed
 * requests and answers, no cast. If the document stops describing a body or an answer, this file stops compiling.
 */
let service: TestService;
let baseUrl: string;
beforeAll(async () => {
  service = await startTestService();
  baseUrl = await service.listen();
});
afterAll(async () => service?.close());

async function apiClient(): Promise<AccountSyncClient> {
  const { key } = await keyHolder(service);
  return createClient(baseUrl, { apiKey: key });
}

describe('the TypeScript client generated from /openapi.json', () => {
  it('links a WALLET-D account, creates a QRIS-DYNAMIC payment on it and reads its status', async () => {
    const client = await apiClient();
    const linked = await client.POST('/api/v1/accounts', {
      body: {
        type: 'ewallet',
        providerCode: 'WALLET-D',
        accountName: 'Kasir',
        intervalMinutes: 60,
        phoneNumber: freshPhone(),
      },
    });
    expect(linked.response.status, JSON.stringify(linked.error)).toBe(200);
    const account = linked.data;
    if (!account || !('data' in account)) throw new Error(`not an account: ${JSON.stringify(account)}`);
    expect(account.data).toMatchObject({ providerCode: 'WALLET-D', isActive: true });

    const created = await client.POST('/api/v1/payments', {
      body: {
        amount: 75_000,
        walletAccountId: account.accountId,
        type: 'QRIS-DYNAMIC',
        orderId: 'client-1',
        redirectUrl: 'https://shop.example/thanks',
      },
    });
    expect(created.response.status, JSON.stringify(created.error)).toBe(200);
    const payment = created.data!.data;
    expect(payment).toMatchObject({
      status: 'PENDING',
      type: 'QRIS-DYNAMIC',
      amount: 75_000,
      walletAccountId: account.accountId,
    });
    expect(payment.totalAmount).toBe(75_000 + payment.uniqueCode!);

    const status = await client.GET('/api/v1/payments/status/{paymentId}', {
      params: { path: { paymentId: payment.id } },
    });
    expect(status.response.status, JSON.stringify(status.error)).toBe(200);
    expect(status.data!.data).toMatchObject({ id: payment.id, status: 'PENDING', orderId: 'client-1' });
  });

  it("answers an error as the document's error envelope", async () => {
    const client = await apiClient();
    const missing = await client.GET('/api/v1/payments/status/{paymentId}', {
      params: { path: { paymentId: '00000000-0000-4000-8000-000000000000' } },
    });
    expect(missing.response.status).toBe(404);
    expect(missing.data).toBeUndefined();
    expect(missing.error).toMatchObject({ status: 'error' });
  });

  it('reads the gateway', async () => {
    const client = await apiClient();
    const gateway = await client.GET('/api/v1/gateway');
    expect(gateway.response.status, JSON.stringify(gateway.error)).toBe(200);
    expect(gateway.data!.data).toMatchObject({ walletAccountId: 'GATEWAY', access: { status: 'NONE' } });
    expect(gateway.data!.data.balance.available).toBe(0);
  });

  it('links WALLET-A with its OTP and sends a bank transfer out of it: banks, inquiry, transfer', async () => {
    const client = await apiClient();
    const phoneNumber = freshPhone();
    const created = await client.POST('/api/v1/accounts', {
      body: {
        type: 'ewallet',
        providerCode: 'WALLET-A',
        accountName: 'A',
        intervalMinutes: 60,
        phoneNumber,
        pin: '123456',
      },
    });
    const account = created.data;
    if (!account || !('accountId' in account))
      throw new Error(`no account id: ${created.response.status} ${JSON.stringify(created.error ?? account)}`);
    const sent = await client.POST('/api/v1/accounts', {
      body: { action: 'wallet-a-send-otp', phoneNumber, pin: '123456', accountId: account.accountId },
    });
    if (!sent.data || !('sessionId' in sent.data))
      throw new Error(`no OTP session: ${sent.response.status} ${JSON.stringify(sent.error ?? sent.data)}`);
    const otp = await sandboxOf(service).otp(phoneNumber);
    const verified = await client.POST('/api/v1/accounts', {
      body: { action: 'wallet-a-verify-otp', sessionId: sent.data.sessionId, otp, accountId: account.accountId },
    });
    expect(verified.response.status, JSON.stringify(verified.error)).toBe(200);

    const listed = await client.POST('/api/v1/accounts/{id}/transfer', {
      params: { path: { id: account.accountId } },
      body: { action: 'wallet-a-bank-list' },
    });
    expect(listed.response.status, JSON.stringify(listed.error)).toBe(200);
    if (!listed.data || !('data' in listed.data) || !Array.isArray(listed.data.data))
      throw new Error(`not a bank list: ${JSON.stringify(listed.data)}`);
    expect(listed.data.data.length).toBeGreaterThan(0);
    expect(listed.data.data[0]).toMatchObject({
      instId: expect.any(String),
      name: expect.any(String),
      payMethod: expect.any(String),
    });

    // money in the wallet (the customer's top-up at the provider), seen by a sync the client asks for
    await sandboxOf(service).addTransaction({
      providerCode: 'WALLET-A',
      accountRef: phoneNumber,
      type: 'CREDIT',
      amount: 100_000,
      senderName: 'Top up',
    });
    const refreshed = await client.GET('/api/v1/accounts/{id}/refresh', {
      params: { path: { id: account.accountId } },
    });
    expect(refreshed.response.status, JSON.stringify(refreshed.error)).toBe(200);
    const { instId, instLocalName, payMethod, payOption } = listed.data.data[0]!;
    const inquired = await client.POST('/api/v1/accounts/{id}/transfer', {
      params: { path: { id: account.accountId } },
      body: {
        action: 'wallet-a-bank-init',
        accountNumber: '1234567890',
        amount: 25_000,
        instId,
        instLocalName,
        payMethod,
        payOption,
      },
    });
    expect(inquired.response.status, JSON.stringify(inquired.error)).toBe(200);
    if (
      !inquired.data ||
      !('data' in inquired.data) ||
      Array.isArray(inquired.data.data) ||
      !('bankAccountIndexNo' in inquired.data.data)
    )
      throw new Error(`not an inquiry: ${JSON.stringify(inquired.data)}`);
    const transferred = await client.POST('/api/v1/accounts/{id}/transfer', {
      params: { path: { id: account.accountId } },
      body: {
        action: 'wallet-a-bank-create',
        bankAccountIndexNo: inquired.data.data.bankAccountIndexNo,
        amount: 25_000,
      },
    });
    expect(transferred.response.status, JSON.stringify(transferred.error)).toBe(200);
    expect(transferred.data).toMatchObject({ success: true });
  });
});
