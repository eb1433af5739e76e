import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyCacheMs } from '../../src/api/key-cache.ts';
import { revokeApiKey } from '../../src/commands/api-key.ts';
import { generateApiKey } from '../../src/security/api-key-format.ts';
import { createKey, registerUser } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { nextUuid } from '../support/ids.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

const dashboard = (method: 'GET' | 'POST' | 'DELETE', url: string, cookie?: string, payload?: unknown) =>
  service.app.inject({ method, url, cookies: cookie ? { svc_token: cookie } : {}, payload: payload as never });
const v1 = (key?: string, url = '/api/v1/not-a-route-yet') =>
  service.app.inject({ method: 'GET', url, headers: key === undefined ? {} : { 'x-api-key': key } });

describe('dashboard API keys', () => {
  it('creates a key shown once, lists it without the secret, and revokes it', async () => {
    const user = await registerUser(service);
    const created = await createKey(service, user.cookie, 'Toko Online');
    expect(created.key).toMatch(/^svc_live_[A-Za-z0-9_-]{43}[0-9a-f]{8}$/);
    expect(created.key.startsWith(created.prefix)).toBe(true);
    expect(created).toMatchObject({ name: 'Toko Online', createdAt: service.clock.now().toISOString() });

    const listed = await dashboard('GET', '/api/dashboard/api-keys', user.cookie);
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toEqual({
      status: 'success',
      data: [
        {
          id: created.id,
          name: 'Toko Online',
          prefix: created.prefix,
          createdAt: created.createdAt,
          lastUsedAt: null,
          revokedAt: null,
        },
      ],
    });
    expect(listed.body).not.toContain(created.key);

    const revoked = await dashboard('DELETE', `/api/dashboard/api-keys/${created.id}`, user.cookie);
    expect(revoked.statusCode).toBe(200);
    const after = (await dashboard('GET', '/api/dashboard/api-keys', user.cookie)).json().data[0];
    expect(after.revokedAt).toBe(service.clock.now().toISOString());
  });

  it('answers 401 without a session, before looking at the body', async () => {
    for (const [method, url] of [
      ['GET', '/api/dashboard/api-keys'],
      ['POST', '/api/dashboard/api-keys'],
      ['DELETE', `/api/dashboard/api-keys/${nextUuid()}`],
    ] as const) {
      const response = await dashboard(method, url, undefined, { name: '' });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ status: 'error', code: 'UNAUTHORIZED' });
    }
  });

  it('answers 400 with the field for a missing or empty name, and creates nothing', async () => {
    const user = await registerUser(service);
    for (const payload of [{}, { name: '' }, { name: 'x'.repeat(101) }]) {
      const response = await dashboard('POST', '/api/dashboard/api-keys', user.cookie, payload);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        status: 'error',
        code: 'VALIDATION_ERROR',
        errors: [{ path: 'body.name' }],
      });
    }
    expect((await dashboard('GET', '/api/dashboard/api-keys', user.cookie)).json().data).toEqual([]);
  });

  it("answers 404 for another user's key and leaves it working", async () => {
    const owner = await registerUser(service);
    const other = await registerUser(service);
    const key = await createKey(service, owner.cookie);
    const response = await dashboard('DELETE', `/api/dashboard/api-keys/${key.id}`, other.cookie);
    expect(response.statusCode).toBe(404);
    expect((await v1(key.key)).statusCode).toBe(404); // past the key guard: the route does not exist
    const unknown = await dashboard('DELETE', `/api/dashboard/api-keys/${nextUuid()}`, owner.cookie);
    expect(unknown.statusCode).toBe(404);
    const badId = await dashboard('DELETE', '/api/dashboard/api-keys/not-a-uuid', owner.cookie);
    expect(badId.statusCode).toBe(400);
  });
});

describe('x-api-key on /api/v1', () => {
  it('answers 401 when the key is missing, malformed, unknown or revoked', async () => {
    const user = await registerUser(service);
    const key = await createKey(service, user.cookie);
    const flipped = key.key.slice(0, 20) + (key.key[20] === 'A' ? 'B' : 'A') + key.key.slice(21);
    const wellFormedButUnknown = generateApiKey().key;
    for (const candidate of [undefined, '', 'svc_live_nope', flipped, wellFormedButUnknown, `Bearer ${key.key}`]) {
      const response = await v1(candidate);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({
        status: 'error',
        code: 'INVALID_API_KEY',
        message: 'API key invalid or missing',
        errors: [],
      });
    }
    expect((await v1(key.key)).statusCode).toBe(404);
    await dashboard('DELETE', `/api/dashboard/api-keys/${key.id}`, user.cookie);
    expect((await v1(key.key)).statusCode).toBe(401);
  });

  it('refuses a key revoked by another process once the one-second key cache has lapsed', async () => {
    const user = await registerUser(service);
    const key = await createKey(service, user.cookie);
    expect((await v1(key.key)).statusCode).toBe(404); // known, and now cached
    // revoked as another process would: through the command, not this app's route
    await revokeApiKey(service.deps, user.id, key.id);
    expect((await v1(key.key)).statusCode).toBe(404);
    service.clock.advance(apiKeyCacheMs);
    expect((await v1(key.key)).statusCode).toBe(401);
  });

  it('records when a key was last used', async () => {
    const user = await registerUser(service);
    const key = await createKey(service, user.cookie);
    await v1(key.key);
    await service.projections.waitFor(await service.store.headPosition());
    const listed = (await dashboard('GET', '/api/dashboard/api-keys', user.cookie)).json().data;
    expect(listed.find((k: { id: string }) => k.id === key.id).lastUsedAt).toBe(service.clock.now().toISOString());
  });
});
