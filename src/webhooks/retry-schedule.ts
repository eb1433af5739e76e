/**
 * When a delivery is tried: the one place that says it. Entry n is the wait before attempt n + 1, measured from the
 * attempt before it; the first attempt goes at once. In all about three days (75.6 hours), like the schedules of
 * Standard Webhooks senders.
 */
export const retryDelaysMs: readonly number[] = [
  0,
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  24 * 3_600_000,
];

/** Each wait moves by up to this fraction either way, so receivers back from an outage are not hit in lock step. */
export const jitter = 0.1;

/** A receiver's `Retry-After` is honoured up to this; a longer one waits this long. */
export const maxRetryAfterMs = 24 * 3_600_000;

/**
 * The wait after attempt number `made` failed, before the next one; null when the schedule is spent.
 * `random` is in [0, 1) and places the jitter. A `Retry-After` makes the wait at least that long (bounded).
 */
export function nextAttemptDelay(input: {
  made: number;
  random: number;
  retryAfterMs: number | null;
  delays?: readonly number[];
}): number | null {
  const delays = input.delays ?? retryDelaysMs;
  const base = delays[input.made];
  if (input.made < 1 || base === undefined) return null;
  const jittered = Math.round(base * (1 + jitter * (2 * input.random - 1)));
  if (input.retryAfterMs === null) return jittered;
  return Math.max(jittered, Math.min(Math.max(input.retryAfterMs, 0), maxRetryAfterMs));
}

/** `Retry-After` as delay-seconds or an HTTP date, in milliseconds from `nowMs`; null when absent or unreadable. */
export function parseRetryAfter(header: string | undefined, nowMs: number): number | null {
  const value = header?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  if (!/[a-z]/i.test(value)) return null; // a date has a weekday or month name: "-5" or "1.5" is not one
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}
