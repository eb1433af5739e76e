import { describe, expect, it } from 'vitest';
import { apiKeyCache, apiKeyCacheMs } from '../../src/api/key-cache.ts';
import { TestClock } from '../../src/clock.ts';
import type { ApiKeyRow } from '../../src/projections/api-keys.ts';

const row = (id: string): ApiKeyRow => ({
  id,
  user_id: 'u1',
  name: 'k',
  prefix: 'ak_',
  created_at: new Date(0),
  last_used_at: null,
  revoked_at: null,
});

/** A read model lookup that answers when told to, and counts its calls. */
function slowLookup(answer: ApiKeyRow | null) {
  let calls = 0;
  let release: () => void = () => undefined;
  const gate = new Promise<void>(resolve => (release = resolve));
  return {
    find: async () => {
      calls++;
      await gate;
      return answer;
    },
    release: () => release(),
    calls: () => calls,
  };
}

describe('API key cache', () => {
  it('given a key whose cached second lapsed, when many requests look it up at once, then one lookup answers them all', async () => {
    const clock = new TestClock(new Date('2026-01-01T00:00:00Z'));
    const cache = apiKeyCache(clock);
    await cache.lookup('h', async () => row('k1'));
    clock.advance(apiKeyCacheMs);
    const lookup = slowLookup(row('k1'));
    const answers = Promise.all(Array.from({ length: 20 }, () => cache.lookup('h', lookup.find)));
    lookup.release();
    expect((await answers).map(k => k?.id)).toEqual(Array(20).fill('k1'));
    expect(lookup.calls()).toBe(1);
    expect(await cache.lookup('h', async () => null)).toMatchObject({ id: 'k1' }); // kept for the next second
  });

  it('given an unknown key, when it is looked up, then it is not kept: the next request looks again', async () => {
    const cache = apiKeyCache(new TestClock(new Date('2026-01-01T00:00:00Z')));
    expect(await cache.lookup('h', async () => null)).toBeNull();
    expect(await cache.lookup('h', async () => row('k2'))).toMatchObject({ id: 'k2' });
  });

  it('given a lookup on its way, when the key is revoked through this process (forget), then its answer is not kept', async () => {
    const cache = apiKeyCache(new TestClock(new Date('2026-01-01T00:00:00Z')));
    const lookup = slowLookup(row('k3'));
    const answer = cache.lookup('h', lookup.find);
    cache.forget('k3');
    lookup.release();
    await answer;
    expect(await cache.lookup('h', async () => null)).toBeNull();
  });
});
