import { request as httpRequest } from 'node:http';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser as registerWithRole } from '../../src/commands/registration.ts';
import { keyHolder, registerUser, sessionCookie } from '../support/http.ts';
import { createPayment, linkServiceWallet, paymentBody } from '../support/payments.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * The guards belong to the routes (one encapsulated plugin per surface), not to a test of the URL's text: however a
 * path under /api/v1, /api/dashboard or /api/admin is spelled, a request without its credential reaches no handler,
 * no validation and no lookup. fastify's router decodes percent-encoded letters (the route is found, so its guard
 * answers 401); it does not merge double slashes after /api or fold case (no route: 404). `inject` resolves dot
 * segments before the router sees them; a real socket does not, which the last test checks.
 */
let service: TestService;
let caller: Awaited<ReturnType<typeof keyHolder>>;
let paymentId: string;

beforeAll(async () => {
  service = await startTestService();
  caller = await keyHolder(service);
  const { accountId } = await linkServiceWallet(caller);
  paymentId = (await createPayment(caller, paymentBody(accountId, { type: 'QRIS-DYNAMIC' }))).id;
});
afterAll(async () => service?.close());

type Method = 'GET' | 'POST' | 'DELETE';
const inject = (method: Method, url: string, options: { payload?: unknown; key?: string; cookie?: string } = {}) =>
  service.app.inject({
    method,
    url,
    payload: options.payload as never,
    headers: options.key ? { 'x-api-key': options.key } : {},
    cookies: options.cookie ? { svc_token: options.cookie } : {},
  });

/** Spellings of `/api/<segment>/<rest>` that name the same place, or that a lax router would take for it. */
function spellings(segment: string, rest: string): string[] {
  const hex = (c: string) => `%${c.charCodeAt(0).toString(16)}`;
  const first = `${hex(segment[0]!)}${segment.slice(1)}`;
  const last = `${segment.slice(0, -1)}${hex(segment.at(-1)!)}`;
  const all = [...segment].map(hex).join('');
  return [
    `/api/${segment}/${rest}`,
    `/api/${first}/${rest}`,
    `/api/${last}/${rest}`,
    `/api/${all}/${rest}`,
    `/%61pi/${segment}/${rest}`,
    `/api/x/../${segment}/${rest}`,
    `/api/./${segment}/${rest}`,
    `/api/${segment}/./${rest}`,
    `/api//${segment}/${rest}`,
    `//api/${segment}/${rest}`,
    `/api/${segment}//${rest}`,
    `/API/${segment.toUpperCase()}/${rest}`,
    `/api/${segment.toUpperCase()}/${rest}`,
    `/api/${segment[0]!.toUpperCase()}${segment.slice(1)}/${rest}`,
    `/api%2f${segment}/${rest}`,
    `/api/${segment}%2f${rest}`,
  ];
}

const unknownId = '00000000-0000-4000-8000-000000000000';

/** Each route of a surface, with a body that would fail validation if anything ran before the guard. */
const keyRoutes: [Method, string, unknown?][] = [
  ['GET', 'providers'],
  ['GET', 'accounts'],
  ['GET', 'accounts?limit=100000'],
  ['POST', 'accounts', { action: 'wallet-z-send-otp' }],
  ['POST', 'accounts', { type: 'nonsense' }],
  ['GET', `accounts/${unknownId}`],
  ['GET', 'accounts/not-a-uuid'],
  ['GET', 'mutations?type=NOPE'],
  ['POST', 'payments', { amount: 'lots' }],
  ['GET', `payments/status/${unknownId}`],
  ['GET', 'payments/status/not-a-uuid'],
  ['GET', 'webhooks'],
  ['POST', 'webhooks', {}],
  ['GET', 'no-such-route'],
  ['POST', 'no-such-route', { a: 1 }],
];
const dashboardRoutes: [Method, string, unknown?][] = [
  ['GET', 'api-keys'],
  ['POST', 'api-keys', {}],
  ['DELETE', 'api-keys/not-a-uuid'],
  ['GET', 'webhooks'],
  ['POST', 'webhooks', { url: 42 }],
  ['GET', 'no-such-route'],
];
const adminRoutes: [Method, string, unknown?][] = [
  ['GET', 'streams/anything'],
  ['POST', 'gateway/access/approve', { nonsense: true }],
  ['GET', 'no-such-route'],
];

/** Not found or not authenticated, and nothing else: no data, no validation message, no crash. */
function expectRefused(response: LightMyRequestResponse, label: string) {
  expect([401, 404], `${label}: ${response.statusCode} ${response.body}`).toContain(response.statusCode);
  expect(response.json(), label).toMatchObject({ status: 'error' });
  expect(response.body, label).not.toContain('VALIDATION_ERROR');
}

describe('the key surface (/api/v1) guards every spelling of its paths', () => {
  it.each(keyRoutes)('%s %s without a key answers 401 or 404, never the route', async (method, rest, payload) => {
    for (const url of spellings('v1', rest)) expectRefused(await inject(method, url, { payload }), `${method} ${url}`);
  });

  it('answers 401 for the spellings the router decodes to a route, with the key surface error', async () => {
    for (const url of ['/api/%76%31/providers', '/api/v%31/providers', '/api/%761/providers', '/%61pi/v1/providers']) {
      const response = await inject('GET', url);
      expect(response.statusCode, url).toBe(401);
      expect(response.json()).toMatchObject({ status: 'error', code: 'INVALID_API_KEY' });
    }
  });

  it('is no oracle for payment ids: an existing and an unknown id answer alike without a key', async () => {
    for (const id of [paymentId, unknownId]) {
      const response = await inject('GET', `/api/%761/payments/status/${id}`);
      expect(response.statusCode, id).toBe(401);
      expect(response.json()).toMatchObject({ code: 'INVALID_API_KEY' });
    }
  });

  it('checks the key before the body: no validation and no JSON parse error without a key', async () => {
    const invalid = await inject('POST', '/api/%761/payments', { payload: { amount: -1 } });
    expect(invalid.statusCode).toBe(401);
    const unparsable = await service.app.inject({
      method: 'POST',
      url: '/api/%761/payments',
      payload: '{"amount":',
      headers: { 'content-type': 'application/json' },
    });
    expect(unparsable.statusCode).toBe(401);
    const unknownPath = await service.app.inject({
      method: 'POST',
      url: '/api/v1/nothing-here',
      payload: '{',
      headers: { 'content-type': 'application/json' },
    });
    expect(unknownPath.statusCode).toBe(401);
  });

  it('serves the decoded spelling to a caller with a key, and answers 404 for an unknown path under /api/v1', async () => {
    expect((await inject('GET', '/api/%76%31/providers', { key: caller.key })).statusCode).toBe(200);
    const status = await inject('GET', `/api/v%31/payments/status/${paymentId}`, { key: caller.key });
    expect(status.statusCode).toBe(200);
    expect(status.json().data.id).toBe(paymentId);
    const unknown = await inject('GET', '/api/v1/no-such-route', { key: caller.key });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ status: 'error', code: 'NOT_FOUND' });
  });
});

describe('over a real socket, where no client tidies the path', () => {
  /** Sends the path byte for byte (fetch and inject would resolve its dot segments first). */
  const raw = (base: string, path: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const { hostname, port } = new URL(base);
      const req = httpRequest({ host: hostname, port, path, method: 'GET' }, res => {
        let body = '';
        res.on('data', chunk => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      req.end();
    });

  it('answers 401 or 404 to every spelling of every prefix, never the route', async () => {
    const base = (await service.listen()).replace('0.0.0.0', '127.0.0.1');
    const cases: [string, string][] = [
      ['v1', 'providers'],
      ['v1', `payments/status/${paymentId}`],
      ['dashboard', 'api-keys'],
      ['admin', 'no-such-route'],
    ];
    for (const [segment, rest] of cases)
      for (const path of spellings(segment, rest)) {
        const response = await raw(base, path);
        expect([401, 404], `${path}: ${response.status} ${response.body}`).toContain(response.status);
      }
  });
});

describe('the dashboard (/api/dashboard) guards every spelling of its paths', () => {
  it.each(dashboardRoutes)('%s %s without a session answers 401 or 404', async (method, rest, payload) => {
    for (const url of spellings('dashboard', rest))
      expectRefused(await inject(method, url, { payload }), `${method} ${url}`);
  });

  it('answers 401 for an unknown dashboard path without a session, 404 with one', async () => {
    expect((await inject('GET', '/api/dashboard/no-such-route')).statusCode).toBe(401);
    const user = await registerUser(service);
    expect((await inject('GET', '/api/dashboard/no-such-route', { cookie: user.cookie })).statusCode).toBe(404);
    expect((await inject('GET', '/api/%64ashboard/api-keys', { cookie: user.cookie })).statusCode).toBe(200);
  });
});

describe('the admin console (/api/admin) guards every spelling of its paths', () => {
  it.each(adminRoutes)('%s %s without a session answers 401 or 404', async (method, rest, payload) => {
    for (const url of spellings('admin', rest))
      expectRefused(await inject(method, url, { payload }), `${method} ${url}`);
  });

  it('answers 401 without a session, 403 to a user and 404 to an admin for a path it does not have', async () => {
    const url = '/api/%61dmin/no-such-route';
    const anonymous = await inject('GET', url);
    expect(anonymous.statusCode).toBe(401);
    const user = await registerUser(service);
    const forbidden = await inject('GET', url, { cookie: user.cookie });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toMatchObject({ status: 'error', code: 'FORBIDDEN' });
    const email = `admin-${process.pid}@example.com`;
    await registerWithRole(service.deps, { name: 'Admin', email, password: 'rahasia123', role: 'ADMIN' });
    const login = await inject('POST', '/api/auth/login', { payload: { email, password: 'rahasia123' } });
    expect(login.statusCode).toBe(200);
    const admin = await inject('GET', url, { cookie: sessionCookie(login) });
    expect(admin.statusCode).toBe(404);
  });
});

describe('the session surface (/api/auth) keeps its error shape whatever the spelling', () => {
  it('answers {ok:false, message} on a percent-encoded path to its routes', async () => {
    const wrong = await inject('POST', '/api/%61uth/login', {
      payload: { email: 'nobody@example.com', password: 'rahasia123' },
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ ok: false, message: 'Email atau password salah' });
    const missing = await inject('POST', '/api/aut%68/register', { payload: {} });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({ ok: false, message: 'Semua field wajib diisi' });
    const me = await inject('GET', '/api/%61uth/me');
    expect(me.statusCode).toBe(401);
    expect(me.json()).toEqual({ ok: false, message: 'Unauthorized' });
  });

  it('answers an unknown path under it in its own shape', async () => {
    for (const url of ['/api/auth/no-such-route', '/api/%61uth/no-such-route']) {
      const response = await inject('GET', url);
      expect(response.statusCode, url).toBe(404);
      expect(response.json()).toEqual({ ok: false, message: 'Not found' });
    }
  });
});
