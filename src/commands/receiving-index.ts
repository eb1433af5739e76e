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
  /**
   * each payment's rank in reservation order (increasing, with gaps where payables were released): the chunks keep
   * that order, so a release finds its payable's chunk by a binary search instead of a pass over every payable
   */
  ranks: Map<string, number>;
  nextRank: number;
};

type Chunks = readonly (readonly Payable[])[];

const indexes = new WeakMap<Chunks, PayablesIndex>();

const keyOf = (index: PayablesIndex, p: Payable) =>
  (p.vaNumber === null ? [index.totals, p.totalAmount] : [index.vaNumbers, p.vaNumber]) as [Map<unknown, Payable[]>, unknown];

function add(index: PayablesIndex, p: Payable): void {
  index.ids.set(p.paymentId, p);
  index.ranks.set(p.paymentId, index.nextRank++);
  const [map, key] = keyOf(index, p);
  map.set(key, [...(map.get(key) ?? []), p]);
}

function remove(index: PayablesIndex, p: Payable): void {
  index.ids.delete(p.paymentId);
  index.ranks.delete(p.paymentId);
  const [map, key] = keyOf(index, p);
  const rest = (map.get(key) ?? []).filter(q => q.paymentId !== p.paymentId);
  if (rest.length > 0) map.set(key, rest);
  else map.delete(key);
}

export function indexOf(chunks: Chunks): PayablesIndex {
  let index = indexes.get(chunks);
  if (!index) {
    index = { ids: new Map(), totals: new Map(), vaNumbers: new Map(), ranks: new Map(), nextRank: 0 };
    for (const chunk of chunks) for (const p of chunk) add(index, p);
    indexes.set(chunks, index);
  }
  return index;
}

/** Whether any of these payables (of one total or one VA number) is still held at `at`. */
export const heldBy = (payables: readonly Payable[] | undefined, at: string) => payables?.some(p => p.expiresAt > at) ?? false;

/** Where in `chunks` the chunk holding this payable is (-1: none holds it): a binary search by reservation rank. */
export function chunkIndexOf(chunks: Chunks, p: Payable): number {
  const { ranks } = indexOf(chunks);
  const rank = ranks.get(p.paymentId);
  if (rank === undefined) return -1;
  for (let low = 0, high = chunks.length - 1; low <= high; ) {
    const middle = (low + high) >> 1;
    const chunk = chunks[middle]!;
    if (rank < ranks.get(chunk[0]!.paymentId)!) high = middle - 1;
    else if (rank > ranks.get(chunk[chunk.length - 1]!.paymentId)!) low = middle + 1;
    else return chunk.includes(p) ? middle : -1;
  }
  return -1;
}

/** `next` is `previous` with `added` at the end, or without `removed`: previous's index, if built, becomes next's. */
export function moveIndex(previous: Chunks, next: Chunks, change: { added: Payable } | { removed: Payable }): void {
  const index = indexes.get(previous);
  if (!index) return;
  indexes.delete(previous);
  if ('added' in change) add(index, change.added);
  else remove(index, change.removed);
  indexes.set(next, index);
}
