import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { snapshotInterval } from '../../src/store/commands/handle.ts';

describe('snapshot interval', () => {
  test.prop([
    fc.integer({ min: 1, max: 1000 }),
    fc.option(fc.integer({ min: 0, max: 10_000_000 }), { nil: undefined }),
  ])('is `every` doubled until it holds the state: the smallest every × 2^k at least the size', (every, size) => {
    const interval = snapshotInterval({ every, size: size === undefined ? undefined : () => size }, {});
    const k = Math.log2(interval / every);
    expect(Number.isInteger(k)).toBe(true);
    expect(interval).toBeGreaterThanOrEqual(size ?? 0);
    if (k > 0) expect(interval / 2).toBeLessThan(size!);
  });
});
