import { createHash } from 'node:crypto';
import { appendLeaf, rootOf, type Frontier } from './merkle.ts';

/**
 * Inclusion proofs (RFC 6962 section 2.1.1, "Merkle audit paths"; verified as RFC 9162 section 2.1.3.2 does) over the
 * tree merkle.ts builds: the hashes beside the path from one leaf up to the root, enough for anyone holding the leaf and
 * the signed root to recompute the root, without the other leaves.
 */

/** The root of leaf hashes (hex), as merkle.ts makes it. */
function rootOfLeaves(leaves: readonly string[]): string {
  let frontier: Frontier = [];
  for (const leaf of leaves) frontier = appendLeaf(frontier, leaf);
  return rootOf(frontier);
}

/** The largest power of two below n (n > 1): where the tree splits. */
const split = (n: number) => {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
};

/** PATH(m, D[n]): the audit path of leaf `m` among `leaves` (hex leaf hashes), from the leaf's side up. */
export function auditPath(leaves: readonly string[], m: number): string[] {
  if (m < 0 || m >= leaves.length) throw new RangeError(`leaf ${m} is not among ${leaves.length}`);
  if (leaves.length === 1) return [];
  const k = split(leaves.length);
  return m < k
    ? [...auditPath(leaves.slice(0, k), m), rootOfLeaves(leaves.slice(k))]
    : [...auditPath(leaves.slice(k), m - k), rootOfLeaves(leaves.slice(0, k))];
}

const node = (left: string, right: string) =>
  createHash('sha256')
    .update(Buffer.from([1]))
    .update(Buffer.from(left, 'hex'))
    .update(Buffer.from(right, 'hex'))
    .digest('hex');

/** The root that leaf `m` of a tree of `n` leaves makes with its audit path; null when the path cannot be one. */
export function rootFromPath(leaf: string, m: number, n: number, path: readonly string[]): string | null {
  if (m < 0 || m >= n) return null;
  let [fn, sn, r] = [m, n - 1, leaf];
  for (const p of path) {
    if (sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      r = node(p, r);
      if (fn % 2 === 0) while (fn % 2 === 0 && fn !== 0) [fn, sn] = [fn >> 1, sn >> 1];
    } else r = node(r, p);
    [fn, sn] = [fn >> 1, sn >> 1];
  }
  return sn === 0 ? r : null;
}
