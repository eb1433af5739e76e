/**
 * A completed gateway payment the merchant is owed for, not yet settled. `paidAt`: when the money moved (absent: a
 * credit from before the ledger kept it, or an allocation); it settles by that day, else by `completedAt`.
 */
export type UnsettledCredit = { paymentId: string; net: number; completedAt: string; paidAt?: string };

/** The instant a credit settles by: when its money moved, where the credit knows it. */
export const creditTime = (c: UnsettledCredit): string => c.paidAt ?? c.completedAt;

/** What a snapshot keeps: every payment ever credited, and the credits not settled yet, in chunks. */
export type CreditsJson = { credited: string[][]; unsettled: UnsettledCredit[][] };

type Chunk<T> = { readonly items: readonly T[]; readonly ids: ReadonlySet<string> };

// a credit copies one chunk (and the list of chunks), a lookup asks one set per chunk: both stay small for a busy merchant
const chunkSize = 256;

function appended<T>(chunks: readonly Chunk<T>[], item: T, id: string): Chunk<T>[] {
  const last = chunks[chunks.length - 1];
  if (!last || last.items.length >= chunkSize) return [...chunks, { items: [item], ids: new Set([id]) }];
  return [...chunks.slice(0, -1), { items: [...last.items, item], ids: new Set([...last.ids, id]) }];
}

function chunked<T>(items: readonly T[], idOf: (item: T) => string): Chunk<T>[] {
  const chunks: Chunk<T>[] = [];
  for (let i = 0; i < items.length; i += chunkSize) {
    const slice = items.slice(i, i + chunkSize);
    chunks.push({ items: slice, ids: new Set(slice.map(idOf)) });
  }
  return chunks;
}

/**
 * The credits of one merchant's ledger, as an immutable value (every change answers a new Credits): the ids of every
 * payment credited (crediting one twice books nothing) and the credits still pending settlement. A busy merchant is
 * credited many thousand times, so both are kept in chunks: a credit costs one chunk's copy, not a pass over all.
 */
export class Credits {
  private constructor(
    private readonly credited: readonly Chunk<string>[],
    private readonly pending: readonly Chunk<UnsettledCredit>[],
    /** the sum of the unsettled credits' nets */
    readonly unsettledTotal: number,
  ) {}

  static readonly none = new Credits([], [], 0);

  static fromJSON(json: CreditsJson): Credits {
    const unsettled = json.unsettled.flat();
    return new Credits(
      chunked(json.credited.flat(), id => id),
      chunked(unsettled, c => c.paymentId),
      unsettled.reduce((sum, c) => sum + c.net, 0),
    );
  }

  toJSON(): CreditsJson {
    return { credited: this.credited.map(c => [...c.items]), unsettled: this.pending.map(c => [...c.items]) };
  }

  /** How many payments were ever credited (the state's size, for its snapshots). */
  get size(): number {
    return this.credited.reduce((n, c) => n + c.items.length, 0);
  }

  has(paymentId: string): boolean {
    return this.credited.some(c => c.ids.has(paymentId));
  }

  add(credit: UnsettledCredit): Credits {
    return new Credits(
      appended(this.credited, credit.paymentId, credit.paymentId),
      appended(this.pending, credit, credit.paymentId),
      this.unsettledTotal + credit.net,
    );
  }

  /** Every credit not settled yet, in the order they were credited. */
  unsettled(): UnsettledCredit[] {
    return ([] as UnsettledCredit[]).concat(...this.pending.map(c => c.items));
  }

  /** The unsettled credits of payments paid (else completed) before `cutoff` (ISO instant). */
  dueBefore(cutoff: string): UnsettledCredit[] {
    const before = Date.parse(cutoff);
    const due: UnsettledCredit[] = [];
    for (const chunk of this.pending) for (const c of chunk.items) if (Date.parse(creditTime(c)) < before) due.push(c);
    return due;
  }

  /** These payments' credits are settled: they leave the unsettled list (they stay credited). */
  settle(paymentIds: readonly string[]): Credits {
    const settled = new Set(paymentIds);
    const left = this.unsettled().filter(c => !settled.has(c.paymentId));
    return new Credits(
      this.credited,
      chunked(left, c => c.paymentId),
      left.reduce((sum, c) => sum + c.net, 0),
    );
  }
}
