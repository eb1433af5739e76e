import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { sandboxNotificationSecret, signNotification } from '../../src/providers/notification-signature.ts';
import { freePort } from '../../src/db/free-port.ts';
import { query } from '../../src/db/pool.ts';
import { keyHolder } from '../support/http.ts';
import { createPayment, decodeQrPng, linkServiceWallet, paymentBody, statusOf } from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let sandbox: ReturnType<typeof sandboxOf>;
let checks: ReturnType<typeof vi.spyOn>;
beforeAll(async () => {
  // the sandbox pushes for WALLET-D (the wallet these payments go to), in process to this service
  service = await startTestService({ SANDBOX_PUSH: 'WALLET-D' });
  sandbox = sandboxOf(service);
});
afterAll(async () => service?.close());
beforeEach(async () => {
  checks?.mockRestore();
  checks = vi.spyOn(service.paymentChecks, 'checkNow');
  await sandbox.clearFaults();
});

type Caller = Awaited<ReturnType<typeof keyHolder>>;

let sequence = 0;
const freshId = () => `ntf_test_${process.pid}_${++sequence}`;

/** A notification as a provider sends it: signed with the provider's secret (or another) at the service's time. */
function notify(
  providerCode: string,
  body: Record<string, unknown>,
  options: { id?: string; secret?: string; at?: Date } = {},
) {
  const raw = JSON.stringify(body);
  const secret = options.secret ?? sandboxNotificationSecret(service.config.jwtSecret, providerCode);
  const headers = signNotification(secret, options.id ?? freshId(), options.at ?? service.clock.now(), raw);
  return service.app.inject({
    method: 'POST',
    url: `/api/providers/${providerCode}/notifications`,
    headers: { ...headers, 'content-type': 'application/json' },
    payload: raw,
  });
}

/** A QRIS-DYNAMIC payment into a linked WALLET-D account, and the QR payload a payer scans. */
async function qrisPayment(caller: Caller, accountId: string) {
  const created = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
  const png = await service.app.inject({ method: 'GET', url: new URL(created.qrisImage!).pathname });
  await service.projections.waitFor(await service.store.headPosition());
  return { payment: created, qris: (await decodeQrPng(png.rawPayload)).payload! };
}

describe('provider notifications', () => {
  it('a signed notification checks the account at once; the same one again checks nothing more', async () => {
    const caller = await keyHolder(service);
    const { accountId, phoneNumber } = await linkServiceWallet(caller);
    await service.projections.waitFor(await service.store.headPosition());
    const id = freshId();

    const first = await notify('WALLET-D', { accountRef: phoneNumber, transactionId: 'TX-1' }, { id });
    expect(first.statusCode).toBe(202);
    expect(first.json()).toEqual({ status: 'success', data: { notificationId: id, checking: true } });
    // the provider's retry: the same id and body, signed again a moment later
    service.clock.advance(2000);
    const again = await notify('WALLET-D', { accountRef: phoneNumber, transactionId: 'TX-1' }, { id });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ status: 'success', data: { notificationId: id, checking: false } });
    expect(checks.mock.calls).toEqual([[accountId]]);
  });

  it('forged, stale, replayed, or for an unknown provider or account: refused with 4xx, nothing checked', async () => {
    const caller = await keyHolder(service);
    const { phoneNumber } = await linkServiceWallet(caller);
    await service.projections.waitFor(await service.store.headPosition());
    const body = { accountRef: phoneNumber };
    const codeOf = (r: Awaited<ReturnType<typeof notify>>) => [r.statusCode, r.json().code];

    const forged = await notify('WALLET-D', body, { secret: sandboxNotificationSecret('another secret', 'WALLET-D') });
    expect(codeOf(forged)).toEqual([401, 'NOTIFICATION_SIGNATURE_INVALID']);
    // another provider's secret is not this one's
    const crossed = await notify('WALLET-D', body, {
      secret: sandboxNotificationSecret(service.config.jwtSecret, 'WALLET-C'),
    });
    expect(codeOf(crossed)).toEqual([401, 'NOTIFICATION_SIGNATURE_INVALID']);
    const unsigned = await service.app.inject({
      method: 'POST',
      url: '/api/providers/WALLET-D/notifications',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    expect(codeOf(unsigned)).toEqual([401, 'NOTIFICATION_SIGNATURE_INVALID']);

    const stale = await notify('WALLET-D', body, { at: new Date(service.clock.now().getTime() - 301_000) });
    expect(codeOf(stale)).toEqual([400, 'NOTIFICATION_STALE']);
    const ahead = await notify('WALLET-D', body, { at: new Date(service.clock.now().getTime() + 301_000) });
    expect(codeOf(ahead)).toEqual([400, 'NOTIFICATION_STALE']);

    expect(codeOf(await notify('BANK-BCA', body))).toEqual([404, 'NOTIFICATION_PROVIDER_UNKNOWN']);
    expect(codeOf(await notify('NOPE', body))).toEqual([404, 'NOTIFICATION_PROVIDER_UNKNOWN']);
    expect(codeOf(await notify('WALLET-D', { accountRef: '089999000111' }))).toEqual([
      404,
      'NOTIFICATION_ACCOUNT_UNKNOWN',
    ]);
    expect(codeOf(await notify('WALLET-D', { accountRef: 42 }))).toEqual([400, 'VALIDATION_ERROR']);
    expect(checks).not.toHaveBeenCalled();

    // an id heard once, sent again with another body: a replay, refused
    const id = freshId();
    expect((await notify('WALLET-D', body, { id })).statusCode).toBe(202);
    checks.mockClear();
    const replayed = await notify('WALLET-D', { ...body, transactionId: 'TX-OTHER' }, { id });
    expect(codeOf(replayed)).toEqual([409, 'NOTIFICATION_REPLAYED']);
    expect(checks).not.toHaveBeenCalled();
  });

  it('a sandbox payment with push on completes without the cadence: no tick, no clock advance', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const { payment, qris } = await qrisPayment(caller, accountId);
    await sandbox.pay({ qris });
    await eventually(async () => (await statusOf(caller, payment.id)).status === 'COMPLETED');
    expect(checks.mock.calls).toEqual([[accountId]]);
    expect((await sandbox.notifications()).at(-1)).toMatchObject({ fault: null, answers: [202] });
  });

  it("the sandbox's faults: a duplicated notification checks once, a forged one is refused, a late one still arrives", async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);

    await sandbox.faults({ providerCode: 'WALLET-D', notificationDuplicate: 1 });
    const duplicated = await qrisPayment(caller, accountId);
    await sandbox.pay({ qris: duplicated.qris });
    await eventually(async () => (await sandbox.notifications()).at(-1)!.answers.length === 2);
    expect((await sandbox.notifications()).at(-1)).toMatchObject({ fault: 'duplicated', answers: [202, 200] });
    expect(checks.mock.calls).toEqual([[accountId]]);
    await eventually(async () => (await statusOf(caller, duplicated.payment.id)).status === 'COMPLETED');

    checks.mockClear();
    await sandbox.faults({ providerCode: 'WALLET-D', notificationForge: 1, notificationDelayMs: 200 });
    const forged = await qrisPayment(caller, accountId);
    await sandbox.pay({ qris: forged.qris });
    await eventually(async () => (await sandbox.notifications()).at(-1)!.answers.length === 1);
    expect((await sandbox.notifications()).at(-1)).toMatchObject({ fault: 'forged', answers: [401] });
    expect(checks).not.toHaveBeenCalled();

    // still late (200 ms), no longer forged: it arrives and checks
    const late = await qrisPayment(caller, accountId);
    await sandbox.pay({ qris: late.qris });
    await eventually(async () => (await sandbox.notifications()).at(-1)!.answers.length === 1);
    expect((await sandbox.notifications()).at(-1)).toMatchObject({ fault: 'late', answers: [202] });
    expect(checks.mock.calls).toEqual([[accountId]]);
    await eventually(async () => (await statusOf(caller, late.payment.id)).status === 'COMPLETED');
  });

  it('a lost notification: nothing is checked until the ordinary checks come, and they complete the payment', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const { payment, qris } = await qrisPayment(caller, accountId);
    await sandbox.faults({ providerCode: 'WALLET-D', notificationLose: 1 });
    await sandbox.pay({ qris });
    expect((await sandbox.notifications()).at(-1)).toMatchObject({ fault: 'lost', answers: [] });
    await new Promise(resolve => setTimeout(resolve, 300));
    expect(checks).not.toHaveBeenCalled();
    expect((await statusOf(caller, payment.id)).status).toBe('PENDING');

    // the safety net: the cadence's next round
    service.clock.advance(60_000);
    expect(await service.paymentChecks.tick()).toBeGreaterThanOrEqual(1);
    await eventually(async () => (await statusOf(caller, payment.id)).status === 'COMPLETED');
  });
});

describe('the payment checks of an account whose provider pushes', () => {
  it('are no denser for a payer leaving the page with the QR than for a bill with no page: the notification is the fast path', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const { payment } = await qrisPayment(caller, accountId);
    const handedAt = async () =>
      (
        await query<{ handed_at: Date }>(
          service.pool,
          'ReadHandover',
          'select handed_at from payment_check_handovers where account_id = $1',
          [accountId],
        )
      ).rows[0]?.handed_at.getTime();
    await service.paymentChecks.tick();
    const first = await handedAt();
    expect(first).toBeDefined(); // a new bill: at once
    const get = (url: string) => service.app.inject({ method: 'GET', url });
    expect((await get(`/pay/${payment.id}/qris.png?download=1`)).statusCode).toBe(200);
    expect((await get(`/pay/${payment.id}/status.json?visibility=hidden`)).statusCode).toBe(200);
    service.clock.advance(4000); // where the provider does not push: due now, every 4 s
    await service.paymentChecks.tick();
    expect(await handedAt()).toBe(first);
    service.clock.advance(11_000); // the window's 15 s
    await service.paymentChecks.tick();
    expect(await handedAt()).toBe(first! + 15_000);
  });
});

describe('the notification ids heard', () => {
  it('are kept a day, past the timestamp window, then pruned; an old delivery is stale by then', async () => {
    const caller = await keyHolder(service);
    const { phoneNumber } = await linkServiceWallet(caller);
    await service.projections.waitFor(await service.store.headPosition());
    const id = freshId();
    const sentAt = service.clock.now();
    expect((await notify('WALLET-D', { accountRef: phoneNumber }, { id, at: sentAt })).statusCode).toBe(202);
    const kept = async () =>
      (
        await query<{ n: number }>(
          service.pool,
          'CountNotificationId',
          'select count(*)::int as n from provider_notifications where notification_id = $1',
          [id],
        )
      ).rows[0]!.n;
    expect(await kept()).toBe(1);

    service.clock.advance(25 * 3600_000);
    // the same delivery again, a day later: its timestamp is out of the window
    const old = await notify('WALLET-D', { accountRef: phoneNumber }, { id, at: sentAt });
    expect([old.statusCode, old.json().code]).toEqual([400, 'NOTIFICATION_STALE']);
    expect((await notify('WALLET-D', { accountRef: phoneNumber })).statusCode).toBe(202);
    expect(await kept()).toBe(0);
  });
});

describe('a sandbox told the service URL (SANDBOX_PUSH_URL)', () => {
  it('pushes over HTTP to the listening service, which checks the account at once', async () => {
    const port = await freePort();
    const listening = await startTestService({
      PORT: String(port),
      SANDBOX_PUSH: 'WALLET-D',
      SANDBOX_PUSH_URL: `http://127.0.0.1:${port}`,
    });
    try {
      await listening.listen();
      const caller = await keyHolder(listening);
      const { accountId } = await linkServiceWallet(caller);
      const spied = vi.spyOn(listening.paymentChecks, 'checkNow');
      const created = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
      const png = await listening.app.inject({ method: 'GET', url: new URL(created.qrisImage!).pathname });
      await listening.projections.waitFor(await listening.store.headPosition());
      await sandboxOf(listening).pay({ qris: (await decodeQrPng(png.rawPayload)).payload! });
      await eventually(async () => (await statusOf(caller, created.id)).status === 'COMPLETED');
      expect(spied.mock.calls).toEqual([[accountId]]);
      expect((await sandboxOf(listening).notifications()).at(-1)).toMatchObject({ answers: [202] });
    } finally {
      await listening.close();
    }
  });
});
