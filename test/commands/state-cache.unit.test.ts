import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { stateCache } from '../../src/store/commands/state-cache.ts';

const decider = {};
const op = fc.oneof(
  fc.record({
    kind: fc.constant('set' as const),
    stream: fc.integer({ min: 0, max: 30 }),
    revision: fc.integer({ min: 0, max: 20 }),
  }),
  fc.record({ kind: fc.constant('get' as const), stream: fc.integer({ min: 0, max: 30 }) }),
  fc.record({ kind: fc.constant('delete' as const), stream: fc.integer({ min: 0, max: 30 }) }),
);

describe('state cache', () => {
  test.prop([fc.array(op, { maxLength: 300 })])(
    'answers the newest state set for a stream or nothing, keeps what was used within half its size, and forgets deletions',
    ops => {
      const max = 10;
      const cache = stateCache(max);
      const newest = new Map<number, number>(); // the model: the newest revision set since the last delete
      const lastUsed = new Map<number, number>();
      ops.forEach((o, step) => {
        const id = `s-${o.stream}`;
        if (o.kind === 'set') {
          cache.set(decider, id, o.revision, { revision: o.revision });
          if ((newest.get(o.stream) ?? -1) <= o.revision) newest.set(o.stream, o.revision);
          lastUsed.set(o.stream, step);
        } else if (o.kind === 'delete') {
          cache.delete(decider, id);
          newest.delete(o.stream);
          lastUsed.delete(o.stream);
        } else {
          const got = cache.get(decider, id);
          if (got) {
            expect(got.revision).toBe(newest.get(o.stream));
            expect(got.state).toEqual({ revision: got.revision });
            lastUsed.set(o.stream, step);
          } else {
            // only an entry untouched by the last max/2 distinct uses may have been dropped
            const since = [...lastUsed.entries()].filter(([, at]) => at > (lastUsed.get(o.stream) ?? -1)).length;
            expect(!newest.has(o.stream) || since >= max / 2 - 1).toBe(true);
            newest.delete(o.stream); // forgotten: an older state may be set again
            lastUsed.delete(o.stream);
          }
        }
      });
    },
  );
});
