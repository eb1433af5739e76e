import { describe, expect, it } from 'vitest';
import {
  gatewayPeriods,
  monthAfter,
  monthBounds,
  monthOfDays,
  type ClosePeriod,
  type ReopenPeriod,
} from '../../src/domain/gateway-periods.ts';
import { GatewayPeriodClosed, GatewayPeriodReopened } from '../../src/events/gateway-periods.ts';
import { specification } from '../support/decider.ts';

const given = specification(gatewayPeriods);
const adminId = '3c4d5e6f-7a8b-4c9d-8e0f-2a3b4c5d6e7f';
const hash = 'a'.repeat(64);
const through = { commit: '10', prepare: '20' };
/** 2 December 2026, 10:00 WIB: November has ended, December has not. */
const now = new Date('2026-12-02T03:00:00.000Z');

const close = (period: string, at = now): ClosePeriod => ({
  type: 'ClosePeriod',
  period,
  report: { period: { from: `${period}-01` } },
  reportHash: hash,
  through,
  closedBy: adminId,
  now: at,
});
const closed = (period: string, at = now) =>
  GatewayPeriodClosed({
    period,
    report: { period: { from: `${period}-01` } },
    reportHash: hash,
    through,
    closedBy: adminId,
    closedAt: at.toISOString(),
  });
const reopen = (period: string, reason = 'Koreksi mutasi terlambat'): ReopenPeriod => ({
  type: 'ReopenPeriod',
  period,
  reason,
  reopenedBy: adminId,
  now,
});
const reopened = (period: string) =>
  GatewayPeriodReopened({
    period,
    reason: 'Koreksi mutasi terlambat',
    reopenedBy: adminId,
    reopenedAt: now.toISOString(),
  });

describe('closing a month', () => {
  it('a month that has ended closes, its report and hash in the event', () =>
    given([])
      .when(close('2026-11'))
      .then([closed('2026-11')]));

  it('a month not yet over is refused', () => given([]).when(close('2026-12')).thenThrows('PERIOD_NOT_ENDED'));

  it('a month is refused to the millisecond before its end (WIB)', () =>
    given([])
      .when(close('2026-11', new Date('2026-11-30T16:59:59.999Z')))
      .thenThrows('PERIOD_NOT_ENDED'));

  it('a month closes at its end (WIB)', () =>
    given([])
      .when(close('2026-11', new Date('2026-11-30T17:00:00.000Z')))
      .then([closed('2026-11', new Date('2026-11-30T17:00:00.000Z'))]));

  it('a month closed already is refused', () =>
    given([closed('2026-11')])
      .when(close('2026-11'))
      .thenThrows('PERIOD_ALREADY_CLOSED'));

  it('a month after the next one to close is refused: months close in order', () =>
    given([closed('2026-09')])
      .when(close('2026-11'))
      .thenThrows('PERIOD_OUT_OF_ORDER'));

  it('a month before the latest closed is refused', () =>
    given([closed('2026-10')])
      .when(close('2026-09'))
      .thenThrows('PERIOD_OUT_OF_ORDER'));

  it('the month after the latest closed closes', () =>
    given([closed('2026-10')])
      .when(close('2026-11'))
      .then([closed('2026-11')]));

  it('with none closed now, any month that has ended closes first', () =>
    given([closed('2026-10'), reopened('2026-10')])
      .when(close('2026-08'))
      .then([closed('2026-08')]));
});

describe('reopening a month', () => {
  it('the latest closed month reopens with its reason', () =>
    given([closed('2026-11')])
      .when(reopen('2026-11'))
      .then([reopened('2026-11')]));

  it('a reopened month closes again', () =>
    given([closed('2026-11'), reopened('2026-11')])
      .when(close('2026-11'))
      .then([closed('2026-11')]));

  it('a month never closed is refused', () => given([]).when(reopen('2026-11')).thenThrows('PERIOD_NOT_CLOSED'));

  it('a month reopened already is refused', () =>
    given([closed('2026-11'), reopened('2026-11')])
      .when(reopen('2026-11'))
      .thenThrows('PERIOD_NOT_CLOSED'));

  it('only the latest closed month reopens: an earlier closing is the next month frozen opening', () =>
    given([closed('2026-10'), closed('2026-11')])
      .when(reopen('2026-10'))
      .thenThrows('PERIOD_OUT_OF_ORDER'));

  it('a blank reason is refused', () =>
    given([closed('2026-11')])
      .when(reopen('2026-11', '   '))
      .thenThrows('INVALID_INPUT'));
});

describe('months', () => {
  it('are WIB months', () => {
    expect(monthBounds('2026-11')).toEqual({
      startsAt: new Date('2026-10-31T17:00:00.000Z'),
      endsAt: new Date('2026-11-30T17:00:00.000Z'),
    });
    expect(monthAfter('2026-12')).toBe('2027-01');
    expect(monthAfter('2026-01', -1)).toBe('2025-12');
  });

  it('a period of days is a month only from its first to its last day', () => {
    expect(monthOfDays('2026-11-01', '2026-11-30')).toBe('2026-11');
    expect(monthOfDays('2028-02-01', '2028-02-29')).toBe('2028-02');
    expect(monthOfDays('2026-11-01', '2026-11-29')).toBeNull();
    expect(monthOfDays('2026-11-02', '2026-11-30')).toBeNull();
    expect(monthOfDays('2026-11-01', '2026-12-31')).toBeNull();
  });
});
