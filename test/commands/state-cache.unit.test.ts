import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { stateCache } from '../../src/store/commands/state-cache.ts';

// two deciders: the same stream folded by each is two entries
const deciders = [{}, {}];
const decider = fc.integer({ min: 0, max: 1 });
const stream = fc.integer({ min: 0, max: 30 });
const op = fc.oneof(
  fc.record({
    kind: fc.constant('set' as const),
    decider,
    stream,
    revision: fc.integer({ min: 0, max: 20 }),
  }),
  fc.record({ kind: fc.constant('get' as const), decider, stream }),
  fc.record({ kind: fc.constant('delete' as const), decider, stream }),
);

describe('state cache', () => {
  test.prop([fc.array(op, { maxLength: 300 })])(
    'answers the newest state set for a stream or nothing, keeps what was used within half its size, and forgets deletions',
    ops => {
      const max = 10;
      const cache = stateCache(max);
      const newest = new Map<string, number>(); // the model: the newest revision set since the last delete
      const lastUsed = new Map<string, number>();
      ops.forEach((o, step) => {
        const id = `s-${o.stream}`;
        const key = `${o.decider}:${id}`;
        const d = deciders[o.decider]!;
        if (o.kind === 'set') {
          cache.set(d, id, o.revision, { revision: o.revision });
          if ((newest.get(key) ?? -1) <= o.revision) newest.set(key, o.revision);
          lastUsed.set(key, step);
        } else if (o.kind === 'delete') {
          cache.delete(d, id);
          newest.delete(key);
          lastUsed.delete(key);
        } else {
          const got = cache.get(d, id);
          if (got) {
            expect(got.revision).toBe(newest.get(key));
            expect(got.state).toEqual({ revision: got.revision });
            lastUsed.set(key, step);
          } else {
            // only an entry untouched by the last max/2 distinct uses may have been dropped
            const since = [...lastUsed.entries()].filter(([, at]) => at > (lastUsed.get(key) ?? -1)).length;
            expect(!newest.has(key) || since >= max / 2 - 1).toBe(true);
            newest.delete(key); // forgotten: an older state may be set again
            lastUsed.delete(key);
          }
        }
      });
    },
  );
});
