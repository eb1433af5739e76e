import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/db/free-port.ts';
import { decodeQrPng } from '../support/payments.ts';
import { spawnService, type RunningService } from '../support/process.ts';
import { startReceiver } from '../webhooks/support.ts';
import { checkedFetch } from '../support/contract-fetch.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-fast-'));
let running: RunningService | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;

afterAll(async () => {
  if (running && running.child.exitCode === null) {
    running.child.kill('SIGTERM');
    await running.exited;
  }
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function json(response: Response) {
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

describe('a payment paid in the sandbox, with nobody asking for a sync', () => {
  it('is COMPLETED, and its signed payment.completed webhook arrives, within 30 s', async () => {
    const sandboxPort = await freePort();
    running = await spawnService({
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      SANDBOX_PORT: String(sandboxPort),
      // the webhook receiver listens on loopback
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    const url = running.url;
    receiver = await startReceiver();

    const registered = await checkedFetch(`${url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Toko', email: 'toko@example.com', password: 'rahasia123' }),
    });
    const cookie = /svc_token=([^;]+)/.exec(registered.headers.get('set-cookie') ?? '')![1]!;
    const key = (
      await json(
        await checkedFetch(`${url}/api/dashboard/api-keys`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie: `svc_token=${cookie}` },
          body: JSON.stringify({ name: 'shop' }),
        }),
      )
    ).body.data.key as string;
    const call = async (method: string, route: string, body?: unknown) =>
      json(
        await checkedFetch(`${url}${route}`, {
          method,
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: body ? JSON.stringify(body) : undefined,
        }),
      );

    const hook = await call('POST', '/api/v1/webhooks', { url: receiver.url });
    expect(hook.status).toBe(200);
    const secret = hook.body.data.secret as string;
    // synchronised hourly: only the checks of its pending payment can complete it in time
    const linked = await call('POST', '/api/v1/accounts', {
      type: 'ewallet',
      providerCode: 'WALLET-D',
      accountName: 'Toko',
      intervalMinutes: 60,
      phoneNumber: '081234567890',
    });
    expect(linked.status).toBe(200);
    const created = await call('POST', '/api/v1/payments', {
      amount: 25_000,
      walletAccountId: linked.body.accountId,
      type: 'QRIS-DYNAMIC',
      redirectUrl: 'https://shop.example/thanks',
      orderId: 'INV-FAST-1',
    });
    expect(created.status).toBe(200);
    const payment = created.body.data as { id: string; qrisImage: string; totalAmount: number };

    const png = Buffer.from(
      await (await checkedFetch(payment.qrisImage.replace(/^https?:\/\/[^/]+/, url))).arrayBuffer(),
    );
    const paid = await checkedFetch(`http://127.0.0.1:${sandboxPort}/sandbox/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ qris: (await decodeQrPng(png)).payload }),
    });
    expect(paid.ok).toBe(true);
    const paidAt = Date.now();

    let status = 'PENDING';
    while (status !== 'COMPLETED') {
      expect(Date.now() - paidAt, `still ${status}`).toBeLessThan(30_000);
      await new Promise(r => setTimeout(r, 500));
      status = (await call('GET', `/api/v1/payments/status/${payment.id}`)).body.data.status;
    }
    while (!receiver.received.some(r => r.body.includes('payment.completed'))) {
      expect(Date.now() - paidAt, 'no webhook yet').toBeLessThan(30_000);
      await new Promise(r => setTimeout(r, 200));
    }
    const delivery = receiver.received.find(r => r.body.includes('payment.completed'))!;
    const verified = new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>) as {
      type: string;
      data: { id: string; status: string };
    };
    expect(verified).toMatchObject({ type: 'payment.completed', data: { id: payment.id, status: 'COMPLETED' } });
  }, 90_000);
});
