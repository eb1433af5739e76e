import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { longIds, shortIds, storedStreamId, streamIdForms } from '../../src/store/postgres-stream-ids.ts';
import { shortOfUuid } from '../../src/store/short-uuids.ts';

const uuid = fc.uuid();
/** Stream ids as the service names them (a category, uuids, hashes, numbers), and any other text. */
const anyId = fc.oneof(
  uuid.map(u => `payment-${u}`),
  fc
    .tuple(uuid, fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 32, maxLength: 32 }))
    .map(([u, h]) => `order-${u}-${h}`),
  fc.tuple(uuid, fc.nat()).map(([u, n]) => `payable-${u}-${n}`),
  fc.tuple(uuid, uuid).map(([a, b]) => `${a}${b}`),
  uuid.map(u => u.toUpperCase()),
  fc.tuple(fc.string(), uuid, fc.string()).map(([a, u, b]) => `${a}${u}${b}`),
  fc.tuple(fc.string(), uuid).map(([a, u]) => `${a}~${u}`),
  fc.tuple(fc.string(), uuid).map(([a, u]) => `${a}~${shortOfUuid(u)}`),
  fc.string(),
);

describe('stream ids as es_events keeps them', () => {
  it('give back the id appended, whatever it holds', () => {
    fc.assert(
      fc.property(anyId, id => {
        const stored = (() => {
          try {
            return storedStreamId(id);
          } catch {
            return null; // refused: holds the short form's mark already (below)
          }
        })();
        if (stored === null) expect(longIds(id)).not.toBe(id);
        else expect(longIds(stored)).toBe(id);
      }),
      { numRuns: 3000 },
    );
  });

  it('keep each canonical uuid in 23 characters and the category before it, so a prefix finds both forms', () => {
    const id = 'order-5f0c6a0e-1d2b-4c3a-9e8f-7a6b5c4d3e2f-0123456789abcdef0123456789abcdef';
    expect(storedStreamId(id)).toBe('order-~XwxqDh0rTDqej3prXE0-Lw-0123456789abcdef0123456789abcdef');
    expect(storedStreamId('payment-5f0c6a0e-1d2b-4c3a-9e8f-7a6b5c4d3e2f')).toHaveLength(31);
    fc.assert(
      fc.property(uuid, u => {
        expect(storedStreamId(`payment-${u}`)).toBe(`payment-~${shortOfUuid(u)}`);
      }),
    );
  });

  it('keep a gateway ledger stream, an uppercase uuid and an id without a uuid as they are', () => {
    for (const id of [
      'gateway-5f0c6a0e-1d2b-4c3a-9e8f-7a6b5c4d3e2f',
      'payment-5F0C6A0E-1D2B-4C3A-9E8F-7A6B5C4D3E2F',
      'holiday-calendar',
    ])
      expect(streamIdForms(id)).toEqual({ stored: id, legacy: null });
  });

  it('name the long form of a stream that rows written before hold', () => {
    expect(streamIdForms('user-5f0c6a0e-1d2b-4c3a-9e8f-7a6b5c4d3e2f')).toEqual({
      stored: 'user-~XwxqDh0rTDqej3prXE0-Lw',
      legacy: 'user-5f0c6a0e-1d2b-4c3a-9e8f-7a6b5c4d3e2f',
    });
  });

  it('refuse an id that holds the short form already, and keep one with another `~` as it is', () => {
    expect(() => storedStreamId('user-~XwxqDh0rTDqej3prXE0-Lw')).toThrow(/holds "~"/);
    expect(storedStreamId('odd~5f0c6a0e-1d2b-4c3a-9e8f-7a6b5c4d3e2f')).toBe('odd~5f0c6a0e-1d2b-4c3a-9e8f-7a6b5c4d3e2f');
    expect(shortIds('a~b')).toBeNull();
  });

  it('read a text written before short ids as it is', () => {
    fc.assert(
      fc.property(fc.string(), s => {
        const before = s.replaceAll('~', '');
        expect(longIds(before)).toBe(before);
      }),
    );
  });
});
