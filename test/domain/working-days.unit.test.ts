import { readFileSync, writeFileSync } from 'node:fs';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  holidayYearProblems,
  isCalendarDate,
  isWorkingDate,
  missingYears,
  settlementCutoff,
  settlesAt,
  wibDate,
  yearsDue,
  yearsJudged,
  type HolidayCalendar,
} from '../../src/domain/working-days.ts';
import { shippedHolidayCalendar } from '../../src/projections/holiday-calendar.ts';

const calendar = shippedHolidayCalendar();
const goldenFile = new URL('./settlement-2026.golden.txt', import.meta.url);
const weekdays = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** An instant given as WIB wall-clock time: WIB is UTC+7. */
const wib = (local: string) => new Date(`${local}+07:00`);

/** The every-year holidays written out by hand from the published dates (Easter 2026-04-05, 2027-03-28), for the naive walk. */
// the instants below start on 2025-12-01: that December's Christmas too
const everyYearByHand = [
  '2025-12-25',
  '2026-01-01',
  '2026-04-03',
  '2026-05-01',
  '2026-05-14',
  '2026-06-01',
  '2026-08-17',
  '2026-12-25',
  '2027-01-01',
  '2027-03-26',
  '2027-05-01',
  '2027-05-06',
  '2027-06-01',
  '2027-08-17',
  '2027-12-25',
];

/**
 * The rule walked naively, apart from the code under test: from the completion date, step one calendar date at a time
 * (Date's own calendar arithmetic) until a date that is neither Saturday, Sunday, an every-year holiday of Dec 2025-2027 nor
 * in the calendar's list of days.
 */
function naiveSettlementDate(completionDate: string, cal: HolidayCalendar): string {
  const listed = [...everyYearByHand, ...Object.values(cal.years).flatMap(y => y.days.map(d => d.date))];
  const date = new Date(`${completionDate}T00:00:00Z`);
  do date.setUTCDate(date.getUTCDate() + 1);
  while (date.getUTCDay() === 0 || date.getUTCDay() === 6 || listed.includes(date.toISOString().slice(0, 10)));
  return date.toISOString().slice(0, 10);
}

const datesOf2026 = Array.from({ length: 365 }, (_, i) =>
  new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10),
);
const weekdayOf = (date: string) => weekdays[new Date(`${date}T00:00:00Z`).getUTCDay()]!;

/** One row per day of 2026: completion date and weekday, settlement date and weekday (completed at noon WIB). */
function settlementTable(): string {
  const rows = datesOf2026.map(date => {
    const settles = wibDate(settlesAt(wib(`${date}T12:00:00`), calendar));
    return `${date} ${weekdayOf(date)} -> ${settles} ${weekdayOf(settles)}`;
  });
  return [
    '# completed (WIB date, weekday) -> settles at 00:00 WIB of (date, weekday); calendar: data/holiday-calendar.json, 2027 missing (weekends and every-year holidays only)',
    ...rows,
    '',
  ].join('\n');
}

describe('the settlement table of 2026 (golden file)', () => {
  it('is the committed table (UPDATE_GOLDEN=1 writes it again)', () => {
    const table = settlementTable();
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(goldenFile, table);
    expect(table).toBe(readFileSync(goldenFile, 'utf8'));
  });

  it('agrees on every day with the naive day-by-day walk, at any time of the WIB day', () => {
    for (const date of datesOf2026) {
      const expected = naiveSettlementDate(date, calendar);
      for (const time of ['00:00:00.000', '06:59:59.999', '07:00:00.000', '12:00:00.000', '23:59:59.999']) {
        expect(settlesAt(wib(`${date}T${time}`), calendar), `${date}T${time}`).toEqual(wib(`${expected}T00:00:00`));
      }
    }
  });

  const rows = new Map(
    settlementTable()
      .split('\n')
      .filter(l => /^\d/.test(l))
      .map(l => [l.slice(0, 10), l] as const),
  );
  it.each([
    // an ordinary week: Friday, Saturday and Sunday settle Monday, the other days the next day
    ['2026-02-02 Mon -> 2026-02-03 Tue'],
    ['2026-02-05 Thu -> 2026-02-06 Fri'],
    ['2026-02-06 Fri -> 2026-02-09 Mon'],
    ['2026-02-07 Sat -> 2026-02-09 Mon'],
    ['2026-02-08 Sun -> 2026-02-09 Mon'],
    // Imlek: cuti bersama Mon 16, libur Tue 17
    ['2026-02-13 Fri -> 2026-02-18 Wed'],
    // Nyepi and Idulfitri: 18 to 24 March are not working days, and everything from 17 March settles 25 March
    ['2026-03-17 Tue -> 2026-03-25 Wed'],
    ['2026-03-18 Wed -> 2026-03-25 Wed'],
    ['2026-03-19 Thu -> 2026-03-25 Wed'],
    ['2026-03-20 Fri -> 2026-03-25 Wed'],
    ['2026-03-21 Sat -> 2026-03-25 Wed'],
    ['2026-03-22 Sun -> 2026-03-25 Wed'],
    ['2026-03-23 Mon -> 2026-03-25 Wed'],
    ['2026-03-24 Tue -> 2026-03-25 Wed'],
    ['2026-03-25 Wed -> 2026-03-26 Thu'],
    // Wafat Yesus Kristus on Friday 3 April
    ['2026-04-02 Thu -> 2026-04-06 Mon'],
    // Kenaikan Thu 14 May and its cuti bersama Fri 15 May
    ['2026-05-13 Wed -> 2026-05-18 Mon'],
    // Iduladha Wed 27, cuti bersama Thu 28, then Friday works
    ['2026-05-26 Tue -> 2026-05-29 Fri'],
    // Waisak Sun 31 May, Pancasila Mon 1 June
    ['2026-05-29 Fri -> 2026-06-02 Tue'],
    // Natal: cuti bersama Thu 24, Natal Fri 25, then the weekend
    ['2026-12-23 Wed -> 2026-12-28 Mon'],
    // 2027 is not in the calendar, yet 1 January is Tahun Baru every year: Friday 1 is a holiday, then the weekend
    ['2026-12-30 Wed -> 2026-12-31 Thu'],
    ['2026-12-31 Thu -> 2027-01-04 Mon'],
  ])('%s', row => expect(rows.get(row.slice(0, 10))).toBe(row));

  it('names 2027 missing from the shipped calendar, and 2026 present', () => {
    expect(missingYears(calendar, [2026, 2027])).toEqual([2027]);
  });
});

describe('across New Year 2026-2027, with the shipped calendar (no 2027 decree)', () => {
  // no cuti bersama on 31 Dec 2026 in the 2026 decree; 1 Jan 2027 is Tahun Baru every year; 2-3 Jan are a weekend
  it.each([
    ['2026-12-30', 'Wed', '2026-12-31', 'Thu'],
    ['2026-12-31', 'Thu', '2027-01-04', 'Mon'],
    ['2027-01-01', 'Fri', '2027-01-04', 'Mon'],
    ['2027-01-02', 'Sat', '2027-01-04', 'Mon'],
    ['2027-01-03', 'Sun', '2027-01-04', 'Mon'],
    ['2027-01-04', 'Mon', '2027-01-05', 'Tue'],
  ])(
    'a payment completed on %s (%s) settles at 00:00 WIB of %s (%s)',
    (completed, completedDay, settles, settlesDay) => {
      expect(weekdayOf(completed)).toBe(completedDay);
      expect(weekdayOf(settles)).toBe(settlesDay);
      for (const time of ['00:00:00.000', '12:00:00.000', '23:59:59.999']) {
        expect(settlesAt(wib(`${completed}T${time}`), calendar), `${completed}T${time}`).toEqual(
          wib(`${settles}T00:00:00`),
        );
      }
    },
  );
});

describe('the years whose decree is due', () => {
  it('is this year (WIB) until 30 September, and next year too from 1 October 00:00 WIB', () => {
    expect(yearsDue(wib('2026-01-05T10:00:00'))).toEqual([2026]);
    expect(yearsDue(wib('2026-09-30T23:59:59.999'))).toEqual([2026]);
    expect(yearsDue(wib('2026-10-01T00:00:00'))).toEqual([2026, 2027]);
    expect(yearsDue(wib('2026-12-31T23:59:59.999'))).toEqual([2026, 2027]);
    expect(yearsDue(wib('2027-01-01T00:00:00'))).toEqual([2027]); // 31 Dec 2026 17:00 UTC: the year is the WIB one
  });

  it('a settlement judges the years from the day after the completion to today (WIB)', () => {
    expect(yearsJudged(wib('2026-12-30T12:00:00'), wib('2026-12-31T00:00:00'))).toEqual([2026]);
    expect(yearsJudged(wib('2026-12-31T00:00:00'), wib('2027-01-04T00:00:00'))).toEqual([2027]);
    expect(yearsJudged(wib('2026-12-30T23:59:59.999'), wib('2027-01-01T00:00:01'))).toEqual([2026, 2027]);
  });
});

describe('a WIB day', () => {
  it('begins at 17:00 UTC the day before: Friday 23:59:59.999 WIB settles Monday, as does Saturday 00:00 WIB', () => {
    const monday = new Date('2026-02-08T17:00:00.000Z');
    expect(settlesAt(new Date('2026-02-06T16:59:59.999Z'), calendar)).toEqual(monday);
    expect(settlesAt(new Date('2026-02-06T17:00:00.000Z'), calendar)).toEqual(monday);
    // Thursday 23:59:59.999 WIB is still Thursday: it settles Friday
    expect(settlesAt(new Date('2026-02-05T16:59:59.999Z'), calendar)).toEqual(new Date('2026-02-05T17:00:00.000Z'));
  });

  it('knows the working dates of the calendar', () => {
    expect(isWorkingDate('2026-03-25', calendar)).toBe(true);
    expect(isWorkingDate('2026-03-24', calendar)).toBe(false); // cuti bersama
    expect(isWorkingDate('2026-02-07', calendar)).toBe(false); // Saturday
    expect(isWorkingDate('2027-01-01', calendar)).toBe(false); // a year the calendar lacks: still Tahun Baru
    expect(isWorkingDate('2027-01-04', calendar)).toBe(true); // ... and weekdays that no every-year holiday names
  });
});

describe('settlementCutoff', () => {
  it('on a working day is its own 00:00 WIB; over a weekend or a holiday, that of the last working day', () => {
    expect(settlementCutoff(wib('2026-02-09T10:00:00'), calendar)).toEqual(wib('2026-02-09T00:00:00'));
    expect(settlementCutoff(wib('2026-02-08T23:00:00'), calendar)).toEqual(wib('2026-02-06T00:00:00'));
    expect(settlementCutoff(wib('2026-03-24T09:00:00'), calendar)).toEqual(wib('2026-03-17T00:00:00'));
    expect(settlementCutoff(wib('2026-03-25T00:00:00'), calendar)).toEqual(wib('2026-03-25T00:00:00'));
  });

  // instants of 2025-12-01 .. 2027-02-01, half of them within a millisecond of a WIB midnight
  const start = Date.parse('2025-11-30T17:00:00Z');
  const days = 430;
  const instant = fc.oneof(
    fc.integer({ min: 0, max: days * 86_400_000 }).map(ms => new Date(start + ms)),
    fc
      .tuple(fc.integer({ min: 0, max: days }), fc.constantFrom(-1, 0, 1))
      .map(([d, ms]) => new Date(start + d * 86_400_000 + ms)),
  );
  // the shipped calendar, or one of any dates of 2026 (to find edges the real one lacks)
  const anyCalendar = fc.oneof(
    fc.constant(calendar),
    fc.uniqueArray(fc.integer({ min: 0, max: 364 }), { maxLength: 120 }).map((picked): HolidayCalendar => ({
      years: {
        '2026': {
          source: 'test',
          days: picked.map(i => ({ date: datesOf2026[i]!, name: 'libur', kind: 'libur-nasional' as const })),
        },
      },
    })),
  );

  test.prop([instant, instant, anyCalendar], { numRuns: 2000 })(
    'what completed strictly before the cutoff at now is exactly what settles at or before now',
    (completedAt, now, cal) => {
      expect(completedAt < settlementCutoff(now, cal)).toBe(settlesAt(completedAt, cal) <= now);
    },
  );

  test.prop([instant, anyCalendar])('settles after completion, at 00:00 WIB of a working day', (completedAt, cal) => {
    const settles = settlesAt(completedAt, cal);
    expect(settles > completedAt).toBe(true);
    expect(settles.getTime() % 86_400_000).toBe(17 * 3_600_000);
    expect(isWorkingDate(wibDate(settles), cal)).toBe(true);
    expect(wibDate(settles)).toBe(naiveSettlementDate(wibDate(completedAt), cal));
  });
});

describe('the calendar data', () => {
  it('ships 2026 from the SKB 3 Menteri: 17 libur nasional and 8 cuti bersama, each named', () => {
    const year = calendar.years['2026']!;
    expect(year.source).toMatch(/SKB 3 Menteri/);
    expect(year.days.filter(d => d.kind === 'libur-nasional')).toHaveLength(17);
    expect(year.days.filter(d => d.kind === 'cuti-bersama')).toHaveLength(8);
    expect(year.days.every(d => d.name.length > 0)).toBe(true);
    expect(Object.keys(calendar.years)).toEqual(['2026']);
  });

  it('finds what is not a date, dates outside the year and dates given twice', () => {
    expect(
      holidayYearProblems(2027, [
        { date: '2027-01-01' },
        { date: '2026-12-31' },
        { date: '2027-01-01' },
        { date: '2027-02-29' },
      ]),
    ).toEqual([
      { index: 1, message: '2026-12-31 does not lie in 2027' },
      { index: 2, message: '2027-01-01 is given twice' },
      { index: 3, message: '2027-02-29 is not a date written YYYY-MM-DD' },
    ]);
    expect(holidayYearProblems(2027, [{ date: '2027-01-01' }, { date: '2027-12-31' }])).toEqual([]);
  });

  it('accepts real dates only', () => {
    expect(isCalendarDate('2026-02-28')).toBe(true);
    expect(isCalendarDate('2028-02-29')).toBe(true);
    expect(isCalendarDate('2026-02-29')).toBe(false);
    expect(isCalendarDate('2026-13-01')).toBe(false);
    expect(isCalendarDate('2026-1-01')).toBe(false);
  });
});
