import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, keyHolder, registerUser } from '../support/http.ts';
import { createPayment, linkServiceWallet, paymentBody } from '../support/payments.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { nextUuid } from '../support/ids.ts';
import { hostileText, limitsOutOfTheWay, percentEncoded } from '../support/hostile-text.ts';

let service: TestService;
let merchant: Awaited<ReturnType<typeof keyHolder>>;
let walletId: string;
let bankId: string;
let paymentId: string;

beforeAll(async () => {
  // the property registers and signs in hundreds of times from one address: the limits are not what it tests
  service = await startTestService(limitsOutOfTheWay);
  merchant = await keyHolder(service);
  walletId = (await linkServiceWallet(merchant)).accountId;
  const bank = await merchant.call('POST', '/api/v1/accounts', {
    type: 'bank',
    providerCode: 'BANK-BCA',
    accountName: 'Toko',
    intervalMinutes: 1440,
    accountNumber: '1234567890',
    username: 'toko',
    password: 'rahasia',
  });
  bankId = bank.json().accountId;
  paymentId = (await createPayment(merchant, paymentBody(walletId, { type: 'QRIS-DYNAMIC' }))).id;
});
afterAll(async () => service?.close());

const withKey = (options: InjectOptions): InjectOptions => ({
  ...options,
  headers: { ...options.headers, 'x-api-key': merchant.key },
});
const json = (method: InjectOptions['method'], url: string, body: unknown): InjectOptions => ({
  method,
  url,
  // JSON.stringify writes a lone surrogate as its \ud800 escape, which the server's parser turns back into one
  payload: JSON.stringify(body),
  headers: { 'content-type': 'application/json' },
});

describe('text PostgreSQL cannot store, at the routes the issue names', () => {
  it('register with a NUL in the name: 400 naming the field, nothing registered, later users still sign in', async () => {
    const email = `eve-${nextUuid()}@example.com`;
    const refused = await service.app.inject(
      json('POST', '/api/auth/register', { name: 'Eve\u0000', email, password: 'rahasia123' }),
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ ok: false, message: 'Field name berisi karakter yang tidak valid' });
    const login = await service.app.inject(json('POST', '/api/auth/login', { email, password: 'rahasia123' }));
    expect(login.statusCode).toBe(401);

    const later = await registerUser(service);
    const signedIn = await service.app.inject(
      json('POST', '/api/auth/login', { email: later.email, password: later.password }),
    );
    expect(signedIn.statusCode).toBe(200);
  });

  it('login with a NUL or a lone surrogate in the email: 400, not 500', async () => {
    for (const email of ['a\u0000@example.com', 'a\ud800@example.com']) {
      const refused = await service.app.inject(json('POST', '/api/auth/login', { email, password: 'rahasia123' }));
      expect(refused.statusCode).toBe(400);
      expect(refused.json().message).toBe('Field email berisi karakter yang tidak valid');
    }
  });

  it.each([
    ['orderId', { orderId: 'INV\u0000' }],
    ['orderId', { orderId: 'A\ud800B' }],
    ['redirectUrl', { redirectUrl: 'https://shop.example/\u0000' }],
  ])('POST /api/v1/payments with bad text in %s: 400 naming it, no payment', async (field, override) => {
    const before = await service.pool.query('select count(*)::int as n from payments');
    const refused = await service.app.inject(
      withKey(json('POST', '/api/v1/payments', paymentBody(walletId, override))),
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors).toEqual([expect.objectContaining({ path: `body.${field}` })]);
    await service.projections.waitFor(await service.store.headPosition());
    const after = await service.pool.query('select count(*)::int as n from payments');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('PATCH an account name with a NUL: 400 naming it, the name unchanged', async () => {
    const refused = await service.app.inject(
      withKey(json('PATCH', `/api/v1/accounts/${bankId}`, { accountName: 'Toko\u0000' })),
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors).toEqual([expect.objectContaining({ path: 'body.accountName' })]);
    expect((await merchant.call('GET', `/api/v1/accounts/${bankId}`)).json().data.accountName).toBe('Toko');
  });

  it('an API key named with a lone surrogate, a webhook URL with a NUL: 400 naming the field', async () => {
    const user = await registerUser(service);
    const key = await service.app.inject({
      ...json('POST', '/api/dashboard/api-keys', { name: 'key\ud800' }),
      cookies: { svc_token: user.cookie },
    });
    expect(key.statusCode).toBe(400);
    expect(key.json().errors).toEqual([expect.objectContaining({ path: 'body.name' })]);
    const hook = await service.app.inject(
      withKey(json('POST', '/api/v1/webhooks', { url: 'https://hooks.example/\u0000in' })),
    );
    expect(hook.statusCode).toBe(400);
    expect(hook.json().errors).toEqual([expect.objectContaining({ path: 'body.url' })]);
  });

  it.each(['search', 'providerCode'])('GET /api/v1/accounts?%s=%00: 400 naming the parameter', async parameter => {
    const refused = await merchant.call('GET', `/api/v1/accounts?${parameter}=%00`);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors).toEqual([expect.objectContaining({ path: `querystring.${parameter}` })]);
  });
});

let seq = 0;
const fresh = () => `p${++seq}-${process.pid}`;

/** Every route that takes text, each with the hostile text in one of its fields (body, query or path). */
const requests: Record<string, (s: string) => InjectOptions> = {
  'register name': s =>
    json('POST', '/api/auth/register', { name: s, email: `${fresh()}@example.com`, password: 'rahasia123' }),
  'register email': s => json('POST', '/api/auth/register', { name: 'Nama', email: s, password: 'rahasia123' }),
  'register password': s =>
    json('POST', '/api/auth/register', { name: 'Nama', email: `${fresh()}@example.com`, password: s }),
  'login email': s => json('POST', '/api/auth/login', { email: s, password: 'rahasia123' }),
  'login password': s => json('POST', '/api/auth/login', { email: merchant.email, password: s }),
  'api key name': s => ({
    ...json('POST', '/api/dashboard/api-keys', { name: s }),
    cookies: { svc_token: merchant.cookie },
  }),
  'dashboard webhook url': s => ({
    ...json('POST', '/api/dashboard/webhooks', { url: s }),
    cookies: { svc_token: merchant.cookie },
  }),
  'key webhook url': s => withKey(json('POST', '/api/v1/webhooks', { url: `https://hooks.example/${s}` })),
  'accounts search': s => withKey({ method: 'GET', url: `/api/v1/accounts?search=${percentEncoded(s)}` }),
  'accounts providerCode': s =>
    withKey({ method: 'GET', url: `/api/v1/accounts?providerCode=${percentEncoded(s)}&type=${percentEncoded(s)}` }),
  'account id in the path': s => withKey({ method: 'GET', url: `/api/v1/accounts/${percentEncoded(s)}` }),
  'bank account name and credentials': s =>
    withKey(
      json('POST', '/api/v1/accounts', {
        type: 'bank',
        providerCode: 'BANK-BCA',
        accountName: s,
        intervalMinutes: 1440,
        accountNumber: '1234567890',
        username: s,
        password: s,
      }),
    ),
  'wallet account name': s =>
    withKey(
      json('POST', '/api/v1/accounts', {
        type: 'ewallet',
        providerCode: 'WALLET-D',
        accountName: s,
        intervalMinutes: 1440,
        phoneNumber: '081234567890',
      }),
    ),
  'account providerCode': s =>
    withKey(
      json('POST', '/api/v1/accounts', {
        type: 'bank',
        providerCode: s,
        accountName: 'x',
        intervalMinutes: 1440,
        accountNumber: '1234567890',
        username: 'u',
        password: 'p',
      }),
    ),
  'otp action': s => withKey(json('POST', '/api/v1/accounts', { action: s, phoneNumber: '081234567890' })),
  'otp send fields': s =>
    withKey(
      json('POST', '/api/v1/accounts', {
        action: 'wallet-b-send-otp',
        phoneNumber: '081234567890',
        providerCode: s,
        accountName: s,
        intervalMinutes: 60,
      }),
    ),
  'otp verify code': s =>
    withKey(json('POST', '/api/v1/accounts', { action: 'wallet-c-verify-otp', sessionId: nextUuid(), otp: s })),
  'account patch': s =>
    withKey(json('PATCH', `/api/v1/accounts/${bankId}`, { accountName: s, username: s, password: s })),
  'mutations filters': s =>
    withKey({
      method: 'GET',
      url: `/api/v1/mutations?accountId=${percentEncoded(s)}&from=${percentEncoded(s)}&minAmount=${percentEncoded(s)}`,
    }),
  'mutations type': s =>
    withKey({
      method: 'GET',
      url: `/api/v1/mutations?accountType=${percentEncoded(s)}&type=${percentEncoded(s)}&to=${percentEncoded(s)}`,
    }),
  'payment orderId': s =>
    withKey(json('POST', '/api/v1/payments', paymentBody(walletId, { type: 'QRIS-DYNAMIC', orderId: s }))),
  'payment redirectUrl': s =>
    withKey(
      json('POST', '/api/v1/payments', paymentBody(walletId, { redirectUrl: `https://shop.example/${s}`, type: s })),
    ),
  'payment walletAccountId': s => withKey(json('POST', '/api/v1/payments', paymentBody(s))),
  'payment status id': s => withKey({ method: 'GET', url: `/api/v1/payments/status/${percentEncoded(s)}` }),
  'payment page id': s => ({ method: 'GET', url: `/pay/${percentEncoded(s)}` }),
  'payment page method': s => json('POST', `/pay/${paymentId}/method`, { type: s }),
};

describe('every text field of every route', () => {
  it('answers 2xx or 4xx to any text, never 5xx; afterwards /ready is 200 with the read models caught up', async () => {
    const answers = new Map<string, Set<number>>();
    await fc.assert(
      fc.asyncProperty(hostileText, async s => {
        for (const [name, request] of Object.entries(requests)) {
          const response = await service.app.inject(request(s));
          if (!answers.has(name)) answers.set(name, new Set());
          answers.get(name)!.add(response.statusCode);
          if (response.statusCode >= 500)
            throw new Error(`${name} answered ${response.statusCode} to ${JSON.stringify(s)}: ${response.body}`);
        }
      }),
      // one plain text among the hostile ones: the routes are reached, whatever the run draws
      { numRuns: 12, examples: [['order 1']] },
    );
    // the routes were reached, not all refused at the door
    expect(answers.get('payment orderId')).toContain(200);
    expect(answers.get('register name')).toContain(201);

    const head = await service.store.headPosition();
    expect(await service.projections.waitFor(head, 15_000)).toBe(true);
    expect(await service.sagas.waitFor(head, 15_000)).toBe(true);
    const ready = await service.app.inject({ url: '/ready' });
    expect(ready.statusCode, ready.body).toBe(200);
    // and the service goes on working: a new merchant is served
    const next = await registerUser(service);
    expect((await createKey(service, next.cookie)).key).toMatch(/^svc_live_/);
  }, 240_000);
});
