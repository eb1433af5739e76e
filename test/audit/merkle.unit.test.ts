import { createHash } from 'node:crypto';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  appendLeaf,
  canonicalJson,
  frontierBytes,
  frontierText,
  leafBytes,
  leafHash,
  pushLeafBytes,
  rootOf,
  type Frontier,
} from '../../src/audit/merkle.ts';

/** RFC 6962's Merkle Tree Hash, written as the RFC says it, recursively over all the leaves. */
function mth(leaves: string[]): string {
  const h = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();
  const go = (d: string[]): Buffer => {
    if (d.length === 0) return h();
    if (d.length === 1) return h(Buffer.from([0]), Buffer.from(d[0]!, 'utf8'));
    let k = 1;
    while (k * 2 < d.length) k *= 2;
    return h(Buffer.from([1]), go(d.slice(0, k)), go(d.slice(k)));
  };
  return go(leaves).toString('hex');
}

const built = (leaves: string[]) => leaves.reduce<Frontier>((f, leaf) => appendLeaf(f, leafHash(leaf)), []);

describe('the day digest tree', () => {
  test.prop([fc.array(fc.string(), { maxLength: 70 })])(
    'built leaf by leaf, has the root of RFC 6962 over all its leaves',
    leaves => {
      expect(rootOf(built(leaves))).toBe(mth(leaves));
    },
  );

  test.prop([fc.array(fc.string(), { minLength: 1, maxLength: 40 }), fc.nat(), fc.string()])(
    'changes its root when any leaf changes',
    (leaves, at, other) => {
      const i = at % leaves.length;
      fc.pre(other !== leaves[i]);
      const changed = leaves.map((l, j) => (j === i ? other : l));
      expect(rootOf(built(changed))).not.toBe(rootOf(built(leaves)));
    },
  );

  test.prop([fc.array(fc.string(), { minLength: 1, maxLength: 40 }), fc.nat()])(
    'changes its root when a leaf is removed or two swap',
    (leaves, at) => {
      const i = at % leaves.length;
      expect(rootOf(built(leaves.filter((_, j) => j !== i)))).not.toBe(rootOf(built(leaves)));
      if (i + 1 < leaves.length && leaves[i] !== leaves[i + 1]) {
        const swapped = [...leaves];
        [swapped[i], swapped[i + 1]] = [swapped[i + 1]!, swapped[i]!];
        expect(rootOf(built(swapped))).not.toBe(rootOf(built(leaves)));
      }
    },
  );

  test.prop([fc.array(fc.string(), { maxLength: 70 }), fc.array(fc.string(), { maxLength: 70 })])(
    'taken in as bytes, a batch after a stored frontier, is the same tree',
    (before, batch) => {
      const bytes = frontierBytes(built(before));
      const hashes = Buffer.concat(batch.map(leafBytes));
      for (let i = 0; i < batch.length; i++) pushLeafBytes(bytes, hashes, 32 * i);
      expect(frontierText(bytes)).toEqual(built([...before, ...batch]));
    },
  );

  it('keeps one subtree per bit of its size', () => {
    expect(built(Array.from({ length: 1000 }, (_, i) => String(i))).map(s => s.size)).toEqual([
      512, 256, 128, 64, 32, 8,
    ]);
  });

  test.prop([fc.jsonValue()])('writes JSON canonically: the same value in any key order gives the same text', value => {
    const shuffled = JSON.parse(JSON.stringify(value), (_k, v) =>
      v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
    );
    expect(canonicalJson(shuffled)).toBe(canonicalJson(value));
    expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
  });

  // the text every leaf so far was hashed from, as its first definition wrote it: checkpoints made with it still verify
  const firstCanonicalJson = (value: unknown): string => {
    if (Array.isArray(value)) return `[${value.map(firstCanonicalJson).join(',')}]`;
    if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${firstCanonicalJson(v)}`).join(',')}}`;
    }
    return JSON.stringify(value);
  };

  test.prop([fc.anything({ withNullPrototype: true, withObjectString: true, withBoxedValues: true })])(
    'writes the same text as its first definition, for any value',
    value => {
      expect(canonicalJson(value)).toBe(firstCanonicalJson(value));
    },
  );
});
