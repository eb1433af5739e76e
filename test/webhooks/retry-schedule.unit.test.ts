import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { afterAttempt, type AttemptJob } from '../../src/webhooks/delivery-state.ts';
import {
  jitter,
  maxRetryAfterMs,
  nextAttemptDelay,
  parseRetryAfter,
  retryDelaysMs,
} from '../../src/webhooks/retry-schedule.ts';
import type { AttemptResult } from '../../src/webhooks/send.ts';

const hour = 3_600_000;
const random = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
const made = fc.integer({ min: 1, max: retryDelaysMs.length - 1 });

describe('retry schedule', () => {
  it('tries at once, then after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h: about three days', () => {
    expect(retryDelaysMs).toEqual([
      0,
      5_000,
      300_000,
      1_800_000,
      2 * hour,
      5 * hour,
      10 * hour,
      14 * hour,
      20 * hour,
      24 * hour,
    ]);
    const total = retryDelaysMs.reduce((a, b) => a + b, 0);
    expect(total / (24 * hour)).toBeCloseTo(3.15, 2);
  });

  test.prop([made, random])('each wait is the scheduled one, moved by the jitter at most', (n, r) => {
    const base = retryDelaysMs[n]!;
    const wait = nextAttemptDelay({ made: n, random: r, retryAfterMs: null })!;
    expect(wait).toBeGreaterThanOrEqual(Math.floor(base * (1 - jitter)));
    expect(wait).toBeLessThanOrEqual(Math.ceil(base * (1 + jitter)));
  });

  test.prop([made, random])('waits grow along the schedule', (n, r) => {
    fc.pre(n < retryDelaysMs.length - 1);
    expect(nextAttemptDelay({ made: n + 1, random: r, retryAfterMs: null })!).toBeGreaterThan(
      nextAttemptDelay({ made: n, random: r, retryAfterMs: null })!,
    );
  });

  test.prop([fc.integer({ min: retryDelaysMs.length, max: 1000 }), random])(
    'the schedule ends after its last attempt',
    (n, r) => {
      expect(nextAttemptDelay({ made: n, random: r, retryAfterMs: null })).toBeNull();
    },
  );

  test.prop([made, random, fc.integer({ min: 0, max: 10 * 24 * hour })])(
    'Retry-After makes the wait at least that long, up to a bound, and never shortens it',
    (n, r, retryAfterMs) => {
      const scheduled = nextAttemptDelay({ made: n, random: r, retryAfterMs: null })!;
      const wait = nextAttemptDelay({ made: n, random: r, retryAfterMs })!;
      expect(wait).toBeGreaterThanOrEqual(Math.min(retryAfterMs, maxRetryAfterMs));
      expect(wait).toBeGreaterThanOrEqual(scheduled);
      expect(wait).toBeLessThanOrEqual(Math.max(scheduled, maxRetryAfterMs));
    },
  );

  test.prop([fc.array(fc.integer({ min: 0, max: 100_000 }), { minLength: 1, maxLength: 8 }), random])(
    'a shorter schedule given by tests is followed',
    (delays, r) => {
      for (let n = 1; n < delays.length; n++) {
        const wait = nextAttemptDelay({ made: n, random: r, retryAfterMs: null, delays })!;
        expect(Math.abs(wait - delays[n]!)).toBeLessThanOrEqual(Math.ceil(delays[n]! * jitter));
      }
      expect(nextAttemptDelay({ made: delays.length, random: r, retryAfterMs: null, delays })).toBeNull();
    },
  );
});

describe('Retry-After', () => {
  const now = Date.parse('2026-01-05T03:00:00Z');
  it('reads delay-seconds and HTTP dates, and ignores what it cannot read', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Mon, 05 Jan 2026 03:01:30 GMT', now)).toBe(90_000);
    expect(parseRetryAfter('Mon, 05 Jan 2026 02:00:00 GMT', now)).toBe(0); // in the past: at once
    for (const unreadable of [undefined, '', 'soon', '-5', '1.5']) expect(parseRetryAfter(unreadable, now)).toBeNull();
  });
});

describe('a delivery after an attempt', () => {
  const delays = [0, 100, 200];
  const job = (step: number, manual = false): AttemptJob => ({
    deliveryId: '0195f0a0-0000-7000-8000-000000000000',
    step,
    manual,
  });
  const answered = (statusCode: number | null, retryAfterMs: number | null = null): AttemptResult => ({
    statusCode,
    error: statusCode === null ? 'connect ECONNREFUSED' : null,
    retryAfterMs,
    durationMs: 3,
  });
  const pending = (scheduleStep: number) => ({ status: 'pending' as const, scheduleStep });

  test.prop([fc.integer({ min: 200, max: 299 }), fc.integer({ min: 1, max: 3 })])(
    'succeeds on any 2xx',
    (status, step) => {
      expect(afterAttempt(pending(step - 1), job(step), answered(status), { delays, random: 0.5 })).toMatchObject({
        status: 'succeeded',
        nextAttemptInMs: null,
      });
    },
  );

  test.prop([
    fc.oneof(
      fc.integer({ min: 100, max: 199 }),
      fc.integer({ min: 300, max: 599 }).filter(s => s !== 410),
      fc.constant(null),
    ),
  ])('waits for the next step after anything else, and fails when the schedule is spent', status => {
    expect(afterAttempt(pending(0), job(1), answered(status), { delays, random: 0.5 })).toEqual({
      status: 'pending',
      scheduleStep: 1,
      statusReason: null,
      nextAttemptInMs: 100,
    });
    expect(afterAttempt(pending(2), job(3), answered(status), { delays, random: 0.5 })).toMatchObject({
      status: 'failed',
      nextAttemptInMs: null,
    });
  });

  it('fails at once on 410 Gone', () => {
    expect(afterAttempt(pending(0), job(1), answered(410), { delays, random: 0.5 })).toMatchObject({
      status: 'failed',
      nextAttemptInMs: null,
    });
  });

  it('ignores a stale attempt: a step already made, or a delivery that is over', () => {
    for (const delivery of [
      pending(1),
      { status: 'succeeded' as const, scheduleStep: 0 },
      { status: 'cancelled' as const, scheduleStep: 0 },
    ]) {
      expect(afterAttempt(delivery, job(1), answered(500), { delays, random: 0.5 })).toEqual({
        ...delivery,
        statusReason: null,
        nextAttemptInMs: null,
      });
    }
  });
});
