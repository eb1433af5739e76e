import { describe, it } from 'vitest';
import { legacyReservations } from '../../src/domain/payments-carry-over.ts';
import { payableClaim } from '../../src/domain/payments-payable-claims.ts';
import { PayableReleased, PayableReserved } from '../../src/events/payments-receiving.ts';
import { specification } from '../support/decider.ts';
import { accountId, paymentId } from '../support/payment-fixtures.ts';

const newerId = '5e0b1c2d-3e4f-4051-8263-748596a7b8c9';
const t0 = new Date('2026-03-02T03:00:00.000Z');
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000).toISOString();

/** A unique-code bill as the receiving stream held it before claims: reserved at 02:00, lapsing at 02:05. */
const legacy = PayableReserved({
  accountId,
  paymentId,
  uniqueCode: 7,
  totalAmount: 50_007,
  vaNumber: null,
  expiresAt: at(-55),
  reservedAt: at(-60),
});
const onNumber = PayableReserved({ ...legacy.data, paymentId: newerId, uniqueCode: 0, vaNumber: '8881000000000001' });
const released = (id: string, reason: 'completed' | 'expired' | 'carried') =>
  PayableReleased({ accountId, paymentId: id, reason, releasedAt: at(0) });
const newerClaim = PayableReserved({ ...legacy.data, paymentId: newerId, expiresAt: at(60), reservedAt: at(-50) });

describe('the unique-code bills a receiving stream holds from before claims', () => {
  const given = specification(legacyReservations);
  const carried = { type: 'ReleaseCarried' as const, paymentId, now: t0 };

  it("are released from it once carried, 'carried'", () =>
    given([legacy, onNumber])
      .when(carried)
      .then([released(paymentId, 'carried')]));

  it('are released there once: a bill carried already is passed by', () =>
    given([legacy, released(paymentId, 'carried')])
      .when(carried)
      .then([]));

  it("never include a virtual account's bill", () =>
    given([legacy, onNumber])
      .when({ ...carried, paymentId: newerId })
      .then([]));

  it('never include a bill its payment released', () =>
    given([legacy, released(paymentId, 'expired')])
      .when(carried)
      .then([]));
});

describe('a claim taking a bill carried from the receiving stream', () => {
  const given = specification(payableClaim);
  const carry = { type: 'CarryTotal' as const, reserved: legacy.data };

  it('holds the bill as it was reserved: its payment, code, total, expiry and reservation time', () =>
    given([]).when(carry).then([legacy]));

  it('is written once: a claim holding the payment already appends nothing', () =>
    given([legacy]).when(carry).then([]));

  it('leaves a lapsed bill lapsed when a newer claim holds its total', () => given([newerClaim]).when(carry).then([]));

  it('takes a total its newer holder freed', () =>
    given([newerClaim, released(newerId, 'completed')])
      .when(carry)
      .then([legacy]));
});
