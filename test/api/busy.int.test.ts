import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyStream } from '../../src/domain/api-key.ts';
import { ApiKeyUsed } from '../../src/events/api-key.ts';
import type { EventStore, NewEvent } from '../../src/store/event-store.ts';
import { createKey, registerUser } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

/** The store's own methods, put back after each test that wraps them. */
let restore: (() => void) | null = null;
afterEach(() => {
  restore?.();
  restore = null;
});

/** Wraps the service's event store's appends for the rest of the test. */
function intercept(
  wrap: (store: EventStore, append: EventStore['append']) => Partial<Pick<EventStore, 'append' | 'appendToStreams'>>,
) {
  const store = service.store;
  const { append, appendToStreams } = store;
  Object.assign(store, wrap(store, append.bind(store)));
  restore = () => Object.assign(store, { append, appendToStreams });
}

const revoke = (cookie: string, keyId: string) =>
  service.app.inject({ method: 'DELETE', url: `/api/dashboard/api-keys/${keyId}`, cookies: { svc_token: cookie } });

const usedBy = (keyId: string, at: Date): NewEvent => {
  const event = ApiKeyUsed({ keyId, at: at.toISOString() });
  return {
    type: event.type,
    version: 1,
    data: event.data,
    metadata: {
      eventId: randomUUID(),
      correlationId: randomUUID(),
      causationId: null,
      actor: 'other-instance',
      occurredAt: at.toISOString(),
    },
  };
};

describe('a conflict the service cannot resolve', () => {
  it('answers 503 BUSY with Retry-After when another writer moves the stream through every retry, and writes nothing', async () => {
    const user = await registerUser(service);
    const key = await createKey(service, user.cookie);
    const stream = apiKeyStream(key.id);
    let raced = 0;
    // another instance appends to the key's stream just before each of this one's appends: every try is refused
    intercept((_, append) => ({
      append: async (streamId, events, expected) => {
        if (streamId === stream) {
          raced++;
          await append(stream, [usedBy(key.id, new Date(service.clock.now().getTime() + raced * 86_400_000))], 'any');
        }
        return append(streamId, events, expected);
      },
    }));

    const response = await revoke(user.cookie, key.id);
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.json()).toEqual({
      status: 'error',
      code: 'BUSY',
      message: expect.stringMatching(/nothing was written/),
      errors: [],
    });
    expect(raced).toBeGreaterThan(1); // the command tried again before giving up
    // the stream holds the other writer's events and none of the refused command's
    expect((await service.store.readStream(stream)).map(e => e.type)).toEqual([
      'ApiKeyCreated',
      ...Array<string>(raced).fill('ApiKeyUsed'),
    ]);

    restore!();
    restore = null;
    expect((await revoke(user.cookie, key.id)).statusCode).toBe(200); // the same request, sent again, goes through
    expect((await service.store.readStream(stream)).at(-1)!.type).toBe('ApiKeyRevoked');
  });

  it.each([
    ['a serialization failure', '40001'],
    ['a deadlock', '40P01'],
  ])('answers 503 BUSY for %s from PostgreSQL', async (_, code) => {
    const user = await registerUser(service);
    const key = await createKey(service, user.cookie);
    const stream = apiKeyStream(key.id);
    intercept(() => ({
      append: async () => {
        throw Object.assign(new Error('could not serialize access'), { code });
      },
    }));
    const response = await revoke(user.cookie, key.id);
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.json()).toMatchObject({ status: 'error', code: 'BUSY' });
    restore!();
    restore = null;
    expect((await service.store.readStream(stream)).map(e => e.type)).toEqual(['ApiKeyCreated']);
  });

  it('answers the session surface in its own shape', async () => {
    const user = await registerUser(service);
    intercept(() => ({
      append: async () => {
        throw Object.assign(new Error('could not serialize access'), { code: '40001' });
      },
      appendToStreams: async () => {
        throw Object.assign(new Error('could not serialize access'), { code: '40001' });
      },
    }));
    const response = await service.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password: user.password },
      remoteAddress: '10.200.0.1',
    });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.json()).toEqual({ ok: false, message: 'Layanan sedang sibuk, coba lagi sebentar lagi' });
  });
});
