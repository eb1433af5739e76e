import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { settlesAt } from '../../src/domain/working-days.ts';
import { shippedHolidayCalendar } from '../../src/projections/holiday-calendar.ts';
import { freePort } from '../../src/db/free-port.ts';
import { decodeQrPng } from '../support/payments.ts';
import { spawnService, type RunningService } from '../support/process.ts';
import { startReceiver } from '../webhooks/support.ts';
import { checkedFetch } from '../support/contract-fetch.ts';

const root = path.resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-gateway-'));
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

const day = 86_400_000;
/** 10:00 WIB on the first Friday at least a week after today (the test clock only moves forward). */
function aFridayAhead(): Date {
  const at = new Date(Date.now() + 7 * day);
  at.setUTCHours(3, 0, 0, 0);
  while (at.getUTCDay() !== 5) at.setTime(at.getTime() + day);
  return at;
}

type Answer = { status: number; body: Record<string, any>; text: string; type: string | null };

/** A caller of the running service: with an API key, a session cookie, or nothing. */
function caller(url: string, auth: { key?: string; cookie?: string } = {}) {
  return async (
    method: string,
    route: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> => {
    const response = await checkedFetch(`${url}${route}`, {
      method,
      headers: {
        // the session surfaces take JSON only, bodyless posts included
        ...(body === undefined && (method === 'GET' || method === 'DELETE')
          ? {}
          : { 'content-type': 'application/json' }),
        ...(auth.key ? { 'x-api-key': auth.key } : {}),
        ...(auth.cookie ? { cookie: `svc_token=${auth.cookie}` } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: Record<string, any> = {};
    try {
      parsed = JSON.parse(text);
    } catch {
      // CSV or HTML
    }
    return { status: response.status, body: parsed, text, type: response.headers.get('content-type') };
  };
}

const cookieOf = (response: Response) => /svc_token=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')![1]!;

async function until<T>(what: string, probe: () => Promise<T | null | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not in ${timeoutMs} ms`);
    await new Promise(r => setTimeout(r, 200));
  }
}

describe('the payment gateway end to end, through HTTP, on the test clock', () => {
  it('approves a merchant, takes a QRIS payment in the sandbox, settles it across a weekend, withdraws, pays out and reconciles', async () => {
    const sandboxPort = await freePort();
    running = await spawnService({
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      SANDBOX_PORT: String(sandboxPort),
      // the webhook receiver listens on loopback
      WEBHOOK_ALLOW_PRIVATE: 'true',
      TEST_CLOCK: 'true',
      // the clock crosses a weekend while the merchant and the admin stay signed in
      SESSION_IDLE_HOURS: String(24 * 90),
    });
    const url = running.url;
    const open = caller(url);

    // Friday, 10:00 WIB
    const friday = aFridayAhead();
    expect((await open('POST', '/api/test-clock', { setTo: friday.toISOString() })).status).toBe(200);

    // the platform's admin (made by the CLI) links a QRIS wallet and marks it as a holding account
    const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'create-admin',
        '--name',
        'Admin',
        '--email',
        'admin@example.com',
        '--password',
        'rahasia123',
      ],
      { cwd: root, env },
    );
    // the CLI wrote to the event store: the service's read model has the admin a moment later
    const adminLogin = await until('admin can log in', async () => {
      const response = await checkedFetch(`${url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@example.com', password: 'rahasia123' }),
      });
      return response.status === 200 && response;
    });
    const adminSession = caller(url, { cookie: cookieOf(adminLogin) });
    const adminKey = (await adminSession('POST', '/api/dashboard/api-keys', { name: 'platform' })).body.data
      .key as string;
    const admin = caller(url, { key: adminKey });
    const wallet = await admin('POST', '/api/v1/accounts', {
      type: 'ewallet',
      providerCode: 'WALLET-D',
      accountName: 'Holding',
      intervalMinutes: 60,
      phoneNumber: '081200000001',
    });
    expect(wallet.status, wallet.text).toBe(200);
    expect(
      (await adminSession('POST', '/api/admin/gateway/holding-accounts', { accountId: wallet.body.accountId })).status,
    ).toBe(201);

    // a merchant asks for access, is approved, passes the fee to the buyer and listens to webhooks
    const registered = await checkedFetch(`${url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Toko', email: 'toko@example.com', password: 'rahasia123' }),
    });
    const merchantSession = caller(url, { cookie: cookieOf(registered) });
    const merchantId = (await merchantSession('GET', '/api/auth/me')).body.id as string;
    const merchant = caller(url, {
      key: (await merchantSession('POST', '/api/dashboard/api-keys', { name: 'shop' })).body.data.key as string,
    });
    expect(
      (
        await merchantSession('POST', '/api/dashboard/gateway/access-request', {
          businessName: 'Toko Maju',
          businessType: 'retail',
          phone: '081234567890',
          address: 'Bandung',
        })
      ).status,
    ).toBe(201);
    expect((await adminSession('POST', `/api/admin/gateway/access-requests/${merchantId}/approve`)).status).toBe(200);
    expect((await merchantSession('PATCH', '/api/dashboard/gateway/settings', { feeToCustomer: true })).status).toBe(
      200,
    );
    receiver = await startReceiver();
    expect((await merchant('POST', '/api/v1/webhooks', { url: receiver.url })).status).toBe(200);
    const gateway = await merchant('GET', '/api/v1/gateway');
    expect(gateway.body.data).toMatchObject({
      access: { status: 'APPROVED', feeToCustomer: true },
      methods: [{ value: 'QRIS-DYNAMIC', label: 'QRIS' }],
    });

    // the buyer pays a gateway QRIS in the sandbox on Friday
    const created = await merchant('POST', '/api/v1/payments', {
      amount: 150_000,
      walletAccountId: 'GATEWAY',
      type: 'QRIS-DYNAMIC',
      redirectUrl: 'https://shop.example/thanks',
      orderId: 'INV-GW-1',
    });
    expect(created.status, created.text).toBe(200);
    const payment = created.body.data as {
      id: string;
      amount: number;
      totalAmount: number;
      uniqueCode: number;
      qrisImage: string;
      metadata: { baseAmount: number };
    };
    const fee = payment.amount - 150_000; // raised so that the merchant is credited exactly what was asked
    // the merchant is credited exactly the 150,000 asked for; the unique code on top is the platform's
    expect(payment.metadata).toEqual({ baseAmount: 150_000, fee, net: 150_000 });
    const png = Buffer.from(
      await (await checkedFetch(payment.qrisImage.replace(/^https?:\/\/[^/]+/, url))).arrayBuffer(),
    );
    const paid = await checkedFetch(`http://127.0.0.1:${sandboxPort}/sandbox/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ qris: (await decodeQrPng(png)).payload }),
    });
    expect(paid.ok).toBe(true);
    await open('POST', `/pay/${payment.id}/check`); // "Saya sudah bayar"
    await until(
      'payment completed',
      async () => (await merchant('GET', `/api/v1/payments/status/${payment.id}`)).body.data.status === 'COMPLETED',
    );
    const hook = await until('payment.completed webhook', async () =>
      receiver!.received.find(r => r.body.includes('payment.completed')),
    );
    expect(JSON.parse(hook!.body).data).toMatchObject({
      id: payment.id,
      walletAccountId: 'GATEWAY',
      amount: payment.amount,
      metadata: { baseAmount: 150_000, fee, net: 150_000 },
    });

    const net = 150_000;
    const balance = async () => (await merchant('GET', '/api/v1/gateway')).body.data.balance as Record<string, number>;
    await until('credited to pending', async () => (await balance()).pending === net);
    expect(await balance()).toEqual({ pending: net, settled: 0, onHold: 0, available: 0 });

    // Saturday: nothing settles on a weekend
    expect((await open('POST', '/api/test-clock', { advanceSeconds: 86_400 })).status).toBe(200);
    await new Promise(r => setTimeout(r, 2000));
    expect(await balance()).toEqual({ pending: net, settled: 0, onHold: 0, available: 0 });

    // 00:00 WIB of the first working day after Friday (a Monday, unless the calendar says otherwise): settled within seconds
    const settlement = settlesAt(friday, shippedHolidayCalendar());
    const wibWeekday = new Date(settlement.getTime() + 7 * 3_600_000).getUTCDay();
    if (settlement.getTime() - friday.getTime() < 4 * day) expect(wibWeekday).toBe(1); // Monday, when it is a working day
    expect(
      (await open('POST', '/api/test-clock', { setTo: new Date(settlement.getTime() + 1000).toISOString() })).status,
    ).toBe(200);
    await until('settled', async () => (await balance()).settled === net, 5000);
    expect(await balance()).toEqual({ pending: 0, settled: net, onHold: 0, available: net });

    // the merchant withdraws in the dashboard; an admin pays it out
    const withdrawal = await merchantSession('POST', '/api/dashboard/gateway/withdrawals', {
      amount: 100_000,
      bankCode: 'BCA',
      accountNumber: '1234567890',
      accountHolderName: 'Joko Wijaya',
    });
    expect(withdrawal.status, withdrawal.text).toBe(201);
    expect(withdrawal.body.data).toMatchObject({ status: 'REQUESTED' });
    await until('on hold', async () => (await balance()).onHold === 100_000);
    expect(await balance()).toEqual({ pending: 0, settled: net, onHold: 100_000, available: net - 100_000 });
    const payout = await adminSession('POST', `/api/admin/gateway/withdrawals/${withdrawal.body.data.id}/paid`, {
      reference: 'BCA-TRX-0001',
      holdingAccountId: wallet.body.accountId,
    });
    expect(payout.status, payout.text).toBe(200);
    await until('paid out', async () => (await balance()).onHold === 0);
    expect(await balance()).toEqual({ pending: 0, settled: net - 100_000, onHold: 0, available: net - 100_000 });

    // finance reconciles the days: balanced, and the fee earned is the payment's
    const period = `from=${friday.toISOString().slice(0, 10)}&to=${new Date(settlement.getTime() + day).toISOString().slice(0, 10)}`;
    const report = await adminSession('GET', `/api/admin/gateway/reconciliation?${period}`);
    expect(report.status, report.text).toBe(200);
    expect(report.body.data.balanced).toBe(true);
    expect(report.body.data.fees.total.earned).toBe(fee);
    const csv = await adminSession('GET', `/api/admin/gateway/reconciliation?${period}&table=fees`, undefined, {
      accept: 'text/csv',
    });
    expect(csv.status).toBe(200);
    expect(csv.type).toMatch(/^text\/csv/);
    expect(csv.text).toContain(String(fee));
  }, 120_000);
});
