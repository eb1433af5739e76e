import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { uuidv7 } from '../src/ids.ts';

test.prop([fc.array(fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 }), { minLength: 2, maxLength: 50 })])(
  'UUIDv7 ids are valid version-7 UUIDs, in increasing order for non-decreasing times',
  times => {
    const sorted = [...times].sort((a, b) => a - b).map(t => t + 2_000_000_000_000); // later than any id made before
    const ids = sorted.map(t => uuidv7(t));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
  },
);

test('UUIDv7 ids made in a burst (past one refill of the random pool, many per millisecond) are all different', () => {
  const ids = Array.from({ length: 5000 }, () => uuidv7());
  expect(new Set(ids).size).toBe(ids.length);
  expect(new Set(ids.map(id => id.slice(19))).size).toBeGreaterThan(4990); // the random part is random, not repeated
});
