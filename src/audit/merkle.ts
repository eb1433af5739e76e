import { createHash } from 'node:crypto';

/**
 * A Merkle tree over a day's events, as RFC 6962 (Certificate Transparency) defines it: a leaf's hash is
 * SHA-256(0x00 || leaf), a node's SHA-256(0x01 || left || right), and n leaves split at the largest power of two below
 * n. It is built as events come, keeping only the roots of its perfect subtrees (the frontier: at most one per bit of
 * the count), so a day of a million events costs twenty hashes of memory; its root is the same as the whole tree's.
 */
export type Frontier = { size: number; hash: string }[];

const sha256 = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();

const leafPrefix = Buffer.from([0]);

export const leafHash = (leaf: string): string =>
  createHash('sha256').update(leafPrefix).update(leaf, 'utf8').digest('hex');

/** The same as 32 bytes. */
export const leafBytes = (leaf: string): Buffer =>
  createHash('sha256').update(leafPrefix).update(leaf, 'utf8').digest();

const nodePrefix = Buffer.from([1]);

const nodeHash = (left: string, right: string): string =>
  sha256(nodePrefix, Buffer.from(left, 'hex'), Buffer.from(right, 'hex')).toString('hex');

/** The frontier after one more leaf (given as its leaf hash): perfect subtrees of equal size merge, as a binary count carries. */
export function appendLeaf(frontier: Frontier, hash: string): Frontier {
  const next = [...frontier, { size: 1, hash }];
  while (next.length >= 2 && next[next.length - 1]!.size === next[next.length - 2]!.size) {
    const right = next.pop()!;
    const left = next.pop()!;
    next.push({ size: left.size * 2, hash: nodeHash(left.hash, right.hash) });
  }
  return next;
}

/** A frontier as bytes, for taking many leaves in at once: no hex text per hash until it is stored. */
export type ByteFrontier = { size: number; hash: Buffer }[];

export const frontierBytes = (frontier: Frontier): ByteFrontier =>
  frontier.map(f => ({ size: f.size, hash: Buffer.from(f.hash, 'hex') }));

export const frontierText = (frontier: ByteFrontier): Frontier =>
  frontier.map(f => ({ size: f.size, hash: f.hash.toString('hex') }));

/** appendLeaf in place over bytes, for a batch of leaves taken in at once: the leaf hash is the 32 bytes of `hashes` from `offset`. */
export function pushLeafBytes(frontier: ByteFrontier, hashes: Uint8Array, offset: number): void {
  frontier.push({ size: 1, hash: Buffer.from(hashes.buffer, hashes.byteOffset + offset, 32) });
  while (frontier.length >= 2 && frontier[frontier.length - 1]!.size === frontier[frontier.length - 2]!.size) {
    const right = frontier.pop()!;
    const left = frontier.pop()!;
    frontier.push({
      size: left.size * 2,
      hash: createHash('sha256').update(nodePrefix).update(left.hash).update(right.hash).digest(),
    });
  }
}

/** The tree's root: the perfect subtrees joined from the smallest (rightmost) up; the empty tree's is SHA-256 of nothing. */
export function rootOf(frontier: Frontier): string {
  if (frontier.length === 0) return sha256().toString('hex');
  let root = frontier[frontier.length - 1]!.hash;
  for (let i = frontier.length - 2; i >= 0; i--) root = nodeHash(frontier[i]!.hash, root);
  return root;
}

/**
 * JSON with every object's keys sorted: the same value gives the same text whatever order its keys were stored in.
 * Keys sort by UTF-16 code units (sort's own order for strings); an undefined value leaves its key out. Leaves are
 * hashed from this text, so it never changes; it is built in one pass over each object's keys, without the pairs,
 * filtered and mapped copies a chain of array methods makes.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    const keys = Object.keys(object).sort();
    let text = '';
    for (const key of keys) {
      const v = object[key];
      if (v !== undefined) text += `${text === '' ? '' : ','}${JSON.stringify(key)}:${canonicalJson(v)}`;
    }
    return `{${text}}`;
  }
  return JSON.stringify(value);
}
