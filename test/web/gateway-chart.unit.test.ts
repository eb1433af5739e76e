import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { balanceAxis } from '../../src/web/pages/gateway-chart.ts';

const rupiah = fc.integer({ min: -2_000_000_000, max: 2_000_000_000 });

describe("the statement chart's rupiah axis", () => {
  test.prop([fc.array(rupiah, { minLength: 1, maxLength: 60 })])(
    'holds every value and 0, in a few round steps of 1, 2 or 5 times a power of ten',
    values => {
      const axis = balanceAxis(values);
      if (values.every(v => v === 0)) {
        // a property passes by returning nothing (or true); an assertion returned would fail it
        expect(axis).toBeNull();
        return;
      }
      const { low, high, ticks } = axis!;
      expect(low).toBeLessThanOrEqual(Math.min(0, ...values));
      expect(high).toBeGreaterThanOrEqual(Math.max(0, ...values));
      expect([ticks[0], ticks.at(-1)]).toEqual([low, high]);
      expect(ticks).toContain(0);
      expect(ticks.length).toBeGreaterThanOrEqual(2);
      expect(ticks.length).toBeLessThanOrEqual(6);
      const step = ticks[1]! - ticks[0]!;
      expect(ticks.every((t, i) => Number.isSafeInteger(t) && t === low + i * step)).toBe(true);
      expect(String(step)).toMatch(/^[125]0*$/);
    },
  );

  it('has nothing to draw when every value is 0', () => expect(balanceAxis([0, 0])).toBeNull());
  it('labels a small balance in whole rupiah', () => expect(balanceAxis([0, 3])!.ticks).toEqual([0, 1, 2, 3]));
});
