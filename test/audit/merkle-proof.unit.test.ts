import { createHash } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendLeaf, rootOf, type Frontier } from '../../src/audit/merkle.ts';
import { auditPath, rootFromPath } from '../../src/audit/merkle-proof.ts';

const verifier = path.resolve(import.meta.dirname, '../../docs/verify-proof.mjs');
const script = (await import(pathToFileURL(verifier).href)) as {
  rootFromPath(leaf: string, m: number, n: number, path: string[]): string | null;
};

const leafOf = (i: number) => createHash('sha256').update(`leaf ${i}`).digest('hex');
const treeOf = (n: number) => {
  const leaves = Array.from({ length: n }, (_, i) => leafOf(i));
  let frontier: Frontier = [];
  for (const l of leaves) frontier = appendLeaf(frontier, l);
  return { leaves, root: rootOf(frontier) };
};
const tree = fc.integer({ min: 1, max: 300 }).chain(n => fc.record({ n: fc.constant(n), m: fc.nat(n - 1) }));

describe('Merkle audit paths (RFC 6962)', () => {
  it("make the tree's root from any leaf, in the service and in docs/verify-proof.mjs", () => {
    fc.assert(
      fc.property(tree, ({ n, m }) => {
        const { leaves, root } = treeOf(n);
        const proof = auditPath(leaves, m);
        expect(proof.length).toBeLessThanOrEqual(Math.ceil(Math.log2(n)));
        expect(rootFromPath(leaves[m]!, m, n, proof)).toBe(root);
        expect(script.rootFromPath(leaves[m]!, m, n, proof)).toBe(root);
      }),
    );
  });

  it('make another root from another leaf, another index, a changed node or a path of another size', () => {
    fc.assert(
      fc.property(tree, fc.nat(), ({ n, m }, k) => {
        fc.pre(n > 1);
        const { leaves, root } = treeOf(n);
        const proof = auditPath(leaves, m);
        const other = (m + 1 + (k % (n - 1))) % n;
        for (const check of [rootFromPath, script.rootFromPath]) {
          expect(check(leaves[other]!, m, n, proof)).not.toBe(root);
          expect(check(leaves[m]!, other, n, proof)).not.toBe(root);
          const bent = proof.map((p, i) => (i === k % proof.length ? leafOf(-1) : p));
          expect(check(leaves[m]!, m, n, bent)).not.toBe(root);
          expect(check(leaves[m]!, m, n, [...proof, leafOf(-2)])).toBeNull();
        }
      }),
    );
  });
});
