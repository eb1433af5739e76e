import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyHolder, registerUser } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';

let plain: TestService;
let tls: TestService;
beforeAll(async () => {
  plain = await startTestService({ METRICS_TOKEN: 'metrics-token-0123456789', WEBHOOK_ALLOW_PRIVATE: 'true' });
  tls = await startTestService({ PUBLIC_BASE_URL: 'https://svc.example' });
});
afterAll(async () => Promise.all([plain?.close(), tls?.close()]));

describe('headers of every answer', () => {
  it('says nosniff everywhere; HSTS only under an https base URL', async () => {
    for (const url of ['/health', '/api/v1/accounts', '/nowhere', '/login']) {
      const answer = await tls.app.inject({ method: 'GET', url });
      expect(answer.headers['x-content-type-options'], url).toBe('nosniff');
      expect(answer.headers['strict-transport-security'], url).toBe('max-age=31536000');
      expect(
        (await plain.app.inject({ method: 'GET', url })).headers['strict-transport-security'],
        url,
      ).toBeUndefined();
    }
  });

  it('keeps answers with a secret, and /api/auth/me, out of every cache', async () => {
    const user = await keyHolder(plain);
    const me = await plain.app.inject({ method: 'GET', url: '/api/auth/me', cookies: { svc_token: user.cookie } });
    expect(me.headers['cache-control']).toBe('no-store');
    const key = await plain.app.inject({
      method: 'POST',
      url: '/api/dashboard/api-keys',
      cookies: { svc_token: user.cookie },
      payload: { name: 'k' },
    });
    expect(key.statusCode).toBe(201);
    expect(key.headers['cache-control']).toBe('no-store');
    const endpoint = await user.call('POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/hook' });
    expect(endpoint.statusCode, endpoint.body).toBe(200);
    expect(endpoint.json().data.secret).toBeTruthy();
    expect(endpoint.headers['cache-control']).toBe('no-store');
    const dashboardEndpoint = await plain.app.inject({
      method: 'POST',
      url: '/api/dashboard/webhooks',
      cookies: { svc_token: user.cookie },
      payload: { url: 'http://127.0.0.1:9/two' },
    });
    expect(dashboardEndpoint.headers['cache-control']).toBe('no-store');
  });
});

describe('/metrics and /ready', () => {
  it('serves /metrics to the bearer of METRICS_TOKEN only, wherever it is', async () => {
    const bare = await plain.app.inject({ method: 'GET', url: '/metrics' });
    expect(bare.statusCode).toBe(401);
    expect(bare.headers['www-authenticate']).toBe('Bearer');
    expect(
      (
        await plain.app.inject({
          method: 'GET',
          url: '/metrics',
          headers: { authorization: 'Bearer wrong-token-0123456789' },
        })
      ).statusCode,
    ).toBe(401);
    const held = await plain.app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress: '203.0.113.7',
      headers: { authorization: 'Bearer metrics-token-0123456789' },
    });
    expect(held.statusCode).toBe(200);
    expect(held.body).toContain('http_requests_total');
  });

  it('serves /metrics on loopback only when no token is set, and not to what a proxy forwarded', async () => {
    expect((await tls.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
    expect((await tls.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '203.0.113.7' })).statusCode).toBe(
      403,
    );
    expect(
      (await tls.app.inject({ method: 'GET', url: '/metrics', headers: { 'x-forwarded-for': '203.0.113.7' } }))
        .statusCode,
    ).toBe(403);
  });

  it('tells anyone whether the service is ready, and what is wrong only to the operator', async () => {
    const anyone = await tls.app.inject({ method: 'GET', url: '/ready', remoteAddress: '203.0.113.7' });
    expect(anyone.statusCode).toBe(200);
    expect(anyone.json()).toEqual({ status: 'ready' });
    const local = await tls.app.inject({ method: 'GET', url: '/ready' });
    expect(local.json()).toMatchObject({ status: 'ready', checks: { database: true } });
    const bearer = await plain.app.inject({
      method: 'GET',
      url: '/ready',
      remoteAddress: '203.0.113.7',
      headers: { authorization: 'Bearer metrics-token-0123456789' },
    });
    expect(bearer.json()).toHaveProperty('checks');
    expect((await plain.app.inject({ method: 'GET', url: '/ready' })).json()).toEqual({ status: 'ready' });
  });
});

describe('TRUST_PROXY', () => {
  let proxied: TestService;
  beforeAll(async () => {
    proxied = await startTestService({
      TRUST_PROXY: '127.0.0.1',
      LOGIN_LIMIT_PER_IP: '3',
      LOGIN_LIMIT_PER_IP_EMAIL: '100',
    });
  });
  afterAll(async () => proxied?.close());

  const login = (on: TestService, client: string, email: string) =>
    on.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'x-forwarded-for': client },
      payload: { email, password: 'salah-sekali' },
    });

  it('counts sign-in attempts per client behind the proxy, not per proxy', async () => {
    for (let i = 0; i < 3; i++)
      expect((await login(proxied, '198.51.100.1', `a${i}@example.com`)).statusCode).toBe(401);
    expect((await login(proxied, '198.51.100.1', 'a9@example.com')).statusCode).toBe(429);
    expect((await login(proxied, '198.51.100.2', 'b@example.com')).statusCode).toBe(401); // another client: its own count
  });

  it('shows the client, not the proxy, in the devices list', async () => {
    const user = await registerUser(proxied);
    const signedIn = await proxied.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'x-forwarded-for': '198.51.100.9' },
      payload: { email: user.email, password: user.password },
    });
    const cookie = signedIn.cookies.find(c => c.name === 'svc_token')!.value;
    const devices = (
      await proxied.app.inject({ method: 'GET', url: '/api/auth/me', cookies: { svc_token: cookie } })
    ).json().devices as { ip: string; current: boolean }[];
    expect(devices.find(d => d.current)!.ip).toBe('198.51.100.9');
  });

  it('believes no forwarded header by default: every client behind a proxy is the proxy', async () => {
    const email = 'c@example.com';
    const limited = await startTestService({ LOGIN_LIMIT_PER_IP: '3', LOGIN_LIMIT_PER_IP_EMAIL: '100' });
    try {
      for (let i = 0; i < 3; i++) await login(limited, `198.51.100.${i + 1}`, email);
      expect((await login(limited, '198.51.100.50', email)).statusCode).toBe(429);
    } finally {
      await limited.close();
    }
  });
});
