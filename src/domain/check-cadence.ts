/**
 * How often a receiving account with pending payments is checked at its provider: a pure rule of
 * what the account's payers are doing and of when its payers usually pay. The checks gather where payments happen
 * (a payer just left the page for the wallet app with the QR saved, a page in sight on a desk, a QR just fetched,
 * the first minutes of a bill) and thin out where nobody is paying (a page read on a phone, a page closed, an old
 * bill), never closer together than the provider's floor, never further apart than the slow interval.
 */

/** What the service has seen of the payers of one account, its newest pending payment, and its provider. */
export type CheckSignals = {
  /** the account's provider calls the service when money lands (it offers notifications, and push is configured) */
  providerPushes: boolean;
  /** when the account's newest pending payment was created */
  newestCreatedAt: Date;
  /**
   * the last status request of a payment page of the account in sight on a computer, if any: its payer may pay by
   * scanning its QR with a phone while it stays in sight
   */
  pageSeenAt: Date | null;
  /** the same on a phone, if any: its payer is reading the bill, and pays in the wallet app with the page out of sight */
  phonePageSeenAt: Date | null;
  /**
   * the last time a page of the account went out of sight (its script stops asking while hidden and says so once): a
   * payer on a phone leaves the page for the wallet app to pay, so the money is likely to land in the next minute
   */
  pageHiddenAt: Date | null;
  /**
   * the last time a page of the account was closed (or left for another address): closing fires after the page goes
   * out of sight, and tells a payer who is gone from one who is in the wallet app, who never closes it
   */
  pageClosedAt: Date | null;
  /** the last time a QR image of the account's pending payments was fetched or downloaded, if any */
  qrFetchedAt: Date | null;
  /** the last time one was downloaded ("Unduh QRIS": a payer on a phone saving it for the wallet app), if any */
  qrDownloadedAt: Date | null;
};

/** How long after creation the account's last paid payments were paid, in milliseconds. */
export type CheckHistory = { paidAfterMs: number[] };

export type CadenceSettings = {
  /** which rule: the payer-following one, or a check every fastSeconds then slowSeconds whatever the payer does */
  cadence: 'payer' | 'fixed';
  /** the provider's own limit: never two checks of one account closer than this */
  floorSeconds: number;
  /** while a payment page of the account is in sight on a computer (its payer may pay from a phone meanwhile) */
  pageSeconds: number;
  /** a page counts as open this long after its last status request (the page asks every few seconds) */
  pageOpenForSeconds: number;
  /** while a page is in sight on a phone (its payer reading the bill) */
  readingSeconds: number;
  /** for `payingForSeconds` after a page went out of sight just after its QR was downloaded, every `payingSeconds` */
  payingSeconds: number;
  payingForSeconds: number;
  /** within the window in which the account's payers usually pay, counted from the bill or the last QR fetched */
  windowSeconds: number;
  /** past the window the interval grows as this share of the time since the last sign of a payer */
  backoffShare: number;
  /** the learned window: the given percentile of the last paid payments' creation-to-paid times, within bounds */
  window: { percentile: number; minPaid: number; defaultSeconds: number; minSeconds: number; maxSeconds: number };
  /** the fixed rule's and the sparsest interval: no pending payment goes unchecked longer than slowSeconds */
  fastSeconds: number;
  fastForMinutes: number;
  slowSeconds: number;
};

/**
 * The window after a sign of a payer in which this account's payers usually pay: the configured percentile of its own
 * creation-to-paid times, the default while it has fewer than `minPaid` of them, always within the bounds.
 */
export function learnedWindowMs(history: CheckHistory, window: CadenceSettings['window']): number {
  const times = history.paidAfterMs.filter(ms => Number.isFinite(ms) && ms >= 0).sort((a, b) => a - b);
  const learned =
    times.length < window.minPaid
      ? window.defaultSeconds * 1000
      : times[Math.min(times.length - 1, Math.ceil((times.length * window.percentile) / 100) - 1)]!;
  return Math.min(window.maxSeconds * 1000, Math.max(window.minSeconds * 1000, learned));
}

const later = (...dates: (Date | null)[]) =>
  Math.max(-Infinity, ...dates.filter((d): d is Date => d !== null).map(d => d.getTime()));

/**
 * The interval while a payer who left a page may be paying in the wallet app, or null once that has passed. Having
 * downloaded the QR just before (a phone cannot scan its own screen: the app reads the picture), the payer is most
 * likely paying now: every `payingSeconds` for `payingForSeconds`, then thinning as the back-off does from the leaving.
 * Leaving without it (a screenshot, or a payer giving up: the page cannot tell) earns the window's interval. Until that
 * thinning reaches the window, a page back in sight (the payer back from the app, most likely having paid) makes the
 * account due if it was not checked since the page's last status request.
 */
function payingIntervalMs(signals: CheckSignals, now: Date, s: CadenceSettings): number | null {
  if (!signals.pageHiddenAt) return null;
  const hiddenAt = signals.pageHiddenAt.getTime();
  const sinceHiddenMs = now.getTime() - hiddenAt;
  const windowMs = s.windowSeconds * 1000;
  if (sinceHiddenMs < 0 || sinceHiddenMs > Math.max(s.payingForSeconds * 1000, windowMs / s.backoffShare)) return null;
  const downloadedAt = signals.qrDownloadedAt?.getTime() ?? -Infinity;
  const leftToPay = downloadedAt <= hiddenAt + leavingSlackMs && hiddenAt - downloadedAt <= downloadedBeforeLeavingMs;
  const wanted = !leftToPay
    ? windowMs
    : sinceHiddenMs <= s.payingForSeconds * 1000
      ? s.payingSeconds * 1000
      : Math.min(windowMs, Math.max(s.payingSeconds * 1000, sinceHiddenMs * s.backoffShare));
  const seenAt = later(signals.pageSeenAt, signals.phonePageSeenAt);
  return seenAt > hiddenAt ? Math.min(wanted, now.getTime() - seenAt) : wanted;
}

/** A download counts towards a leaving this long before it (reading the saved picture's name, finding the app) ... */
const downloadedBeforeLeavingMs = 120_000;
/** ... or a moment after it (a download's request may reach the service after the page said it went out of sight). */
const leavingSlackMs = 5_000;

/**
 * Whether the account's pages were last closed: closed at or after the last one went out of sight, and none asked
 * since (a page back in sight after the close, or another page of the account, counts as it did before).
 */
function pageClosed(signals: CheckSignals): boolean {
  if (!signals.pageClosedAt) return false;
  const closedAt = signals.pageClosedAt.getTime();
  return (
    closedAt + closingSlackMs >= later(signals.pageHiddenAt) &&
    closedAt >= later(signals.pageSeenAt, signals.phonePageSeenAt)
  );
}

/**
 * A closing page says it went out of sight and that it closed in two requests sent at once: either may reach the
 * service (or its instance) first, so a going out of sight heard this soon after the close is that page's own.
 */
export const closingSlackMs = 5_000;

/** The time between two checks of the account as things stand at `now`, in milliseconds. */
export function checkIntervalMs(signals: CheckSignals, history: CheckHistory, now: Date, s: CadenceSettings): number {
  const floorMs = s.floorSeconds * 1000;
  const slowMs = Math.max(floorMs, s.slowSeconds * 1000);
  const wanted = ((): number => {
    switch (s.cadence) {
      case 'fixed':
        return (
          (now.getTime() - signals.newestCreatedAt.getTime() < s.fastForMinutes * 60_000
            ? s.fastSeconds
            : s.slowSeconds) * 1000
        );
      case 'payer': {
        const sinceMs = (d: Date | null) => (d ? now.getTime() - d.getTime() : Infinity);
        // where the provider pushes, its notification is the fast path and these checks are only the safety net for
        // one lost: what the page says of its payer earns nothing more than a bill with no page, as the window and
        // the back-off give (a lost notification is rare; checking densely for each payer would double the checks).
        // Pages last closed earn nothing more either: no payer is paying in the wallet app or at a desk page now, and
        // one may still pay from a saved QR, which the window and the back-off cover
        if (!signals.providerPushes && !pageClosed(signals)) {
          const leaving = payingIntervalMs(signals, now, s);
          if (leaving !== null) return leaving;
          // a page in sight on a desk while its payer pays with a phone
          if (sinceMs(signals.pageSeenAt) <= s.pageOpenForSeconds * 1000) return s.pageSeconds * 1000;
        }
        // a page in sight on a phone: its payer is reading the bill and leaves the page to pay, which says so; a
        // check now and then in case not (a second phone scanning this one's screen). It holds for a page read until
        // it closed too: sparser than the window, it keeps a close from making the checks denser than a hiding would
        if (sinceMs(signals.phonePageSeenAt) <= s.pageOpenForSeconds * 1000) return s.readingSeconds * 1000;
        // a bill just made or a QR just fetched (a payer may pay it from the picture, on a shop's own screen): the
        // window in which this account's payers usually pay runs from the later of them; a page closed does not open
        // it again
        const sinceBillMs = now.getTime() - later(signals.newestCreatedAt, signals.qrFetchedAt);
        if (sinceBillMs <= learnedWindowMs(history, s.window)) return s.windowSeconds * 1000;
        // past it, the longer nobody has shown up the rarer the checks: a quarter of the quiet time by default
        const quietMs =
          now.getTime() -
          later(
            signals.newestCreatedAt,
            signals.qrFetchedAt,
            signals.pageSeenAt,
            signals.phonePageSeenAt,
            signals.pageHiddenAt,
          );
        return Math.max(s.windowSeconds * 1000, quietMs * s.backoffShare);
      }
      default: {
        const never: never = s.cadence;
        throw new Error(`unknown cadence ${String(never)}`);
      }
    }
  })();
  return Math.min(slowMs, Math.max(floorMs, wanted));
}

/** When the account is next due a check: at once if it never was, else its interval after the last one. */
export function nextCheckAt(
  signals: CheckSignals,
  history: CheckHistory,
  lastCheckAt: Date | null,
  now: Date,
  s: CadenceSettings,
): Date {
  if (!lastCheckAt) return now;
  return new Date(lastCheckAt.getTime() + checkIntervalMs(signals, history, now, s));
}
