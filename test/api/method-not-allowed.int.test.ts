import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyHolder, registerUser } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * A path the service knows, asked with a method it has no route for, answers 405 with `Allow` naming the methods it
 * has (RFC 9110 section 15.5.6); a path it does not know stays 404. The surface's guard still comes first.
 */
let service: TestService;
let caller: Awaited<ReturnType<typeof keyHolder>>;
let session: Awaited<ReturnType<typeof registerUser>>;

beforeAll(async () => {
  service = await startTestService();
  caller = await keyHolder(service);
  session = await registerUser(service);
});
afterAll(async () => service?.close());

type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
const withKey = (method: Method, url: string) =>
  service.app.inject({ method, url, headers: { 'x-api-key': caller.key } });

describe('a known path asked with an undeclared method', () => {
  it('answers 405 in the key surface envelope, with Allow naming the declared methods', async () => {
    const response = await withKey('PUT', '/api/v1/accounts');
    expect(response.statusCode, response.body).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD, POST');
    expect(response.json()).toEqual({
      status: 'error',
      code: 'METHOD_NOT_ALLOWED',
      message: 'Method not allowed',
      errors: [],
    });
  });

  it('matches paths with parameters as the router does', async () => {
    const response = await withKey('POST', '/api/v1/accounts/7f3e2a52-4b1c-4d5e-8f90-1a2b3c4d5e6f');
    expect(response.statusCode, response.body).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD, PATCH, DELETE');
    const status = await withKey('DELETE', '/api/v1/payments/status/7f3e2a52-4b1c-4d5e-8f90-1a2b3c4d5e6f');
    expect(status.statusCode).toBe(405);
    expect(status.headers.allow).toBe('GET, HEAD');
  });

  it('lets HEAD follow GET, and refuses it where there is no GET', async () => {
    expect((await withKey('HEAD', '/api/v1/accounts')).statusCode).toBe(200);
    expect((await withKey('HEAD', '/api/v1/payments')).statusCode).toBe(200);
    const head = await withKey('HEAD', '/api/v1/accounts/7f3e2a52-4b1c-4d5e-8f90-1a2b3c4d5e6f/transfer');
    expect(head.statusCode).toBe(405);
    expect(head.headers.allow).toBe('POST');
  });

  it('comes after the guard: without a key the answer is still 401', async () => {
    const response = await service.app.inject({ method: 'PUT', url: '/api/v1/accounts' });
    expect(response.statusCode).toBe(401);
    expect(response.headers.allow).toBeUndefined();
  });

  it('answers in the session surface shape under /api/auth', async () => {
    const response = await service.app.inject({
      method: 'PUT',
      url: '/api/auth/me',
      cookies: { svc_token: session.cookie },
    });
    expect(response.statusCode, response.body).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD, DELETE');
    expect(response.json()).toEqual({ ok: false, message: 'Method not allowed' });
  });

  it('holds for public paths too', async () => {
    const response = await service.app.inject({ method: 'POST', url: '/health' });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD');
  });
});

describe('an unknown path', () => {
  it('stays 404, without Allow', async () => {
    const response = await withKey('PUT', '/api/v1/nothing-here');
    expect(response.statusCode).toBe(404);
    expect(response.headers.allow).toBeUndefined();
    expect(response.json()).toMatchObject({ status: 'error', code: 'NOT_FOUND' });
  });
});

describe('a path the router itself refuses, before any route runs', () => {
  it('answers a path that is not UTF-8, or an id longer than the router takes, 400 in the error envelope without echoing the path', async () => {
    for (const url of [
      '/api/v1/accounts/%E0%A4',
      `/api/v1/accounts/${'x'.repeat(200)}`,
      '/pay/%ED%A0%80',
      `/api/v1/payments/status/${'😀'.repeat(60)}`,
    ]) {
      const response = await withKey('GET', url);
      expect(response.statusCode, `${url}: ${response.body}`).toBe(400);
      expect(response.json()).toEqual({
        status: 'error',
        code: 'BAD_REQUEST',
        message: expect.any(String),
        errors: [{ path: 'params', message: expect.any(String) }],
      });
      expect(response.body).not.toContain('xxxxxxxx');
    }
  });
});
