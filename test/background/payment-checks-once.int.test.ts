import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../src/db/pool.ts';
import { keyHolder } from '../support/http.ts';
import { createPayment, linkServiceWallet, paymentBody } from '../support/payments.ts';
import { eventually } from '../support/sandbox.ts';
import { startTwoInstances, type TestService } from '../support/service.ts';

/**
 * Two instances of the service on one database, both ticking their payment checks: each account with pending
 * payments is checked at the provider once per interval, not once per instance.
 */

let a: TestService;
let b: TestService;
beforeAll(async () => {
  [a, b] = await startTwoInstances();
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

/** The checks that reached the provider: each is one sync recorded as a payment check. */
const checksOf = async (accountId: string) =>
  (await a.store.readStream(`account-${accountId}`)).filter(
    e => e.type === 'AccountSynced' && e.data.trigger === 'payment-check',
  ).length;
const queuedChecks = async () =>
  (
    await query<{ n: number }>(
      a.pool,
      'CountQueuedChecks',
      `select count(*)::int as n from graphile_worker.jobs where task_identifier = 'check-account'`,
    )
  ).rows[0]!.n;

describe('payment checks with two instances on one database', () => {
  it('check an account with pending payments once per interval, whichever instance ticks first', async () => {
    const caller = await keyHolder(a);
    const { accountId } = await linkServiceWallet(caller);
    await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', expiresInMinutes: 30 }));
    await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', expiresInMinutes: 30 }));
    await a.projections.waitFor(await a.store.headPosition());
    expect(await checksOf(accountId)).toBe(0);

    const { fastSeconds } = a.config.paymentChecks;
    const handed: number[] = [];
    for (let interval = 1; interval <= 3; interval++) {
      // one instance ticks and its check runs; the other ticks after it, within the same interval
      handed.push(await a.paymentChecks.tick());
      await eventually(async () => (await checksOf(accountId)) === interval);
      handed.push(await b.paymentChecks.tick());
      // and both at the same moment, a little later in the interval
      a.clock.advance(1000);
      handed.push(...(await Promise.all([a.paymentChecks.tick(), b.paymentChecks.tick()])));
      await eventually(async () => (await queuedChecks()) === 0);
      expect(await checksOf(accountId)).toBe(interval);
      a.clock.advance(fastSeconds * 1000 - 1000);
    }
    expect(handed).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]);
  });

  it('ticks at the same moment on both instances hand a due check over once', async () => {
    const caller = await keyHolder(a);
    const { accountId } = await linkServiceWallet(caller);
    await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', expiresInMinutes: 30 }));
    await a.projections.waitFor(await a.store.headPosition());
    a.clock.advance(a.config.paymentChecks.fastSeconds * 1000);
    const handed = await Promise.all([
      a.paymentChecks.tick(),
      b.paymentChecks.tick(),
      a.paymentChecks.tick(),
      b.paymentChecks.tick(),
    ]);
    // the other test's account is due again too: two accounts, each handed over by one tick
    expect(handed.reduce((sum, n) => sum + n, 0)).toBe(2);
    await eventually(async () => (await checksOf(accountId)) === 1);
    await eventually(async () => (await queuedChecks()) === 0);
    expect(await checksOf(accountId)).toBe(1);
  });
  it("draw closer when a payer's page asks at either instance, and still hand each check over once", async () => {
    const caller = await keyHolder(a);
    const { accountId } = await linkServiceWallet(caller);
    const { id } = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC', expiresInMinutes: 30 }));
    await a.projections.waitFor(await a.store.headPosition());
    const bothTick = async () => {
      await Promise.all([
        a.paymentChecks.tick(),
        b.paymentChecks.tick(),
        a.paymentChecks.tick(),
        b.paymentChecks.tick(),
      ]);
      await eventually(async () => (await queuedChecks()) === 0);
    };
    const pageAsksAt = async (instance: TestService) =>
      expect((await instance.app.inject({ method: 'GET', url: `/pay/${id}/status.json` })).statusCode).toBe(200);

    await bothTick();
    await eventually(async () => (await checksOf(accountId)) === 1);
    a.clock.advance(6000);
    await bothTick(); // a fresh bill with nobody at its page: every 15 s
    expect(await checksOf(accountId)).toBe(1);
    await pageAsksAt(b); // the page's ask reaches the second instance: the first one's tick sees it too
    await a.paymentChecks.tick();
    await eventually(async () => (await checksOf(accountId)) === 2);
    await bothTick();
    a.clock.advance(6000);
    await pageAsksAt(a);
    await pageAsksAt(b);
    await bothTick();
    await eventually(async () => (await checksOf(accountId)) === 3);
    a.clock.advance(3000);
    await pageAsksAt(b);
    await bothTick(); // the page is in sight on a desk, yet 3 s is under its 6 s
    expect(await checksOf(accountId)).toBe(3);
    a.clock.advance(3000);
    await bothTick();
    await eventually(async () => (await checksOf(accountId)) === 4);
    expect(await checksOf(accountId)).toBe(4);
  });
});
