import type { Payable } from './receiving.ts';

/**
 * Lookups over one receiving account's payables (a busy account holds thousands): by payment id, and the payables per
 * total and per virtual-account number (usually one each, in reservation order). Built once per list of chunks and
 * moved on to the next list when that one only adds or removes a payable, so a reservation or a release costs O(1)
 * instead of a pass over every pending payment. A state still holding the old list gets a fresh index if it is asked
 * again. Derived from the payables alone, so a state decides the same whether its index was built or moved (not part
 * of the state, not snapshotted).
 */
export type PayablesIndex = {
  ids: Map<string, Payable>;
  totals: Map<number, Payable[]>;
  vaNumbers: Map<string, Payable[]>;
  /** the chunk that holds each payment's payable: a release finds its chunk without a pass over every payable */
  chunkOf: Map<string, Chunk>;
};

type Chunk = readonly Payable[];
type Chunks = readonly Chunk[];

const indexes = new WeakMap<Chunks, PayablesIndex>();

const keyOf = (index: PayablesIndex, p: Payable) =>
  (p.vaNumber === null ? [index.totals, p.totalAmount] : [index.vaNumbers, p.vaNumber]) as [Map<unknown, Payable[]>, unknown];

function add(index: PayablesIndex, p: Payable): void {
  index.ids.set(p.paymentId, p);
  const [map, key] = keyOf(index, p);
  map.set(key, [...(map.get(key) ?? []), p]);
}

function remove(index: PayablesIndex, p: Payable): void {
  index.ids.delete(p.paymentId);
  const [map, key] = keyOf(index, p);
  const rest = (map.get(key) ?? []).filter(q => q.paymentId !== p.paymentId);
  if (rest.length > 0) map.set(key, rest);
  else map.delete(key);
}

export function indexOf(chunks: Chunks): PayablesIndex {
  let index = indexes.get(chunks);
  if (!index) {
    index = { ids: new Map(), totals: new Map(), vaNumbers: new Map(), chunkOf: new Map() };
    for (const chunk of chunks)
      for (const p of chunk) {
        add(index, p);
        index.chunkOf.set(p.paymentId, chunk);
      }
    indexes.set(chunks, index);
  }
  return index;
}

/** Whether any of these payables (of one total or one VA number) is still held at `at`. */
export const heldBy = (payables: readonly Payable[] | undefined, at: string) => payables?.some(p => p.expiresAt > at) ?? false;

/** Where in `chunks` the chunk holding this payable is (-1: none holds it). */
export function chunkIndexOf(chunks: Chunks, p: Payable): number {
  const chunk = indexOf(chunks).chunkOf.get(p.paymentId);
  return chunk ? chunks.indexOf(chunk) : -1;
}

/**
 * `next` is `previous` with `added` at the end, or without `removed`; `chunk` is the copied chunk that replaced the
 * one that changed (none when that one was emptied and left out). previous's index, if built, becomes next's.
 */
export function moveIndex(previous: Chunks, next: Chunks, change: ({ added: Payable } | { removed: Payable }) & { chunk: Chunk | null }): void {
  const index = indexes.get(previous);
  if (!index) return;
  indexes.delete(previous);
  if ('added' in change) add(index, change.added);
  else {
    remove(index, change.removed);
    index.chunkOf.delete(change.removed.paymentId);
  }
  if (change.chunk) for (const p of change.chunk) index.chunkOf.set(p.paymentId, change.chunk);
  indexes.set(next, index);
}
