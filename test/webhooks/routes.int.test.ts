import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemResolver, type ResolvedAddress } from '../../src/security/address-guard.ts';
import { maxEndpointsPerUser } from '../../src/domain/webhook-endpoints.ts';
import { enqueueWebhookEvent } from '../../src/webhooks/outbox.ts';
import { keyHolder } from '../support/http.ts';
import { nextUuid } from '../support/ids.ts';
import { eventually } from '../support/sandbox.ts';
import type { TestService } from '../support/service.ts';
import { shortSchedule, startWebhookTestService } from './support.ts';

// Names resolve here, not through DNS; `rebind.example` answers a public address once, then loopback.
let rebindLookups = 0;
const answers: Record<string, () => string[]> = {
  'shop.example': () => ['93.184.216.34'],
  'mixed.example': () => ['93.184.216.34', '10.0.0.1'],
  'rebind.example': () => (rebindLookups++ === 0 ? ['93.184.216.34'] : ['127.0.0.1']),
};
const resolveHost = async (host: string): Promise<ResolvedAddress[]> => {
  if (host === 'localhost') return systemResolver(host);
  const found = answers[host]?.();
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found.map(address => ({ address, family: 4 }));
};

let service: TestService;
beforeAll(async () => {
  // the default configuration: private targets are refused in every mode unless WEBHOOK_ALLOW_PRIVATE=true
  service = await startWebhookTestService({}, { ...shortSchedule, resolveHost });
});
afterAll(async () => service?.close());

type Owner = Awaited<ReturnType<typeof keyHolder>>;
type Method = 'GET' | 'POST' | 'DELETE';

/** The same routes on both surfaces: /api/v1 with the API key, the dashboard with the session cookie. */
const surfaces = [
  {
    name: 'key surface',
    base: '/api/v1/webhooks',
    call: (o: Owner, method: Method, url: string, payload?: unknown) => o.call(method, url, payload),
    anonymous: (method: Method, url: string) => service.app.inject({ method, url }),
    unauthorizedCode: 'INVALID_API_KEY',
  },
  {
    name: 'dashboard',
    base: '/api/dashboard/webhooks',
    call: (o: Owner, method: Method, url: string, payload?: unknown) =>
      service.app.inject({
        method,
        url,
        cookies: { svc_token: o.cookie },
        payload: payload as never,
        headers: method === 'POST' ? { 'content-type': 'application/json' } : {},
      }),
    anonymous: (method: Method, url: string) => service.app.inject({ method, url }),
    unauthorizedCode: 'UNAUTHORIZED',
  },
];

describe.each(surfaces)('webhook endpoints on the $name', ({ base, call, anonymous, unauthorizedCode }) => {
  const register = async (o: Owner, url = 'https://shop.example/hooks') => {
    const response = await call(o, 'POST', base, { url });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data as { id: string; url: string; secret: string; createdAt: string };
  };

  it('registers an endpoint whose secret is shown once, lists it without the secret, and removes it', async () => {
    const owner = await keyHolder(service);
    const created = await register(owner);
    const kinds = [
      'payment.completed',
      'payment.expired',
      'transfer.completed',
      'transfer.failed',
      'withdrawal.paid',
      'withdrawal.rejected',
      'gateway.settled',
    ];
    expect(created).toEqual({
      id: expect.any(String),
      url: 'https://shop.example/hooks',
      secret: expect.any(String),
      events: kinds,
      filters: null,
      createdAt: service.clock.now().toISOString(),
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(24);
    expect(() => new Webhook(created.secret)).not.toThrow();

    const listed = await call(owner, 'GET', base);
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toEqual({
      status: 'success',
      data: [
        {
          id: created.id,
          url: created.url,
          events: kinds,
          filters: null,
          createdAt: created.createdAt,
          disabled: false,
          disabledAt: null,
          disabledStatusCode: null,
        },
      ],
    });
    expect(listed.body).not.toContain(created.secret.slice(6));
    const stored = JSON.stringify((await service.store.readStream(`user-${owner.id}`)).map(e => [e.type, e.data]));
    expect(stored).toContain('WebhookEndpointAdded');
    expect(stored).not.toContain(created.secret.slice(6)); // sealed in the event, never in clear

    const removed = await call(owner, 'DELETE', `${base}/${created.id}`);
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toEqual({ status: 'success', data: { id: created.id, removed: true } });
    expect((await call(owner, 'GET', base)).json().data).toEqual([]);
    expect((await call(owner, 'DELETE', `${base}/${created.id}`)).statusCode).toBe(200); // removing twice is fine
    expect((await call(owner, 'GET', `${base}/${created.id}/deliveries`)).statusCode).toBe(404);
  });

  it('answers 400 with the field for a URL that is missing or malformed, and creates nothing', async () => {
    const owner = await keyHolder(service);
    for (const payload of [
      {},
      { url: '' },
      { url: 42 },
      { url: 'not a url' },
      { url: 'ftp://shop.example/' },
      { url: 'https://user:pass@shop.example/' },
      { url: `https://shop.example/${'a'.repeat(2100)}` },
    ]) {
      const response = await call(owner, 'POST', base, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json()).toMatchObject({
        status: 'error',
        code: 'VALIDATION_ERROR',
        errors: [{ path: 'body.url' }],
      });
    }
    expect((await call(owner, 'GET', base)).json().data).toEqual([]);
  });

  it('refuses URLs that lead to private, loopback, link-local or unresolvable hosts (SSRF), and creates nothing', async () => {
    const owner = await keyHolder(service);
    for (const url of [
      'http://127.0.0.1/hooks',
      'http://10.0.0.8/hooks',
      'http://192.168.1.1/',
      'http://100.64.0.1/',
      'http://169.254.169.254/latest/meta-data',
      'http://0.0.0.0:8080/',
      'http://[::1]/hooks',
      'http://[::ffff:127.0.0.1]/',
      'http://[fd00::1]/',
      'http://2130706433/',
      'http://0x7f000001/',
      'http://0177.0.0.1/',
      'http://0x7f.0.0.1:5432/',
      'http://017700000001/',
      'http://127.1/',
      'http://[0:0:0:0:0:0:0:1]/',
      'http://[::ffff:7f00:1]/',
      'http://[::]/',
      'http://0/',
      'http://localhost:8080/hooks',
      'https://mixed.example/hooks',
      'https://nowhere.invalid/hooks',
    ]) {
      const response = await call(owner, 'POST', base, { url });
      expect(response.statusCode, url).toBe(400);
      expect(response.json(), url).toMatchObject({
        status: 'error',
        code: 'WEBHOOK_URL_REFUSED',
        errors: [{ path: 'body.url' }],
      });
    }
    expect((await call(owner, 'GET', base)).json().data).toEqual([]);
  });

  it(`keeps at most ${maxEndpointsPerUser} endpoints per owner: 409`, async () => {
    const owner = await keyHolder(service);
    for (let n = 0; n < maxEndpointsPerUser; n++) await register(owner, `https://shop.example/hooks/${n}`);
    const response = await call(owner, 'POST', base, { url: 'https://shop.example/one-more' });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ status: 'error', code: 'WEBHOOK_ENDPOINT_LIMIT' });
  });

  it('answers 400 for ids that are not UUIDs and for bad paging', async () => {
    const owner = await keyHolder(service);
    const { id } = await register(owner);
    for (const [method, url] of [
      ['DELETE', `${base}/not-a-uuid`],
      ['GET', `${base}/not-a-uuid/deliveries`],
      ['POST', `${base}/not-a-uuid/deliveries/${nextUuid()}/redeliver`],
      ['POST', `${base}/${id}/deliveries/not-a-uuid/redeliver`],
      ['GET', `${base}/${id}/deliveries?limit=0`],
      ['GET', `${base}/${id}/deliveries?limit=101`],
      ['GET', `${base}/${id}/deliveries?page=0`],
      ['GET', `${base}/${id}/deliveries?status=lost`],
    ] as const) {
      const response = await call(owner, method, url);
      expect(response.statusCode, `${method} ${url}`).toBe(400);
      expect(response.json()).toMatchObject({ status: 'error', code: 'VALIDATION_ERROR' });
    }
  });

  it("answers 404 for another owner's endpoint on every route, and leaves it alone", async () => {
    const owner = await keyHolder(service);
    const other = await keyHolder(service);
    const { id } = await register(owner);
    for (const [method, url] of [
      ['DELETE', `${base}/${id}`],
      ['GET', `${base}/${id}/deliveries`],
      ['POST', `${base}/${id}/deliveries/${nextUuid()}/redeliver`],
      ['DELETE', `${base}/${nextUuid()}`],
      ['GET', `${base}/${nextUuid()}/deliveries`],
    ] as const) {
      const response = await call(other, method, url);
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.json()).toMatchObject({ status: 'error', code: expect.stringMatching(/NOT_FOUND$/) });
    }
    expect((await call(other, 'GET', base)).json().data).toEqual([]);
    expect((await call(owner, 'GET', base)).json().data.map((e: { id: string }) => e.id)).toEqual([id]);
  });

  it('answers 401 without credentials, before looking at the body', async () => {
    for (const [method, url] of [
      ['GET', base],
      ['POST', base],
      ['DELETE', `${base}/${nextUuid()}`],
      ['GET', `${base}/${nextUuid()}/deliveries`],
      ['POST', `${base}/${nextUuid()}/deliveries/${nextUuid()}/redeliver`],
    ] as const) {
      const response = await anonymous(method, url);
      expect(response.statusCode, `${method} ${url}`).toBe(401);
      expect(response.json()).toMatchObject({ status: 'error', code: unauthorizedCode });
    }
  });
});

describe('one set of endpoints behind both surfaces', () => {
  it('shows an endpoint registered with the key on the dashboard, and the other way round', async () => {
    const owner = await keyHolder(service);
    const byKey = (await owner.call('POST', '/api/v1/webhooks', { url: 'https://shop.example/a' })).json().data;
    const byDashboard = (
      await service.app.inject({
        method: 'POST',
        url: '/api/dashboard/webhooks',
        cookies: { svc_token: owner.cookie },
        payload: { url: 'https://shop.example/b' },
      })
    ).json().data;
    const onDashboard = (
      await service.app.inject({ method: 'GET', url: '/api/dashboard/webhooks', cookies: { svc_token: owner.cookie } })
    ).json().data;
    const withKey = (await owner.call('GET', '/api/v1/webhooks')).json().data;
    expect(new Set(onDashboard.map((e: { id: string }) => e.id))).toEqual(new Set([byKey.id, byDashboard.id]));
    expect(withKey).toEqual(onDashboard);
  });
});

describe('the SSRF guard at delivery time', () => {
  it('checks the address again before each attempt: a host that now resolves to loopback is not called', async () => {
    const owner = await keyHolder(service);
    rebindLookups = 0;
    const { id } = (await owner.call('POST', '/api/v1/webhooks', { url: 'http://rebind.example/hooks' })).json().data;
    await enqueueWebhookEvent(service.deps, {
      ownerId: owner.id,
      eventId: nextUuid(),
      type: 'payment.expired',
      createdAt: service.clock.now().toISOString(),
      data: {},
    });
    const delivery = await eventually(async () => {
      const [d] = (await owner.call('GET', `/api/v1/webhooks/${id}/deliveries`)).json().data;
      return d?.status === 'failed' ? d : null;
    });
    expect(delivery.attempts).toHaveLength(shortSchedule.retryDelaysMs!.length);
    for (const attempt of delivery.attempts) {
      expect(attempt).toMatchObject({
        statusCode: null,
        error: 'refused: rebind.example resolves to 127.0.0.1, which is not a public address',
      });
    }
  });
});
