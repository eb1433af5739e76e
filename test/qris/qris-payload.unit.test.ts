import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQrisPayment, transferAmount, type QrisPayment } from '../../src/qris-payload.ts';
import { qrisPayload } from './build.ts';

type Entry = {
  name: string;
  payload: string;
  expect: { ok: boolean; kind?: string; amount?: number | null; tip?: unknown };
};
const corpus = JSON.parse(readFileSync(new URL('./corpus.json', import.meta.url), 'utf8')) as Entry[];

describe('QRIS payloads (test/qris/corpus.json)', () => {
  it.each(corpus.map(e => [e.name, e] as const))('%s', (_name, entry) => {
    const parsed = parseQrisPayment(entry.payload);
    expect(parsed.ok, parsed.ok ? '' : parsed.reason).toBe(entry.expect.ok);
    if (parsed.ok)
      expect(parsed.qris).toMatchObject({
        kind: entry.expect.kind,
        amount: entry.expect.amount,
        tip: entry.expect.tip,
      });
    else expect(parsed.reason.length).toBeGreaterThan(5);
  });
});

describe('the QRIS parser', () => {
  it('answers a parse or a reason for any text, never a throw', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 600 }), text => {
        const parsed = parseQrisPayment(text);
        expect(typeof parsed.ok).toBe('boolean');
      }),
      { numRuns: 2000 },
    );
  });

  it('answers a parse or a reason for any bytes read as text, and for a valid payload cut or changed anywhere', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), bytes => {
        for (const text of [Buffer.from(bytes).toString('latin1'), Buffer.from(bytes).toString('utf8')])
          expect(typeof parseQrisPayment(text).ok).toBe('boolean');
      }),
      { numRuns: 1000 },
    );
    const valid = qrisPayload({ amount: '25000', tip: { indicator: '02', fixed: '500' } });
    fc.assert(
      fc.property(fc.nat(valid.length - 1), fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ .'), (at, c) => {
        const changed = `${valid.slice(0, at)}${c}${valid.slice(at + 1)}`;
        const parsed = parseQrisPayment(changed);
        if (changed !== valid) expect(parsed.ok).toBe(false); // the CRC catches one changed character
        expect(parseQrisPayment(valid.slice(0, at)).ok).toBe(false);
      }),
    );
  });

  it('parses back what was built: kind, amount and tip', () => {
    type Tip = { indicator: string; fixed?: string; percent?: string } | undefined;
    const tip: fc.Arbitrary<Tip> = fc.oneof(
      fc.constant(undefined),
      fc.constant({ indicator: '01' }),
      fc.integer({ min: 1, max: 99_999 }).map(n => ({ indicator: '02', fixed: String(n) })),
      fc.integer({ min: 1, max: 99 }).map(n => ({ indicator: '03', percent: String(n) })),
    );
    fc.assert(
      fc.property(fc.option(fc.integer({ min: 1, max: 10_000_000 }), { nil: undefined }), tip, (amount, tipTags) => {
        const parsed = parseQrisPayment(
          qrisPayload({ amount: amount === undefined ? undefined : String(amount), tip: tipTags }),
        );
        expect(parsed.ok).toBe(true);
        if (!parsed.ok) return;
        expect(parsed.qris.kind).toBe(amount === undefined ? 'static' : 'dynamic');
        expect(parsed.qris.amount).toBe(amount ?? null);
        const expectedTip = !tipTags
          ? null
          : tipTags.indicator === '01'
            ? { kind: 'prompt' }
            : tipTags.fixed
              ? { kind: 'fixed', amount: Number(tipTags.fixed) }
              : { kind: 'percent', basisPoints: Number(tipTags.percent) * 100 };
        expect(parsed.qris.tip).toEqual(expectedTip);
      }),
    );
  });
});

describe('the amount a QR transfer debits', () => {
  const qris = (over: Partial<QrisPayment>): QrisPayment => ({
    kind: 'static',
    merchantName: 'TOKO',
    merchantCity: 'BDG',
    merchantAccountTags: ['26'],
    amount: null,
    tip: null,
    payload: 'x',
    ...over,
  });

  it('is a dynamic QR its own amount; another amount is refused', () => {
    expect(transferAmount(qris({ kind: 'dynamic', amount: 25_000 }), null).amount).toBe(25_000);
    expect(transferAmount(qris({ kind: 'dynamic', amount: 25_000 }), 25_000).amount).toBe(25_000);
    expect(() => transferAmount(qris({ kind: 'dynamic', amount: 25_000 }), 20_000)).toThrow(
      expect.objectContaining({ code: 'QR_AMOUNT_MISMATCH' }),
    );
  });

  it('adds the tip its tags fix, and says so', () => {
    const fixed = transferAmount(
      qris({ amount: 25_000, kind: 'dynamic', tip: { kind: 'fixed', amount: 2_000 } }),
      null,
    );
    expect(fixed).toMatchObject({ amount: 27_000, tip: 2_000 });
    expect(fixed.message).toContain('tip Rp 2.000');
    // 2.5% of 10,001 is 250.025: half up to a rupiah, 250
    expect(transferAmount(qris({ tip: { kind: 'percent', basisPoints: 250 } }), 10_001)).toMatchObject({
      amount: 10_251,
      tip: 250,
    });
  });

  it('rounds a percentage tip half up, in whole rupiah, for any amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9_000_000 }), fc.integer({ min: 1, max: 1000 }), (amount, basisPoints) => {
        const { tip } = transferAmount(qris({ tip: { kind: 'percent', basisPoints } }), amount);
        const exact = (amount * basisPoints) / 10_000;
        expect(Number.isInteger(tip)).toBe(true);
        expect(Math.abs(tip - exact)).toBeLessThanOrEqual(0.5);
        if (exact - Math.floor(exact) === 0.5) expect(tip).toBe(Math.ceil(exact));
      }),
    );
  });

  it('refuses above 10,000,000 (the tip included) and needs an amount for a static QR', () => {
    expect(() => transferAmount(qris({}), 10_000_001)).toThrow(
      expect.objectContaining({ code: 'QR_AMOUNT_OUT_OF_RANGE' }),
    );
    expect(() => transferAmount(qris({ tip: { kind: 'fixed', amount: 1 } }), 10_000_000)).toThrow(
      expect.objectContaining({ code: 'QR_AMOUNT_OUT_OF_RANGE' }),
    );
    expect(() => transferAmount(qris({}), null)).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
  });
});
