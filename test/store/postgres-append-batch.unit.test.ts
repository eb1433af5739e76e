import { createRequire } from 'node:module';
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { arrayLiteral } from '../../src/store/postgres-append-batch.ts';

// node-postgres' own conversion of a parameter, which the append's arrays used to go through
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue(v: unknown): unknown };

describe("the append's array parameters", () => {
  test.prop([
    fc.array(
      fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('"', '\\', '\\"', ',', '{}', 'a b'), fc.integer()),
    ),
  ])('are the literal node-postgres makes of the same array, quotes and backslashes escaped', values => {
    expect(arrayLiteral(values)).toBe(prepareValue(values));
  });
});
