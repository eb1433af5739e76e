/** A payable amount a pending payment holds on its receiving account, until the payment expires. */
export type Payable = {
  paymentId: string;
  uniqueCode: number;
  totalAmount: number;
  vaNumber: string | null;
  expiresAt: string;
};

/** What a snapshot keeps: the payables in reservation order (in chunks) and when lapsed ones were last dropped. */
export type PayablesJson = { chunks: Payable[][]; droppedAt: string | null };

export type Credit = { amount: number; reference: string | null; occurredAt: string };

type Chunks = readonly (readonly Payable[])[];

/** Lookups by payment id and by VA number (usually one payable each), and each payment's reservation rank. */
type Index = {
  ids: Map<string, Payable>;
  vaNumbers: Map<string, Payable[]>;
  /** how many of the numbers have each length: a reference's substrings of those lengths are what to look up */
  vaLengths: Map<number, number>;
  /** increasing in reservation order, with gaps where payables were released: the chunks keep that order */
  ranks: Map<string, number>;
  nextRank: number;
};

const chunkSize = 64;

/**
 * Lapsed payables are dropped at most once a minute. Under a steady stream of payments the oldest lapses at nearly every
 * reservation, and dropping them each time was a pass over every pending payable per payment (docs/performance.md,
 * "A busy account's payables"). Until then a lapsed payable holds nothing: lookups compare expiresAt.
 */
const dropLapsedEveryMs = 60_000;

/**
 * The payables of one receiving account, as an immutable value: every change answers a new Payables. A busy account
 * holds thousands, so they are kept in chunks of 64 (a reservation or a release copies one chunk and the list of
 * chunks) with lookups that a change moves on to the value it makes, in O(1), instead of a pass over every payable.
 * The lookups derive from the payables alone (never snapshotted; built again when a snapshot is read), so a value
 * answers the same whether they were built or moved.
 */
export class Payables {
  private constructor(
    private readonly chunks: Chunks,
    /** when lapsed payables were last dropped */
    readonly droppedAt: string | null,
    private index: Index | null,
  ) {}

  static readonly none = new Payables([], null, null);

  static fromJSON(json: PayablesJson): Payables {
    const payables = new Payables(json.chunks, json.droppedAt, null);
    payables.lookups();
    return payables;
  }

  toJSON(): PayablesJson {
    return { chunks: this.chunks as Payable[][], droppedAt: this.droppedAt };
  }

  get size(): number {
    return this.chunks.reduce((n, chunk) => n + chunk.length, 0);
  }

  /** Every payable, lapsed or not, in reservation order (a pass over all of them). */
  all(): Payable[] {
    return this.chunks.flat();
  }

  /** The payables still held at `at`: a payable lapses with its payment's expiry even before it is released. */
  heldAt(at: string): Payable[] {
    return this.all().filter(p => p.expiresAt > at);
  }

  /** The payable a payment holds (lapsed or not), if the account still keeps it. */
  find(paymentId: string): Payable | undefined {
    return this.lookups().ids.get(paymentId);
  }

  /** Whether a payable on this virtual-account number is still held at `at`. */
  vaNumberHeld(vaNumber: string, at: string): boolean {
    return heldBy(this.lookups().vaNumbers.get(vaNumber), at);
  }

  /** With `added` last; lapsed payables are dropped too when the last drop is a minute old. */
  reserve(added: Payable, at: string): Payables {
    if (
      this.chunks.length > 0 &&
      (this.droppedAt === null || Date.parse(at) - Date.parse(this.droppedAt) >= dropLapsedEveryMs)
    ) {
      return new Payables(chunked([...this.heldAt(at), added]), at, null);
    }
    const last = this.chunks.at(-1);
    const chunks =
      !last || last.length >= chunkSize ? [...this.chunks, [added]] : [...this.chunks.slice(0, -1), [...last, added]];
    return this.succeededBy(chunks, index => add(index, added));
  }

  /** Without the payable of this payment (the same value when it holds none). */
  release(paymentId: string): Payables {
    const removed = this.find(paymentId);
    const at = removed ? this.chunkOf(removed) : -1;
    if (!removed || at < 0) return this;
    const rest = this.chunks[at]!.filter(p => p !== removed);
    const chunks = this.chunks.slice();
    if (rest.length > 0) chunks[at] = rest;
    else chunks.splice(at, 1);
    return this.succeededBy(chunks, index => remove(index, removed));
  }

  /**
   * The virtual-account payables whose number the credit's reference carries and whose total it equals (lapsed or
   * not), in reservation order: found by number, not by a pass over every payable.
   */
  carriedBy(credit: Credit): readonly Payable[] {
    const index = this.lookups();
    const reference = credit.reference ?? '';
    const numbers = reference === '' ? [] : numbersIn(reference, index);
    // two numbers in one reference: their payables in reservation order, as one pass would meet them
    const carried =
      numbers.length <= 1
        ? numbers.flatMap(n => index.vaNumbers.get(n)!)
        : this.all().filter(p => p.vaNumber !== null && numbers.includes(p.vaNumber));
    return carried.filter(p => p.totalAmount === credit.amount);
  }

  private lookups(): Index {
    return (this.index ??= indexOf(this.chunks));
  }

  /** The next value, which takes this one's lookups over (moved by `change`); this one builds them again if asked. */
  private succeededBy(chunks: Chunks, change: (index: Index) => void): Payables {
    const index = this.index;
    this.index = null;
    if (index) change(index);
    return new Payables(chunks, this.droppedAt, index);
  }

  /** Which chunk holds this payable (-1: none): a binary search by reservation rank. */
  private chunkOf(p: Payable): number {
    const { ranks } = this.lookups();
    const rank = ranks.get(p.paymentId);
    if (rank === undefined) return -1;
    for (let low = 0, high = this.chunks.length - 1; low <= high;) {
      const middle = (low + high) >> 1;
      const chunk = this.chunks[middle]!;
      if (rank < ranks.get(chunk[0]!.paymentId)!) high = middle - 1;
      else if (rank > ranks.get(chunk[chunk.length - 1]!.paymentId)!) low = middle + 1;
      else return chunk.includes(p) ? middle : -1;
    }
    return -1;
  }
}

const heldBy = (payables: readonly Payable[] | undefined, at: string) => payables?.some(p => p.expiresAt > at) ?? false;

const chunked = (payables: Payable[]): Payable[][] =>
  Array.from({ length: Math.ceil(payables.length / chunkSize) }, (_, i) =>
    payables.slice(i * chunkSize, (i + 1) * chunkSize),
  );

function indexOf(chunks: Chunks): Index {
  const index: Index = { ids: new Map(), vaNumbers: new Map(), vaLengths: new Map(), ranks: new Map(), nextRank: 0 };
  for (const chunk of chunks) for (const p of chunk) add(index, p);
  return index;
}

// a unique-code bill (no number) kept from before claims is found by its payment id alone
function add(index: Index, p: Payable): void {
  index.ids.set(p.paymentId, p);
  index.ranks.set(p.paymentId, index.nextRank++);
  if (p.vaNumber === null) return;
  const held = index.vaNumbers.get(p.vaNumber);
  if (!held) index.vaLengths.set(p.vaNumber.length, (index.vaLengths.get(p.vaNumber.length) ?? 0) + 1);
  index.vaNumbers.set(p.vaNumber, [...(held ?? []), p]);
}

function remove(index: Index, p: Payable): void {
  index.ids.delete(p.paymentId);
  index.ranks.delete(p.paymentId);
  if (p.vaNumber === null) return;
  const rest = (index.vaNumbers.get(p.vaNumber) ?? []).filter(q => q.paymentId !== p.paymentId);
  if (rest.length > 0) return void index.vaNumbers.set(p.vaNumber, rest);
  if (!index.vaNumbers.delete(p.vaNumber)) return;
  const left = (index.vaLengths.get(p.vaNumber.length) ?? 1) - 1;
  if (left > 0) index.vaLengths.set(p.vaNumber.length, left);
  else index.vaLengths.delete(p.vaNumber.length);
}

/**
 * The pending numbers a credit's reference carries, as `reference.includes(number)` would find them, without a pass
 * over the numbers: each substring of the reference as long as some number is looked up (a reference is short, and
 * the numbers have a few lengths).
 */
function numbersIn(reference: string, index: Index): string[] {
  const found = new Set<string>();
  for (const length of index.vaLengths.keys())
    for (let start = 0; start + length <= reference.length; start++) {
      const candidate = reference.slice(start, start + length);
      if (index.vaNumbers.has(candidate)) found.add(candidate);
    }
  return [...found];
}
