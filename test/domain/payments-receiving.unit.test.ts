import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { PayableClaim } from '../../src/domain/payments-payable-claims.ts';
import { Payables, type Credit } from '../../src/domain/payments-payables.ts';
import { payableFor, type Payable, type Receiving } from '../../src/domain/payments-receiving.ts';

const accountId = '3c1d2b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const t0 = new Date('2026-03-02T03:00:00.000Z');
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000).toISOString();

/** The receiving stream of an account holding these payables, in reservation order. */
const onReceiving = (...payables: Payable[]): Receiving => ({
  accountId,
  payables: Payables.fromJSON({ chunks: payables.length ? [payables] : [], droppedAt: null }),
});
const claimedBy = (holder: Payable | null): PayableClaim => ({ holder });
const bill = (paymentId: string, totalAmount: number, vaNumber: string | null = null, expiresAt = at(60)): Payable => ({
  paymentId,
  uniqueCode: vaNumber ? 0 : 7,
  totalAmount,
  vaNumber,
  expiresAt,
});
const credit = (amount: number, reference: string | null = null): Credit => ({ amount, reference, occurredAt: at(0) });

describe('the payable a credit pays', () => {
  it("is the virtual account's bill its reference names before a claim on the same total", () => {
    const va = bill('va', 50_007, '8882000000000009');
    const matched = payableFor(credit(50_007, 'VA 8882000000000009'), onReceiving(va), claimedBy(bill('qr', 50_007)));
    expect(matched).toEqual(va);
  });

  it('is the claim on its total', () => {
    const claim = bill('claimed', 50_007);
    expect(payableFor(credit(50_007), onReceiving(), claimedBy(claim))).toEqual(claim);
  });

  it('is never a unique-code bill the receiving stream still holds from before claims (carried over to its claim)', () => {
    const claim = bill('lapsed', 50_007, null, at(-1));
    expect(payableFor(credit(50_007), onReceiving(bill('older', 50_007)), claimedBy(claim))).toEqual(claim);
    expect(payableFor(credit(50_007), onReceiving(bill('older', 50_007)), claimedBy(null))).toBeNull();
  });

  it("is a claim still held when the money was booked, before a virtual account's bill that had lapsed", () => {
    const claim = bill('claimed', 50_007);
    const va = bill('va', 50_007, '8882000000000009', at(-1));
    expect(payableFor(credit(50_007, '8882000000000009'), onReceiving(va), claimedBy(claim))).toEqual(claim);
  });

  it('is the first of them when none was held as the money was booked (its payment refuses it then)', () => {
    const va = bill('va', 50_007, '8882000000000009', at(-2));
    const lapsed = bill('lapsed', 50_007, null, at(-1));
    expect(payableFor(credit(50_007, '8882000000000009'), onReceiving(va), claimedBy(lapsed))).toEqual(va);
  });

  it('is none when no bill holds the amount', () => {
    expect(payableFor(credit(50_008), onReceiving(bill('va', 50_007, '8882000000000009')), claimedBy(null))).toBeNull();
  });

  const payableArb = fc.record({
    paymentId: fc.uuid(),
    uniqueCode: fc.integer({ min: 0, max: 3 }),
    totalAmount: fc.constantFrom(10_000, 10_001),
    // numbers of several lengths, some inside others, as a reference may carry one within another
    vaNumber: fc.option(fc.constantFrom('8881000000000001', '8881000000000002', '88810000000000012', '12', '2')),
    expiresAt: fc.constantFrom(at(-1), at(0), at(1)),
  });
  const creditArb = fc.record({
    amount: fc.constantFrom(10_000, 10_001, 10_002),
    reference: fc.option(
      fc.oneof(
        fc.constantFrom('VA 8881000000000001', '8881000000000002', 'transfer', 'VA 88810000000000012'),
        fc.string({ unit: fc.constantFrom('8', '1', '0', '2', ' '), maxLength: 20 }),
      ),
    ),
    occurredAt: fc.constant(at(0)),
  });
  /** The receiving stream's match as first written: a pass over a sorted copy, bills held when booked first. */
  const sortedMatch = (payables: Payable[], c: Credit) => {
    const held = (p: Payable) => Number(p.expiresAt >= c.occurredAt);
    const ordered = [...payables].sort((a, b) => held(b) - held(a));
    const carried = (p: Payable) => p.vaNumber !== null && (c.reference ?? '').includes(p.vaNumber);
    return ordered.find(p => carried(p) && p.totalAmount === c.amount) ?? null;
  };
  /** The lookup as first written: the virtual account's bill the receiving stream matched, then the claim. */
  const firstWritten = (payables: Payable[], holder: Payable | null, c: Credit) => {
    const va = sortedMatch(payables, c);
    const candidates = [...(va ? [va] : []), ...(holder ? [holder] : [])];
    return candidates.find(p => p.expiresAt >= c.occurredAt) ?? candidates[0] ?? null;
  };
  test.prop([fc.array(payableArb, { maxLength: 10 }), fc.option(payableArb), creditArb])(
    'is the one the receiving stream then the claim picked, in every mix of bills',
    (payables, holder, c) => {
      const claim = holder && { ...holder, vaNumber: null, totalAmount: c.amount };
      expect(payableFor(c, onReceiving(...payables), claimedBy(claim))).toEqual(firstWritten(payables, claim, c));
    },
  );
});
