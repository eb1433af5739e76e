import { describe, it } from 'vitest';
import { holidayCalendar } from '../../src/domain/holiday-calendar.ts';
import type { Holiday } from '../../src/domain/working-days.ts';
import { HolidayCalendarYearSet } from '../../src/events/holiday-calendar.ts';
import { specification } from '../support/decider.ts';

const adminId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
const now = new Date('2026-11-02T03:00:00.000Z');
const newYear: Holiday = { date: '2027-01-01', name: 'Tahun Baru 2027 Masehi', kind: 'libur-nasional' };
const labour: Holiday = { date: '2027-05-01', name: 'Hari Buruh Internasional', kind: 'libur-nasional' };
const source = 'SKB 3 Menteri tentang Hari Libur Nasional dan Cuti Bersama Tahun 2027';
const set = (days: Holiday[], at = now, src = source) =>
  HolidayCalendarYearSet({ year: 2027, source: src, days, setBy: adminId, setAt: at.toISOString() });
const command = (days: Holiday[], src = source) => ({
  type: 'SetHolidayCalendarYear' as const,
  year: 2027,
  source: src,
  days,
  setBy: adminId,
  now,
});

describe('holiday calendar decider', () => {
  const given = specification(holidayCalendar);

  it('sets a year with its source, the days in date order', () =>
    given([])
      .when(command([labour, newYear]))
      .then([set([newYear, labour])]));

  it('sets a year again whole: other days replace it', () =>
    given([set([newYear])])
      .when(command([newYear, labour]))
      .then([set([newYear, labour])]));

  it('sets a year again whole: another source replaces it', () =>
    given([set([newYear])])
      .when(command([newYear], 'corrected'))
      .then([set([newYear], now, 'corrected')]));

  it('sets a year again whole: no days replace its days', () =>
    given([set([newYear, labour])])
      .when(command([]))
      .then([set([])]));

  it('records nothing when the year is set as it is already, in any order', () =>
    given([set([newYear, labour], new Date('2026-10-01T00:00:00Z'))])
      .when(command([labour, newYear]))
      .then([]));

  it('refuses a date outside the year, naming it', () =>
    given([])
      .when(command([newYear, { ...labour, date: '2026-05-01' }]))
      .thenThrows('INVALID_HOLIDAY_CALENDAR', '2026-05-01 does not lie in 2027'));

  it('refuses a date given twice', () =>
    given([])
      .when(command([newYear, { ...newYear, name: 'again' }]))
      .thenThrows('INVALID_HOLIDAY_CALENDAR', '2027-01-01 is given twice'));

  it('refuses what is not a date', () =>
    given([])
      .when(command([{ ...labour, date: '2027-02-30' }]))
      .thenThrows('INVALID_HOLIDAY_CALENDAR', '2027-02-30 is not a date written YYYY-MM-DD'));
});
