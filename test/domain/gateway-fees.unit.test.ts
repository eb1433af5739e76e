import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { fee, gatewayBill, grossUp, methodFamily, type GatewayMethod } from '../../src/domain/gateway-fees.ts';
import type { GatewaySettings } from '../../src/config.ts';
import type { ErrorCode } from '../../src/errors.ts';

/** The interface's Limits table: VA 3,000 flat; QRIS 70 basis points + 200; the methods' limits. */
const limitsTable: GatewaySettings = {
  vaFee: 3000,
  qrisFee: { rateBp: 70, flat: 200 },
  limits: { qris: { min: 1000, max: 10_000_000 }, va: { min: 10_000, max: 50_000_000 } },
  minWithdrawal: 50_000,
};

const methods: GatewayMethod[] = ['QRIS-DYNAMIC', 'VA-BANK1', 'VA-BANK2', 'VA-BANK3'];
const method = fc.constantFrom(...methods);
const settings = fc
  .record({
    rateBp: fc.integer({ min: 0, max: 1000 }),
    flat: fc.integer({ min: 0, max: 10_000 }),
    vaFee: fc.integer({ min: 0, max: 10_000 }),
  })
  .map(({ rateBp, flat, vaFee }): GatewaySettings => ({ ...limitsTable, vaFee, qrisFee: { rateBp, flat } }));
const amount = fc.integer({ min: 0, max: 1_000_000_000 });

/** Round-half-up of amount x rateBp / 10,000, by a route of its own: BigInt, and the half compared as 2 x remainder. */
function independentQrisFee(a: number, rateBp: number, flat: number): number {
  const scaled = BigInt(a) * BigInt(rateBp);
  const whole = scaled / 10_000n;
  const up = 2n * (scaled % 10_000n) >= 10_000n ? 1n : 0n;
  return Number(whole + up) + flat;
}

describe('fee', () => {
  test.prop([amount, settings])(
    'QRIS: the round-half-up rule, computed again with BigInt, plus the flat part',
    (a, s) => {
      expect(fee('QRIS-DYNAMIC', a, s)).toBe(independentQrisFee(a, s.qrisFee.rateBp, s.qrisFee.flat));
      expect(fee('QRIS', a, s)).toBe(fee('QRIS-DYNAMIC', a, s));
    },
  );

  // random amounts seldom land on exactly half a rupiah: these do (rate x amount = q x 10,000 + 5,000)
  test.prop([
    fc.constantFrom(1, 2, 4, 5, 8, 10, 20, 25, 40, 50, 100, 125, 200, 250, 500, 625, 1000),
    fc.integer({ min: 0, max: 100_000 }),
    fc.integer({ min: 0, max: 10_000 }),
  ])('QRIS: exactly half a rupiah rounds up', (rateBp, q, flat) => {
    const a = (q * 10_000 + 5_000) / rateBp;
    const s = { ...limitsTable, qrisFee: { rateBp, flat } };
    expect(fee('QRIS-DYNAMIC', a, s)).toBe(q + 1 + flat);
    expect(fee('QRIS-DYNAMIC', a, s)).toBe(independentQrisFee(a, rateBp, flat));
    expect(fee('QRIS-DYNAMIC', a - 1, s)).toBe(independentQrisFee(a - 1, rateBp, flat));
  });

  test.prop([method, amount, settings])(
    'is a whole, non-negative number of rupiah; a virtual account pays its flat fee',
    (m, a, s) => {
      const charged = fee(m, a, s);
      expect(Number.isSafeInteger(charged)).toBe(true);
      expect(charged).toBeGreaterThanOrEqual(0);
      if (methodFamily(m) === 'va') expect(charged).toBe(s.vaFee);
    },
  );

  it('rounds half a rupiah up and less than half down (70 basis points + 200)', () => {
    expect(fee('QRIS-DYNAMIC', 100_000, limitsTable)).toBe(700 + 200);
    expect(fee('QRIS-DYNAMIC', 50, limitsTable)).toBe(0 + 200); // 0.35
    expect(fee('QRIS-DYNAMIC', 1_050, limitsTable)).toBe(7 + 200); // 7.35
    expect(fee('QRIS-DYNAMIC', 1_500, limitsTable)).toBe(11 + 200); // 10.5 rounds up
    expect(fee('QRIS-DYNAMIC', 1_499, limitsTable)).toBe(10 + 200); // 10.493
    expect(fee('VA-BANK2', 1_499, limitsTable)).toBe(3000);
  });

  it('refuses DIRECT, which the gateway does not serve', () => {
    expect(() => fee('DIRECT', 10_000, limitsTable)).toThrow(
      expect.objectContaining({ code: 'GATEWAY_DIRECT_NOT_ALLOWED' }),
    );
  });

  it('refuses an amount that is not whole rupiah', () => {
    expect(() => fee('QRIS-DYNAMIC', 10_000.5, limitsTable)).toThrow(RangeError);
    expect(() => fee('QRIS-DYNAMIC', -1, limitsTable)).toThrow(RangeError);
  });
});

describe('grossUp', () => {
  test.prop([method, fc.integer({ min: 1, max: 1_000_000_000 }), settings])(
    'the billed amount credits the request, and one rupiah less does not: it is the smallest that covers',
    (m, requested, s) => {
      const billed = grossUp(m, requested, s);
      expect(Number.isSafeInteger(billed)).toBe(true);
      expect(billed - fee(m, billed, s)).toBeGreaterThanOrEqual(requested);
      expect(billed - 1 - fee(m, billed - 1, s)).toBeLessThan(requested);
    },
  );

  test.prop([method, fc.integer({ min: 1, max: 1_000_000_000 }), settings])(
    'the merchant is credited exactly the request (the credit grows by at most a rupiah a step)',
    (m, requested, s) => {
      const billed = grossUp(m, requested, s);
      expect(billed - fee(m, billed, s)).toBe(requested);
    },
  );

  test.prop([fc.integer({ min: 1, max: 1_000_000 }), settings])(
    'no smaller amount covers the request (searched exhaustively below the billed one)',
    (requested, s) => {
      const billed = grossUp('QRIS-DYNAMIC', requested, s);
      // the credit of A never falls as A grows, so it suffices to look just below; this checks the claim itself nearby
      for (let a = Math.max(0, billed - 50); a < billed; a++)
        expect(a - fee('QRIS-DYNAMIC', a, s)).toBeLessThan(requested);
    },
  );

  it('raises a QRIS bill above amount + fee, as the interface says (the fee is on the raised total)', () => {
    const billed = grossUp('QRIS-DYNAMIC', 100_000, limitsTable);
    expect(billed).toBe(100_906);
    expect(billed).toBeGreaterThan(100_000 + fee('QRIS-DYNAMIC', 100_000, limitsTable));
    expect(billed - fee('QRIS-DYNAMIC', billed, limitsTable)).toBe(100_000);
  });

  it('adds the flat fee for a virtual account', () => {
    expect(grossUp('VA-BANK1', 100_000, limitsTable)).toBe(103_000);
  });
});

describe('gatewayBill', () => {
  const refused = (run: () => unknown, code: ErrorCode, message: string) => {
    expect(run).toThrow(expect.objectContaining({ code, status: 400 }));
    expect(run).toThrow(message);
  };

  it('given the fee stays with the merchant, when 100,000 is billed by QRIS, then the buyer pays 100,000 and the fee is 900', () =>
    expect(gatewayBill('QRIS-DYNAMIC', 100_000, false, limitsTable)).toEqual({
      amount: 100_000,
      fee: 900,
      baseAmount: 100_000,
      highestCode: 999,
    }));

  it('given the fee goes to the customer, when 100,000 is billed by QRIS, then the bill is raised to 100,906 with its fee 906', () =>
    expect(gatewayBill('QRIS-DYNAMIC', 100_000, true, limitsTable)).toEqual({
      amount: 100_906,
      fee: 906,
      baseAmount: 100_000,
      highestCode: 999,
    }));

  it('given the fee goes to the customer, when 100,000 is billed by VA, then the bill is 103,000', () =>
    expect(gatewayBill('VA-BANK3', 100_000, true, limitsTable)).toEqual({
      amount: 103_000,
      fee: 3000,
      baseAmount: 100_000,
      highestCode: null,
    }));

  it('given a VA minimum of 10,000, when 9,999 is asked, then it is refused naming both numbers', () =>
    refused(
      () => gatewayBill('VA-BANK1', 9_999, false, limitsTable),
      'GATEWAY_AMOUNT_BELOW_MINIMUM',
      'The amount 9,999 is below the VA-BANK1 minimum of 10,000',
    ));

  it('given the minimum is checked on the request, when 999 is asked by QRIS with the fee to the customer, then it is refused though the raised bill would pass', () =>
    refused(
      () => gatewayBill('QRIS-DYNAMIC', 999, true, limitsTable),
      'GATEWAY_AMOUNT_BELOW_MINIMUM',
      'below the QRIS-DYNAMIC minimum of 1,000',
    ));

  it('given a QRIS maximum of 10,000,000, when exactly 10,000,000 is billed, then it is refused: no unique code fits on top', () =>
    refused(
      () => gatewayBill('QRIS-DYNAMIC', 10_000_000, false, limitsTable),
      'GATEWAY_AMOUNT_ABOVE_MAXIMUM',
      'The billed amount 10,000,000 leaves no room for a unique code within the QRIS-DYNAMIC maximum of 10,000,000',
    ));

  it('given a QRIS maximum of 10,000,000, when 9,999,999 is billed, then its only unique code is 1', () =>
    expect(gatewayBill('QRIS-DYNAMIC', 9_999_999, false, limitsTable)).toMatchObject({
      amount: 9_999_999,
      highestCode: 1,
    }));

  it('given a QRIS maximum of 10,000,000, when 9,999,500 is billed, then the codes stop at 500; from 9,999,001 down all 999 fit', () => {
    expect(gatewayBill('QRIS-DYNAMIC', 9_999_500, false, limitsTable).highestCode).toBe(500);
    expect(gatewayBill('QRIS-DYNAMIC', 9_999_001, false, limitsTable).highestCode).toBe(999);
    expect(gatewayBill('QRIS-DYNAMIC', 9_999_000, false, limitsTable).highestCode).toBe(999);
  });

  it('given a VA maximum of 50,000,000, when exactly 50,000,000 is billed, then it passes: a virtual account adds no code', () =>
    expect(gatewayBill('VA-BANK1', 50_000_000, false, limitsTable)).toMatchObject({
      amount: 50_000_000,
      highestCode: null,
    }));

  it('given a QRIS maximum of 10,000,000, when 10,000,000 is raised by the fee, then the billed amount is refused', () =>
    refused(
      () => gatewayBill('QRIS-DYNAMIC', 10_000_000, true, limitsTable),
      'GATEWAY_AMOUNT_ABOVE_MAXIMUM',
      'The billed amount 10,070,695 (10,000,000 raised by the fee) is above the QRIS-DYNAMIC maximum of 10,000,000',
    ));

  it('given a VA maximum of 50,000,000, when 50,000,001 is asked, then it is refused', () =>
    refused(
      () => gatewayBill('VA-BANK2', 50_000_001, false, limitsTable),
      'GATEWAY_AMOUNT_ABOVE_MAXIMUM',
      'The billed amount 50,000,001 is above the VA-BANK2 maximum of 50,000,000',
    ));

  it('given the merchant keeps the fee, when the amount is not larger than its fee, then it is refused', () => {
    const highFees = { ...limitsTable, vaFee: 12_000 };
    refused(
      () => gatewayBill('VA-BANK1', 12_000, false, highFees),
      'GATEWAY_AMOUNT_NOT_ABOVE_FEE',
      'The amount 12,000 is not larger than its VA-BANK1 fee of 12,000',
    );
    expect(gatewayBill('VA-BANK1', 12_001, false, highFees)).toEqual({
      amount: 12_001,
      fee: 12_000,
      baseAmount: 12_001,
      highestCode: null,
    });
    // passed to the customer, the same request is raised above its fee
    expect(gatewayBill('VA-BANK1', 12_000, true, highFees)).toEqual({
      amount: 24_000,
      fee: 12_000,
      baseAmount: 12_000,
      highestCode: null,
    });
  });

  it('given DIRECT, when billed through the gateway, then it is refused', () =>
    refused(
      () => gatewayBill('DIRECT', 100_000, false, limitsTable),
      'GATEWAY_DIRECT_NOT_ALLOWED',
      'DIRECT cannot be used with GATEWAY',
    ));

  test.prop([method, fc.integer({ min: 1, max: 60_000_000 }), fc.boolean(), settings])(
    'a bill that passes credits the merchant at least one rupiah and stays within the method limits',
    (m, requested, feeToCustomer, s) => {
      let bill;
      try {
        bill = gatewayBill(m, requested, feeToCustomer, s);
      } catch {
        return;
      }
      const { min, max } = s.limits[methodFamily(m)];
      expect(requested).toBeGreaterThanOrEqual(min);
      expect(bill.amount).toBeLessThanOrEqual(max);
      expect(bill.fee).toBe(fee(m, bill.amount, s));
      expect(bill.amount - bill.fee).toBeGreaterThanOrEqual(feeToCustomer ? requested : 1);
    },
  );

  test.prop([fc.integer({ min: 9_980_000, max: 10_000_100 }), fc.boolean(), fc.integer({ min: 0, max: 10_000 })])(
    'no QRIS bill, unique code and fee to the customer included, is above 10,000,000; one refused leaves no room for a code',
    (requested, feeToCustomer, pick) => {
      let bill;
      try {
        bill = gatewayBill('QRIS-DYNAMIC', requested, feeToCustomer, limitsTable);
      } catch (err) {
        expect(err).toMatchObject({ code: 'GATEWAY_AMOUNT_ABOVE_MAXIMUM', status: 400 });
        const billed = feeToCustomer ? grossUp('QRIS-DYNAMIC', requested, limitsTable) : requested;
        expect(billed + 1).toBeGreaterThan(10_000_000);
        return;
      }
      expect(bill.highestCode).toBeGreaterThanOrEqual(1);
      expect(bill.highestCode).toBeLessThanOrEqual(999);
      const code = (pick % bill.highestCode!) + 1; // any code the bill allows
      expect(bill.amount + code).toBeLessThanOrEqual(10_000_000);
      // and none is wasted: the highest code reaches the cap or is 999
      expect(bill.amount + bill.highestCode! === 10_000_000 || bill.highestCode === 999).toBe(true);
    },
  );
});
