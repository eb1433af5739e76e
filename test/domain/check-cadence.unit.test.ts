import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkIntervalMs,
  learnedWindowMs,
  nextCheckAt,
  type CadenceSettings,
  type CheckSignals,
} from '../../src/domain/check-cadence.ts';
import { loadConfig } from '../../src/config.ts';

const t0 = Date.parse('2026-03-02T03:00:00Z');
const at = (ms: number) => new Date(t0 + ms);

/** Any sane settings: a floor no higher than the slow interval, the page no sparser than the window. */
const settingsArb: fc.Arbitrary<CadenceSettings> = fc
  .record({
    floorSeconds: fc.integer({ min: 1, max: 60 }),
    pageSeconds: fc.integer({ min: 1, max: 60 }),
    windowExtra: fc.integer({ min: 0, max: 60 }),
    slowExtra: fc.integer({ min: 0, max: 600 }),
    pageOpenForSeconds: fc.integer({ min: 1, max: 60 }),
    backoffShare: fc.double({ min: 0.01, max: 1, noNaN: true }),
    defaultSeconds: fc.integer({ min: 1, max: 3600 }),
    minSeconds: fc.integer({ min: 1, max: 300 }),
    boundExtra: fc.integer({ min: 0, max: 3600 }),
    percentile: fc.integer({ min: 1, max: 100 }),
    minPaid: fc.integer({ min: 1, max: 20 }),
  })
  .map(r => ({
    cadence: 'payer' as const,
    floorSeconds: r.floorSeconds,
    pageSeconds: r.pageSeconds,
    pageOpenForSeconds: r.pageOpenForSeconds,
    windowSeconds: r.pageSeconds + r.windowExtra,
    backoffShare: r.backoffShare,
    window: {
      percentile: r.percentile,
      minPaid: r.minPaid,
      defaultSeconds: r.defaultSeconds,
      minSeconds: r.minSeconds,
      maxSeconds: r.minSeconds + r.boundExtra,
    },
    fastSeconds: 15,
    fastForMinutes: 10,
    slowSeconds: Math.max(r.floorSeconds, r.pageSeconds + r.windowExtra) + r.slowExtra,
  }));

const maybeAt = fc.option(fc.integer({ min: -7_200_000, max: 7_200_000 }).map(at), { nil: null });
const signalsArb: fc.Arbitrary<CheckSignals> = fc.record({
  newestCreatedAt: fc.integer({ min: -7_200_000, max: 0 }).map(at),
  pageSeenAt: maybeAt,
  qrFetchedAt: maybeAt,
});
const historyArb = fc.record({ paidAfterMs: fc.array(fc.integer({ min: 0, max: 7_200_000 }), { maxLength: 30 }) });
const nowArb = fc.integer({ min: 0, max: 7_200_000 }).map(at);
const cadenceArb = settingsArb.chain(s => fc.constantFrom(s, { ...s, cadence: 'fixed' as const }));

describe('the cadence of payment checks', () => {
  it('never checks an account more often than the floor, nor leaves it unchecked longer than the slow interval', () => {
    fc.assert(
      fc.property(cadenceArb, signalsArb, historyArb, nowArb, nowArb, (s, signals, history, last, now) => {
        const next = nextCheckAt(signals, history, last, now, s).getTime();
        expect(next - last.getTime()).toBeGreaterThanOrEqual(s.floorSeconds * 1000);
        expect(next - last.getTime()).toBeLessThanOrEqual(s.slowSeconds * 1000);
      }),
    );
  });

  it('checks at once an account never checked', () => {
    fc.assert(
      fc.property(cadenceArb, signalsArb, historyArb, nowArb, (s, signals, history, now) => {
        expect(nextCheckAt(signals, history, null, now, s)).toEqual(now);
      }),
    );
  });

  it('checks denser while a page of the account is open than once it is closed', () => {
    fc.assert(
      fc.property(settingsArb, signalsArb, historyArb, nowArb, (s, signals, history, now) => {
        const open = { ...signals, pageSeenAt: now };
        const closed = { ...signals, pageSeenAt: at(now.getTime() - t0 - s.pageOpenForSeconds * 1000 - 1) };
        const never = { ...signals, pageSeenAt: null };
        const [o, c, n] = [open, closed, never].map(x => checkIntervalMs(x, history, now, s));
        expect(o).toBeLessThanOrEqual(c!);
        expect(o).toBeLessThanOrEqual(n!);
        // strictly, whenever the floor leaves room below the window's interval
        if (s.floorSeconds < s.windowSeconds && s.pageSeconds < s.windowSeconds) expect(o).toBeLessThan(c!);
      }),
    );
  });

  it('learns a window within its bounds, the default while the account has too few paid payments', () => {
    fc.assert(
      fc.property(settingsArb, historyArb, (s, history) => {
        const w = learnedWindowMs(history, s.window);
        expect(w).toBeGreaterThanOrEqual(s.window.minSeconds * 1000);
        expect(w).toBeLessThanOrEqual(s.window.maxSeconds * 1000);
        if (history.paidAfterMs.length < s.window.minPaid) {
          const d = s.window.defaultSeconds * 1000;
          expect(w).toBe(Math.min(s.window.maxSeconds * 1000, Math.max(s.window.minSeconds * 1000, d)));
        }
      }),
    );
  });

  it("follows the account's own payers: the window is the 90th percentile of their creation-to-paid times", () => {
    const { window } = loadConfig({ DATA_DIR: '/tmp/unused', LOG_LEVEL: 'silent' }).paymentChecks;
    expect(learnedWindowMs({ paidAfterMs: [] }, window)).toBe(120_000); // the default
    const times = Array.from({ length: 20 }, (_, i) => (i + 1) * 10_000); // 10 s … 200 s
    expect(learnedWindowMs({ paidAfterMs: times }, window)).toBe(180_000);
    expect(learnedWindowMs({ paidAfterMs: times.map(t => t * 100) }, window)).toBe(15 * 60_000); // bounded
  });

  it('with the defaults: a page open every 4 s, a fresh bill every 8 s, a quiet one backing off to 60 s', () => {
    const s = loadConfig({ DATA_DIR: '/tmp/unused', LOG_LEVEL: 'silent' }).paymentChecks;
    const none = { paidAfterMs: [] };
    const bill = { newestCreatedAt: at(0), pageSeenAt: null, qrFetchedAt: null };
    expect(checkIntervalMs({ ...bill, pageSeenAt: at(50_000) }, none, at(55_000), s)).toBe(4000);
    expect(checkIntervalMs(bill, none, at(55_000), s)).toBe(8000);
    // a QR downloaded at 5 minutes opens the window again
    expect(checkIntervalMs({ ...bill, qrFetchedAt: at(300_000) }, none, at(330_000), s)).toBe(8000);
    expect(checkIntervalMs(bill, none, at(200_000), s)).toBe(50_000); // a quarter of the quiet time
    expect(checkIntervalMs(bill, none, at(3_600_000), s)).toBe(60_000);
    expect(checkIntervalMs(bill, none, at(55_000), { ...s, cadence: 'fixed' })).toBe(15_000);
  });
});
