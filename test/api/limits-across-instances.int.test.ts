import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyHolder, registerUser } from '../support/http.ts';
import { createPayment, linkServiceWallet, paymentBody } from '../support/payments.ts';
import { startTwoInstances, type TestService } from '../support/service.ts';

/**
 * Two instances of the service on one database, as behind a load balancer: the attempt limits are counted in
 * PostgreSQL, so N attempts are allowed across both together, not N on each.
 */
const limits = { LOGIN_LIMIT_PER_IP_EMAIL: '4', LOGIN_LIMIT_PER_IP: '6', REGISTER_LIMIT_PER_IP: '2' };

let a: TestService;
let b: TestService;
beforeAll(async () => {
  [a, b] = await startTwoInstances(limits);
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

const login = (on: TestService, remoteAddress: string, email: string, password = 'tebak-tebakan') =>
  on.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password }, remoteAddress });
/** Attempts alternate between the two instances, as a round-robin balancer hands them out. */
const either = (i: number) => (i % 2 === 0 ? a : b);

describe('attempt limits across two instances on one database', () => {
  it('guessing one account from one address: the limit holds over both instances together', async () => {
    const user = await registerUser(a);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await login(either(i), '203.0.113.21', user.email)).statusCode);
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429, 429, 429]);
    const refused = await login(b, '203.0.113.21', user.email, user.password);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json()).toEqual({ ok: false, message: 'Terlalu banyak percobaan, coba lagi nanti' });
  });

  it('spraying from one address: the per-address limit holds over both instances together', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++)
      statuses.push((await login(either(i), '203.0.113.22', `spray${i}@example.com`)).statusCode);
    expect(statuses).toEqual([...Array<number>(6).fill(401), ...Array<number>(4).fill(429)]);
    // another address is counted apart
    expect((await login(b, '203.0.113.23', 'spray0@example.com')).statusCode).toBe(401);
  });

  it('attempts at once on both instances are counted one by one', async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => login(either(i), '203.0.113.24', 'same@example.com')),
    );
    const statuses = answers.map(r => r.statusCode);
    expect(statuses.filter(s => s === 401)).toHaveLength(4);
    expect(statuses.filter(s => s === 429)).toHaveLength(8);
  });

  it("one account's wrong passwords from many addresses: its slow-down holds over both instances together", async () => {
    const user = await registerUser(a);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++)
      statuses.push((await login(either(i), `198.51.100.${40 + i}`, user.email, `salah-${i}`)).statusCode);
    const { after } = a.config.authLimits.accountSlowDown;
    expect(statuses.slice(0, after + 1)).toEqual([...Array<number>(after).fill(401), 429]);
    expect(statuses.filter(s => s === 429).length).toBeGreaterThanOrEqual(12 - after - 2);
    // the right password waits too, on either instance
    for (const on of [a, b]) expect((await login(on, '198.51.100.99', user.email, user.password)).statusCode).toBe(429);
  });

  it('sign-ups from one address: the limit holds over both instances together', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await either(i).app.inject({
        method: 'POST',
        url: '/api/auth/register',
        remoteAddress: '203.0.113.25',
        payload: { name: 'Spam', email: `spam${i}@example.com`, password: 'rahasia123' },
      });
      statuses.push(response.statusCode);
    }
    expect(statuses.filter(s => s === 429)).toHaveLength(2);
    expect(statuses.slice(2)).toEqual([429, 429]);
  });

  it('"Saya sudah bayar": one check per payment in 10 s, whichever instance is asked', async () => {
    const caller = await keyHolder(a);
    const { accountId } = await linkServiceWallet(caller);
    const payment = await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }));
    await a.projections.waitFor(await a.store.headPosition());
    const ask = (on: TestService) => on.app.inject({ method: 'POST', url: `/pay/${payment.id}/check` });

    const first = await ask(a);
    expect(first.statusCode).toBe(202);
    const onTheOther = await ask(b);
    expect(onTheOther.statusCode).toBe(200);
    expect(onTheOther.json()).toMatchObject({ status: 'success', checking: true, data: { status: 'PENDING' } });
    expect(Number(onTheOther.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(onTheOther.headers['retry-after'])).toBeLessThanOrEqual(a.config.paymentChecks.askEverySeconds);
    expect((await ask(a)).statusCode).toBe(200);
  });
});
