import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../src/db/pool.ts';
import { keyHolder } from '../support/http.ts';
import { nextUuid } from '../support/ids.ts';
import { createPayment, decodeQrPng, linkServiceWallet, paymentBody, statusOf } from '../support/payments.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let sandbox: ReturnType<typeof sandboxOf>;
beforeAll(async () => {
  service = await startTestService();
  sandbox = sandboxOf(service);
});
afterAll(async () => service?.close());

type Caller = Awaited<ReturnType<typeof keyHolder>>;

/** The user agents of a browser on a computer and on a phone ("Mobi"), as the payment page's requests carry them. */
const deskBrowser = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const phoneBrowser =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36';

/** A QRIS-DYNAMIC payment into a wallet synchronised hourly, paid in the sandbox; nobody asks for a refresh. */
async function paidPayment(caller: Caller, accountId: string) {
  const created = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
  const png = await service.app.inject({ method: 'GET', url: new URL(created.qrisImage!).pathname });
  await sandbox.pay({ qris: (await decodeQrPng(png.rawPayload)).payload! });
  return created;
}

const pointsOf = async (userId: string) =>
  (await query<{ points: number }>(service.pool, 'ReadPoints', 'select points from users where id = $1', [userId]))
    .rows[0]!.points;
const nextSyncOf = async (accountId: string) =>
  (
    await query<{ next_sync_at: Date }>(
      service.pool,
      'ReadNextSync',
      'select next_sync_at from accounts where id = $1',
      [accountId],
    )
  ).rows[0]!.next_sync_at;

/**
 * A pending QRIS-DYNAMIC bill of 30 minutes, the only account with one in this service once the earlier tests' bills
 * ended: `step` moves the test clock and ticks the checks, noting whether the tick handed a check over; `get` asks as
 * the payment page's browser does, on a phone or on a desk.
 */
async function payer(browser: string) {
  const caller = await keyHolder(service);
  const { accountId } = await linkServiceWallet(caller);
  const payment = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', expiresInMinutes: 30 }));
  // the checks' work list is the payments read model: let it show the payment first (a busy machine lags)
  await service.projections.waitFor(await service.store.headPosition());
  const ticks: string[] = [];
  const step = async (seconds: number) => {
    service.clock.advance(seconds * 1000);
    ticks.push(`${seconds}s:${(await service.paymentChecks.tick()) > 0 ? 'check' : '-'}`);
  };
  const get = (url: string) => service.app.inject({ method: 'GET', url, headers: { 'user-agent': browser } });
  return { accountId, payment, ticks, step, get, status: `/pay/${payment.id}/status.json` };
}

describe('checks of accounts with pending payments', () => {
  it("complete a paid payment without a refresh, cost no points and leave the account's schedule as it was", async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    await service.projections.waitFor(await service.store.headPosition());
    const [points, nextSync] = [await pointsOf(caller.id), await nextSyncOf(accountId)];
    const payment = await paidPayment(caller, accountId);

    expect(await service.paymentChecks.tick()).toBeGreaterThanOrEqual(1);
    await eventually(async () => (await statusOf(caller, payment.id)).status === 'COMPLETED');
    await service.projections.waitFor(await service.store.headPosition());
    expect(await pointsOf(caller.id)).toBe(points);
    expect(await nextSyncOf(accountId)).toEqual(nextSync);
  });

  it('follow the payer: every 15 s after the bill, rarer as nobody shows up, every 6 s while its page asks on a desk, until it ends', async () => {
    const { ticks, step, get, status } = await payer(deskBrowser);
    const pageAsks = async () => expect((await get(status)).statusCode).toBe(200);
    await step(0); // a new bill: at once
    await step(8);
    await step(7); // every 15 s in the window in which payers pay (2 minutes while the account has no history)
    service.clock.advance(6 * 60_000); // nobody showed up for six minutes: checked every minute
    await step(0);
    await step(20);
    await pageAsks(); // the payer opens the page on a desk: due at once, then every 6 s while it keeps asking
    await step(0);
    await step(3);
    await pageAsks();
    await step(3);
    await step(3);
    await pageAsks();
    await step(3);
    service.clock.advance(20_000); // the page closed 20 s ago: the quiet counts from its last ask
    await step(0);
    service.clock.advance(30 * 60_000); // the payment expires
    await service.paymentExpiry.tick();
    await step(60);
    expect(ticks).toEqual([
      '0s:check',
      '8s:-',
      '7s:check',
      '0s:check',
      '20s:-',
      '0s:check',
      '3s:-',
      '3s:check',
      '3s:-',
      '3s:check',
      '0s:check',
      '60s:-',
    ]);
  });

  it('take a page closed as its payer gone, not paying in the wallet app: no 4 s checks, the window as for a bill, as before once it is back', async () => {
    const { accountId, payment, ticks, step, get, status } = await payer(phoneBrowser);
    const signals = async () =>
      (
        await query<{ page_closed_at: Date | null; page_hidden_at: Date | null }>(
          service.pool,
          'ReadClosedSignal',
          'select page_closed_at, page_hidden_at from payment_check_signals where account_id = $1',
          [accountId],
        )
      ).rows[0];
    await step(0); // a new bill: at once
    // a value the page never sends is refused, and records nothing of the payer
    const refused = await get(`${status}?visibility=shut`);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ status: 'error', code: 'VALIDATION_ERROR' });
    expect(await signals()).toBeUndefined();
    service.clock.advance(5000);
    // the payer saves the QR and closes the page: it goes out of sight, then says it is closed
    expect((await get(`/pay/${payment.id}/qris.png?download=1`)).statusCode).toBe(200);
    expect((await get(`${status}?visibility=hidden`)).statusCode).toBe(200);
    const closed = await get(`${status}?visibility=closed`);
    expect(closed.statusCode).toBe(200);
    expect(closed.json()).toMatchObject({ status: 'success', data: { status: 'PENDING' } });
    expect((await signals())?.page_closed_at).toEqual(service.clock.now());
    await step(0); // only out of sight, this would be a check: every 4 s while its payer is likely paying
    await step(4);
    await step(6); // the window's 15 s from the bill
    await step(3);
    expect((await get(status)).statusCode).toBe(200); // back on the page after the close: as before, due at once
    await step(0);
    service.clock.advance(30 * 60_000); // the payment expires: the next test's account is the only one checked
    await service.paymentExpiry.tick();
    await step(60);
    expect(ticks).toEqual(['0s:check', '0s:-', '4s:-', '6s:check', '3s:-', '0s:check', '60s:-']);
  });

  it('follow a payer on a phone: rare while the page is read, every 4 s once it leaves with the QR saved, at once when it is back', async () => {
    const { accountId, payment, ticks, step, get, status } = await payer(phoneBrowser);
    await step(0); // a new bill: at once
    expect((await get(status)).statusCode).toBe(200); // read on a phone: no denser than every 60 s
    await step(8);
    expect((await get(status)).statusCode).toBe(200);
    await step(8); // where a bill with no page is checked every 15 s
    expect((await get(`/pay/${payment.id}/qris.png?download=1`)).statusCode).toBe(200); // "Unduh QRIS"
    // a marker the page never sends is refused, and says nothing of the payer
    const refused = await get(`${status}?visibility=gone`);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ status: 'error', code: 'VALIDATION_ERROR' });
    await step(0);
    expect((await get(`${status}?visibility=hidden`)).statusCode).toBe(200); // off to the wallet app
    await step(0);
    await step(2);
    await step(2); // every 4 s while the payer is likely paying
    await step(3);
    expect((await get(status)).statusCode).toBe(200); // back on the page 3 s after the last check: due at once
    await step(0);
    await step(1);
    expect(ticks).toEqual([
      '0s:check',
      '8s:-',
      '8s:-',
      '0s:-',
      '0s:check',
      '2s:-',
      '2s:check',
      '3s:-',
      '0s:check',
      '1s:-',
    ]);
  });

  it('"Saya sudah bayar" checks the account at once, at most once in 10 s per payment; unknown payments are not found', async () => {
    const caller = await keyHolder(service);
    const { accountId } = await linkServiceWallet(caller);
    const payment = await paidPayment(caller, accountId);
    const ask = (id = payment.id) => service.app.inject({ method: 'POST', url: `/pay/${id}/check` });

    const first = await ask();
    expect(first.statusCode).toBe(202);
    expect(first.json()).toMatchObject({ status: 'success', checking: true, data: { status: 'PENDING' } });
    const again = await ask();
    expect(again.statusCode).toBe(200);
    expect(again.headers['retry-after']).toBeDefined();
    expect((await ask(nextUuid())).statusCode).toBe(404);
    expect((await ask('not-a-uuid')).statusCode).toBe(404);

    // no tick, no refresh: the check the payer asked for completes it
    await eventually(async () => (await statusOf(caller, payment.id)).status === 'COMPLETED');
    const done = await ask();
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ checking: false, data: { status: 'COMPLETED' } });

    const page = await service.app.inject({
      method: 'GET',
      url: `/pay/${(await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }))).id}`,
    });
    expect(page.body).toContain('data-check="/pay/');
    expect(page.body).toContain('Saya sudah bayar');
  });
});

describe('a service wallet (linked by its phone number) whose provider session expired', () => {
  it('is renewed by a payment when the provider lets it log in again; else it turns inactive, and a refresh logs it in again', async () => {
    const caller = await keyHolder(service);
    const renewable = await linkServiceWallet(caller, 'WALLET-E');
    await sandbox.faults({ providerCode: 'WALLET-E', expireSessions: true });
    expect(
      (await caller.call('POST', '/api/v1/payments', paymentBody(renewable.accountId, { type: 'QRIS-DYNAMIC' })))
        .statusCode,
    ).toBe(200);
    expect((await caller.call('GET', `/api/v1/accounts/${renewable.accountId}`)).json().data.isActive).toBe(true);

    const { accountId } = await linkServiceWallet(caller, 'WALLET-D');
    await sandbox.faults({ providerCode: 'WALLET-D', expireSessions: true, refuseLogin: true });
    const refused = await caller.call('POST', '/api/v1/payments', paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'ACCOUNT_INACTIVE' });
    expect((await caller.call('GET', `/api/v1/accounts/${accountId}`)).json().data.isActive).toBe(false);
    const stillRefused = await caller.call('GET', `/api/v1/accounts/${accountId}/refresh`);
    expect(stillRefused.statusCode).toBe(400);
    expect(stillRefused.json()).toMatchObject({ code: 'PROVIDER_LOGIN_FAILED' });

    await sandbox.clearFaults();
    const relogged = await caller.call('GET', `/api/v1/accounts/${accountId}/refresh`);
    expect(relogged.statusCode, relogged.body).toBe(200);
    expect(relogged.json().data.isActive).toBe(true);
    expect(
      (await caller.call('POST', '/api/v1/payments', paymentBody(accountId, { type: 'QRIS-DYNAMIC' }))).statusCode,
    ).toBe(200);
  });
});
