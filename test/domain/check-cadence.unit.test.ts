import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkIntervalMs,
  closingSlackMs,
  learnedWindowMs,
  nextCheckAt,
  type CadenceSettings,
  type CheckSignals,
} from '../../src/domain/check-cadence.ts';
import { loadConfig } from '../../src/config.ts';

const t0 = Date.parse('2026-03-02T03:00:00Z');
const at = (ms: number) => new Date(t0 + ms);

/**
 * Any sane settings: a floor no higher than the slow interval, and from densest to sparsest a payer leaving to pay, a
 * page in sight on a desk, the window, a page being read on a phone.
 */
const settingsArb: fc.Arbitrary<CadenceSettings> = fc
  .record({
    floorSeconds: fc.integer({ min: 1, max: 60 }),
    payingSeconds: fc.integer({ min: 1, max: 60 }),
    payingForSeconds: fc.integer({ min: 0, max: 300 }),
    pageExtra: fc.integer({ min: 0, max: 60 }),
    windowExtra: fc.integer({ min: 0, max: 60 }),
    readingExtra: fc.integer({ min: 0, max: 120 }),
    slowExtra: fc.integer({ min: 0, max: 600 }),
    pageOpenForSeconds: fc.integer({ min: 1, max: 60 }),
    backoffShare: fc.double({ min: 0.01, max: 1, noNaN: true }),
    defaultSeconds: fc.integer({ min: 1, max: 3600 }),
    minSeconds: fc.integer({ min: 1, max: 300 }),
    boundExtra: fc.integer({ min: 0, max: 3600 }),
    percentile: fc.integer({ min: 1, max: 100 }),
    minPaid: fc.integer({ min: 1, max: 20 }),
  })
  .map(r => {
    const pageSeconds = r.payingSeconds + r.pageExtra;
    const windowSeconds = pageSeconds + r.windowExtra;
    const readingSeconds = windowSeconds + r.readingExtra;
    return {
      cadence: 'payer' as const,
      floorSeconds: r.floorSeconds,
      payingSeconds: r.payingSeconds,
      payingForSeconds: r.payingForSeconds,
      pageSeconds,
      readingSeconds,
      pageOpenForSeconds: r.pageOpenForSeconds,
      windowSeconds,
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
      slowSeconds: Math.max(r.floorSeconds, readingSeconds) + r.slowExtra,
    };
  });

const maybeAt = fc.option(fc.integer({ min: -7_200_000, max: 7_200_000 }).map(at), { nil: null });
const signalsArb: fc.Arbitrary<CheckSignals> = fc.record({
  providerPushes: fc.boolean(),
  newestCreatedAt: fc.integer({ min: -7_200_000, max: 0 }).map(at),
  pageSeenAt: maybeAt,
  phonePageSeenAt: maybeAt,
  pageHiddenAt: maybeAt,
  pageClosedAt: maybeAt,
  qrFetchedAt: maybeAt,
  qrDownloadedAt: maybeAt,
});
const historyArb = fc.record({ paidAfterMs: fc.array(fc.integer({ min: 0, max: 7_200_000 }), { maxLength: 30 }) });
const nowArb = fc.integer({ min: 0, max: 7_200_000 }).map(at);
const cadenceArb = settingsArb.chain(s => fc.constantFrom(s, { ...s, cadence: 'fixed' as const }));
const ago = (now: Date, ms: number) => new Date(now.getTime() - ms);
/** The signals of pages last closed: closed at or after every page of the account went out of sight or asked. */
const closedArb: fc.Arbitrary<CheckSignals> = fc
  .tuple(signalsArb, fc.integer({ min: 0, max: 600_000 }))
  .map(([signals, afterMs]) => {
    const last = Math.max(
      signals.newestCreatedAt.getTime(),
      ...[signals.pageHiddenAt, signals.pageSeenAt, signals.phonePageSeenAt].map(d => d?.getTime() ?? -Infinity),
    );
    return { ...signals, pageClosedAt: new Date(last + afterMs) };
  });

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

  it('checks denser while a page of the account is in sight on a desk than once it is closed', () => {
    fc.assert(
      fc.property(settingsArb, signalsArb, historyArb, nowArb, (s, any, history, now) => {
        const signals = { ...any, providerPushes: false, pageClosedAt: null };
        const open = { ...signals, pageSeenAt: now };
        const closed = { ...signals, pageSeenAt: ago(now, s.pageOpenForSeconds * 1000 + 1) };
        const never = { ...signals, pageSeenAt: null };
        const [o, c, n] = [open, closed, never].map(x => checkIntervalMs(x, history, now, s));
        expect(o).toBeLessThanOrEqual(c!);
        expect(o).toBeLessThanOrEqual(n!);
        // strictly, whenever the floor leaves room below the window's interval and no payer is leaving
        if (s.floorSeconds < s.windowSeconds && s.pageSeconds < s.windowSeconds && !signals.pageHiddenAt)
          expect(o).toBeLessThan(c!);
      }),
    );
  });

  it('checks densest just after a payer left the page having downloaded the QR: paying in the wallet app', () => {
    fc.assert(
      fc.property(
        settingsArb,
        signalsArb,
        historyArb,
        nowArb,
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 120_000 }),
        (s, any, history, now, share, downloadedBefore) => {
          const signals = {
            ...any,
            providerPushes: false,
            pageSeenAt: null,
            phonePageSeenAt: null,
            pageClosedAt: null,
          };
          const hiddenAt = ago(now, share * s.payingForSeconds * 1000);
          const leaving = { ...signals, pageHiddenAt: hiddenAt, qrDownloadedAt: ago(hiddenAt, downloadedBefore) };
          const interval = checkIntervalMs(leaving, history, now, s);
          expect(interval).toBe(Math.max(s.floorSeconds, s.payingSeconds) * 1000);
          // denser than anything else the payer's page could say
          for (const other of [
            { ...signals, pageHiddenAt: null },
            { ...signals, pageHiddenAt: null, pageSeenAt: now },
            { ...signals, pageHiddenAt: null, phonePageSeenAt: now },
            { ...signals, pageHiddenAt: hiddenAt, qrDownloadedAt: null },
          ])
            expect(interval).toBeLessThanOrEqual(checkIntervalMs(other, history, now, s));
        },
      ),
    );
  });

  it('makes the account due when a page comes back in sight after its payer left, unless checked since', () => {
    fc.assert(
      fc.property(
        settingsArb,
        signalsArb,
        historyArb,
        nowArb,
        fc.integer({ min: 1, max: 300_000 }),
        fc.integer({ min: 0, max: 60_000 }),
        (s, any, history, now, awayMs, backForMs) => {
          const hiddenAt = ago(now, awayMs + backForMs);
          const signals = {
            ...any,
            providerPushes: false,
            pageClosedAt: null,
            pageHiddenAt: hiddenAt,
            phonePageSeenAt: ago(now, backForMs),
          };
          const leavingMs = Math.max(s.payingForSeconds * 1000, (s.windowSeconds * 1000) / s.backoffShare);
          fc.pre(awayMs + backForMs <= leavingMs);
          expect(checkIntervalMs(signals, history, now, s)).toBeLessThanOrEqual(
            Math.max(s.floorSeconds * 1000, backForMs),
          );
        },
      ),
    );
  });

  it('where the provider pushes, checks no more often than where it does not: its notification is the fast path', () => {
    fc.assert(
      fc.property(settingsArb, signalsArb, historyArb, nowArb, (s, signals, history, now) => {
        const pushed = checkIntervalMs({ ...signals, providerPushes: true }, history, now, s);
        expect(pushed).toBeGreaterThanOrEqual(checkIntervalMs({ ...signals, providerPushes: false }, history, now, s));
        // and what its pages say earns nothing denser than the window
        expect(pushed).toBeGreaterThanOrEqual(
          Math.min(s.slowSeconds, Math.max(s.floorSeconds, s.windowSeconds)) * 1000,
        );
      }),
    );
  });

  it('never checks denser for a closed page than for the same page only out of sight', () => {
    fc.assert(
      fc.property(cadenceArb, fc.oneof(closedArb, signalsArb), historyArb, nowArb, (s, closed, history, now) => {
        const hidden = { ...closed, pageClosedAt: null };
        expect(checkIntervalMs(closed, history, now, s)).toBeGreaterThanOrEqual(
          checkIntervalMs(hidden, history, now, s),
        );
      }),
    );
  });

  it('checks a closed page no denser than the window: no payer paying in the wallet app, no desk page in sight', () => {
    fc.assert(
      fc.property(settingsArb, closedArb, historyArb, nowArb, (s, closed, history, now) => {
        const interval = checkIntervalMs({ ...closed, providerPushes: false }, history, now, s);
        expect(interval).toBeGreaterThanOrEqual(
          Math.min(s.slowSeconds, Math.max(s.floorSeconds, s.windowSeconds)) * 1000,
        );
      }),
    );
  });

  it('counts a page back in sight, or gone out of sight again, after the close as it did before the close', () => {
    fc.assert(
      fc.property(
        settingsArb,
        closedArb,
        historyArb,
        nowArb,
        fc.integer({ min: 1, max: 60_000 }),
        fc.constantFrom('pageSeenAt', 'phonePageSeenAt', 'pageHiddenAt'),
        (s, closed, history, now, backAfterMs, signal) => {
          // a going out of sight heard just after the close is the closing page's own (the two requests race)
          const afterMs = signal === 'pageHiddenAt' ? closingSlackMs + backAfterMs : backAfterMs;
          const signals = { ...closed, [signal]: new Date(closed.pageClosedAt!.getTime() + afterMs) };
          expect(checkIntervalMs(signals, history, now, s)).toBe(
            checkIntervalMs({ ...signals, pageClosedAt: null }, history, now, s),
          );
        },
      ),
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

  it('with the defaults: leaving with the QR every 4 s, a desk page every 6 s, a fresh bill every 15 s, a phone page being read every 60 s, a quiet bill backing off to 60 s', () => {
    const s = loadConfig({ DATA_DIR: '/tmp/unused', LOG_LEVEL: 'silent' }).paymentChecks;
    const none = { paidAfterMs: [] };
    const bill: CheckSignals = {
      providerPushes: false,
      newestCreatedAt: at(0),
      pageSeenAt: null,
      phonePageSeenAt: null,
      pageHiddenAt: null,
      pageClosedAt: null,
      qrFetchedAt: null,
      qrDownloadedAt: null,
    };
    expect(checkIntervalMs({ ...bill, pageSeenAt: at(50_000) }, none, at(55_000), s)).toBe(6000);
    expect(checkIntervalMs({ ...bill, phonePageSeenAt: at(50_000) }, none, at(55_000), s)).toBe(60_000);
    expect(checkIntervalMs(bill, none, at(55_000), s)).toBe(15_000);
    // a payer on a phone saves the QR and leaves for the wallet app: every 4 s for 30 s, then thinning to the window
    const leaving = { ...bill, qrDownloadedAt: at(48_000), pageHiddenAt: at(50_000), phonePageSeenAt: at(47_000) };
    expect(checkIntervalMs(leaving, none, at(51_000), s)).toBe(4000);
    expect(checkIntervalMs(leaving, none, at(80_000), s)).toBe(4000);
    expect(checkIntervalMs(leaving, none, at(90_000), s)).toBe(10_000); // a quarter of the 40 s since leaving
    // back on the page 20 s later: due unless checked since its first ask (a 5 s coalesced write ago)
    expect(checkIntervalMs({ ...leaving, phonePageSeenAt: at(70_000) }, none, at(75_000), s)).toBe(4000);
    expect(checkIntervalMs({ ...leaving, phonePageSeenAt: at(70_000) }, none, at(71_000), s)).toBe(2000);
    // the page closed as it went out of sight: nobody paying in the wallet app, the window's interval from the bill
    // (once the page read until 47 s no longer counts as open: till then its reading interval, sparser, as where the
    // provider pushes), then the back-off; back in sight after the close, as before
    expect(checkIntervalMs({ ...leaving, pageClosedAt: at(50_000) }, none, at(51_000), s)).toBe(60_000);
    expect(checkIntervalMs({ ...leaving, pageClosedAt: at(50_000) }, none, at(58_000), s)).toBe(15_000);
    // its two last requests race: the close heard before the going out of sight is still a close
    expect(checkIntervalMs({ ...leaving, pageClosedAt: at(49_990) }, none, at(58_000), s)).toBe(15_000);
    expect(checkIntervalMs({ ...leaving, pageClosedAt: at(50_000) }, none, at(200_000), s)).toBe(37_500);
    expect(
      checkIntervalMs({ ...leaving, pageClosedAt: at(50_000), phonePageSeenAt: at(70_000) }, none, at(71_000), s),
    ).toBe(2000);
    // a desk page closed 2 s after its last ask: no longer every 6 s
    expect(checkIntervalMs({ ...bill, pageSeenAt: at(50_000), pageClosedAt: at(52_000) }, none, at(55_000), s)).toBe(
      15_000,
    );
    // leaving without the QR (a screenshot, or giving up): the window's interval
    expect(checkIntervalMs({ ...leaving, qrDownloadedAt: null }, none, at(51_000), s)).toBe(15_000);
    // where the provider pushes, the leaving earns nothing more than the window
    expect(checkIntervalMs({ ...leaving, providerPushes: true }, none, at(80_000), s)).toBe(15_000);
    // a QR downloaded at 5 minutes opens the window again
    expect(checkIntervalMs({ ...bill, qrFetchedAt: at(300_000) }, none, at(330_000), s)).toBe(15_000);
    expect(checkIntervalMs(bill, none, at(200_000), s)).toBe(50_000); // a quarter of the quiet time
    expect(checkIntervalMs(bill, none, at(3_600_000), s)).toBe(60_000);
    expect(checkIntervalMs(bill, none, at(55_000), { ...s, cadence: 'fixed' })).toBe(15_000);
  });
});
