import type { Payable } from './receiving.ts';

/**
 * Lookups over one receiving account's payables (a busy account holds thousands): payment ids, and the latest expiry per
 * payable total and per virtual-account number. Built once per payables array and, when the next array only adds one
 * payable, moved on to it and extended, so a reservation costs O(1) instead of a pass over every pending payment.
 * A state still holding the old array gets a fresh index if it is asked again. Not part of the state (not snapshotted).
 */
export type PayablesIndex = { ids: Set<string>; totals: Map<number, string>; vaNumbers: Map<string, string> };

const indexes = new WeakMap<readonly Payable[], PayablesIndex>();

function add(index: PayablesIndex, p: Payable): void {
  index.ids.add(p.paymentId);
  const [map, key] = p.vaNumber === null ? [index.totals as Map<unknown, string>, p.totalAmount] : [index.vaNumbers as Map<unknown, string>, p.vaNumber];
  if ((map.get(key) ?? '') < p.expiresAt) map.set(key, p.expiresAt);
}

export function indexOf(payables: readonly Payable[]): PayablesIndex {
  let index = indexes.get(payables);
  if (!index) {
    index = { ids: new Set(), totals: new Map(), vaNumbers: new Map() };
    for (const p of payables) add(index, p);
    indexes.set(payables, index);
  }
  return index;
}

/** `next` is `previous` with `added` at the end: previous's index, if built, becomes next's. */
export function moveIndex(previous: readonly Payable[], next: readonly Payable[], added: Payable): void {
  const index = indexes.get(previous);
  if (!index) return;
  indexes.delete(previous);
  add(index, added);
  indexes.set(next, index);
}
