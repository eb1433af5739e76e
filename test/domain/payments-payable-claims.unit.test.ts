import { describe, expect, it } from 'vitest';
import { payableClaim, TotalHeld } from '../../src/domain/payments-payable-claims.ts';
import { PayableReleased, PayableReserved } from '../../src/events/payments-receiving.ts';
import { specification } from '../support/decider.ts';

const given = specification(payableClaim);
const accountId = '3c1d2b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const t0 = new Date('2026-03-02T03:00:00.000Z');
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
const claim = (n: number, now: Date, expiresAt = at(60)) =>
  ({ type: 'ClaimTotal', accountId, paymentId: uuid(n), amount: 50_000, uniqueCode: 7, expiresAt, now }) as const;
const reserved = (n: number, now: Date, expiresAt = at(60)) =>
  PayableReserved({
    accountId,
    paymentId: uuid(n),
    uniqueCode: 7,
    totalAmount: 50_007,
    vaNumber: null,
    expiresAt: expiresAt.toISOString(),
    reservedAt: now.toISOString(),
  });
const released = (n: number, now: Date, reason: 'completed' | 'expired' = 'completed') =>
  PayableReleased({ accountId, paymentId: uuid(n), reason, releasedAt: now.toISOString() });

const release = (n: number) =>
  ({ type: 'ReleaseTotal', accountId, paymentId: uuid(n), reason: 'completed', now: at(20) }) as const;

describe('a claim on one total of one account', () => {
  it('is taken by the first payment', () => {
    given([])
      .when(claim(1, at(0)))
      .then([reserved(1, at(0))]);
  });

  it('is taken once: the same payment again takes nothing more', () => {
    given([reserved(1, at(0))])
      .when(claim(1, at(1)))
      .then([]);
  });

  it('refuses a second payment while the first holds it', () => {
    expect(() =>
      payableClaim.decide(
        [reserved(1, at(0))].reduce(payableClaim.evolve, payableClaim.initialState()),
        claim(2, at(5)),
      ),
    ).toThrow(TotalHeld);
  });

  it('is taken by a second payment once the first released it', () => {
    given([reserved(1, at(0)), released(1, at(10))])
      .when(claim(2, at(11)))
      .then([reserved(2, at(11), at(60))]);
  });

  it("is taken by a second payment once the first lapsed: its payment's expiry passed, released or not", () => {
    given([reserved(1, at(0), at(30))])
      .when(claim(2, at(30)))
      .then([reserved(2, at(30))]);
  });

  it('is released by its holder', () => {
    given([reserved(1, at(0))])
      .when(release(1))
      .then([released(1, at(20))]);
  });

  it('is not released by another payment', () => {
    given([reserved(1, at(0))])
      .when(release(2))
      .then([]);
  });

  it('is released once: releasing it again changes nothing', () => {
    given([reserved(1, at(0)), released(1, at(10))])
      .when(release(1))
      .then([]);
  });

  it("is not released by a lapsed holder another replaced: the second's claim stays", () => {
    given([reserved(1, at(0), at(30)), reserved(2, at(31))])
      .when(release(1))
      .then([]);
  });
});
