import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { z } from 'zod';
import { isQueryDate, maxPage, pageNumber, periodFrom, queryDate } from '../../src/api/query-params.ts';

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const isLeap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
/** Days in a month, counted without Date: the oracle the parser is held to. */
const daysIn = (y: number, m: number) => [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;

/** Any YYYY-MM-DD, real or not: every year, months 0-99 and days 0-99. */
const written = fc
  .record({
    y: fc.integer({ min: 0, max: 9999 }),
    m: fc.integer({ min: 0, max: 99 }),
    d: fc.integer({ min: 0, max: 99 }),
  })
  .map(({ y, m, d }) => ({ y, m, d, text: `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}` }));

/** The JSON Schema a query's date is documented with. */
const documented = z.toJSONSchema(queryDate()) as { pattern: string; format: string };

describe('a date in a query', () => {
  test.prop([written])(
    'is taken exactly when it is a real calendar date in the years 2000 to 2100',
    ({ y, m, d, text }) => {
      const real = m >= 1 && m <= 12 && d >= 1 && d <= daysIn(y, m);
      expect(isQueryDate(text)).toBe(real && y >= 2000 && y <= 2100);
      expect(queryDate().safeParse(text).success).toBe(isQueryDate(text));
    },
  );

  test.prop([fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 11, 31) })])(
    'every day from 2000-01-01 to 2100-12-31 is taken',
    at => {
      expect(isQueryDate(new Date(at).toISOString().slice(0, 10))).toBe(true);
    },
  );

  test.prop([written])('the document refuses none of what the service takes', ({ text }) => {
    expect(documented.format).toBe('date');
    if (isQueryDate(text)) expect(text).toMatch(new RegExp(documented.pattern));
  });

  test.prop([fc.string()])('any other text is refused, and a period never holds an Invalid Date', text => {
    const parsed = periodFrom('WIB').safeParse(text);
    if (parsed.success) expect(Number.isNaN(parsed.data.getTime())).toBe(false);
    if (!/^\d{4}-\d{2}-\d{2}/.test(text)) expect(parsed.success).toBe(false);
  });
});

describe('a page number in a query', () => {
  test.prop([fc.oneof(fc.integer({ min: -10, max: maxPage + 10 }).map(String), fc.string(), fc.double().map(String))])(
    'is taken exactly when it is a whole number from 1 to 1,000,000',
    text => {
      const n = Number(text);
      const whole = text.trim() !== '' && Number.isInteger(n) && n >= 1 && n <= maxPage;
      expect(pageNumber.safeParse(text).success).toBe(whole);
    },
  );
});
