import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { easterSunday, everyYearHolidays, isEveryYearHoliday } from '../../src/domain/every-year-holidays.ts';
import { isWorkingDate, settlesAt, wibDate, type HolidayCalendar } from '../../src/domain/working-days.ts';

const dayMs = 86_400_000;
const weekdayOf = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay();
const shifted = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * dayMs).toISOString().slice(0, 10);
const noDecree: HolidayCalendar = { years: {} };

describe('Easter Sunday (anonymous Gregorian algorithm)', () => {
  it.each([
    [1943, '1943-04-25'], // the latest possible date
    [2000, '2000-04-23'],
    [2008, '2008-03-23'],
    [2019, '2019-04-21'],
    [2024, '2024-03-31'],
    [2025, '2025-04-20'],
    [2026, '2026-04-05'],
    [2027, '2027-03-28'],
    [2028, '2028-04-16'],
    [2029, '2029-04-01'],
    [2030, '2030-04-21'],
    [2038, '2038-04-25'],
    [2285, '2285-03-22'], // the earliest possible date
  ])('of %i is %s', (year, date) => expect(easterSunday(year)).toBe(date));

  test.prop([fc.integer({ min: 1583, max: 4099 })])('is a Sunday from 22 March to 25 April', year => {
    const easter = easterSunday(year);
    expect(weekdayOf(easter)).toBe(0);
    expect(easter >= `${year}-03-22` && easter <= `${year}-04-25`).toBe(true);
  });
});

describe('the holidays of every year', () => {
  it('are the fixed dates, Good Friday and Ascension Day (Easter + 39), in date order', () => {
    expect(everyYearHolidays(2027)).toEqual([
      { date: '2027-01-01', name: 'Tahun Baru Masehi' },
      { date: '2027-03-26', name: 'Wafat Yesus Kristus' },
      { date: '2027-05-01', name: 'Hari Buruh Internasional' },
      { date: '2027-05-06', name: 'Kenaikan Yesus Kristus' },
      { date: '2027-06-01', name: 'Hari Lahir Pancasila' },
      { date: '2027-08-17', name: 'Hari Kemerdekaan Republik Indonesia' },
      { date: '2027-12-25', name: 'Kelahiran Yesus Kristus (Natal)' },
    ]);
  });

  it('agree with the 2026 decree shipped (Good Friday 3 April, Ascension 14 May)', () => {
    expect(everyYearHolidays(2026).map(h => h.date)).toEqual([
      '2026-01-01',
      '2026-04-03',
      '2026-05-01',
      '2026-05-14',
      '2026-06-01',
      '2026-08-17',
      '2026-12-25',
    ]);
  });

  const year = fc.integer({ min: 2000, max: 2100 });

  test.prop([year])(
    '1 Jan, 1 May, 1 Jun, 17 Aug, 25 Dec, Good Friday and Ascension are never working days, decree or not',
    y => {
      const easter = easterSunday(y);
      const dates = [
        `${y}-01-01`,
        `${y}-05-01`,
        `${y}-06-01`,
        `${y}-08-17`,
        `${y}-12-25`,
        shifted(easter, -2),
        shifted(easter, 39),
      ];
      for (const date of dates) {
        expect(isEveryYearHoliday(date), date).toBe(true);
        expect(isWorkingDate(date, noDecree), date).toBe(false);
      }
      expect(weekdayOf(shifted(easter, -2))).toBe(5); // Good Friday
      expect(weekdayOf(shifted(easter, 39))).toBe(4); // Ascension is a Thursday
    },
  );

  test.prop([year, fc.integer({ min: 0, max: 365 }), fc.integer({ min: 0, max: dayMs - 1 })])(
    'the next working day after any date is a weekday that is none of them',
    (y, dayOfYear, msOfDay) => {
      const completedAt = new Date(Date.UTC(y, 0, 1 + dayOfYear) - 7 * 3_600_000 + msOfDay); // some instant of that WIB day
      const settles = wibDate(settlesAt(completedAt, noDecree));
      expect([0, 6]).not.toContain(weekdayOf(settles));
      expect(everyYearHolidays(Number(settles.slice(0, 4))).map(h => h.date)).not.toContain(settles);
      expect(settles > wibDate(completedAt)).toBe(true);
      // and nothing before it was passed over that was a working day
      for (let d = shifted(wibDate(completedAt), 1); d < settles; d = shifted(d, 1))
        expect(isWorkingDate(d, noDecree), d).toBe(false);
    },
  );
});
