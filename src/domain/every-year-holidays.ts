/**
 * The national holidays Indonesia keeps every year, whatever the year's decree (SKB 3 Menteri) says besides: the
 * fixed-date ones and the two that follow Easter on a weekday (docs/decisions.md, "Calendars every year"). The year's
 * decree adds the Islamic, Chinese, Hindu and Buddhist holidays and the cuti bersama, which no rule can compute.
 */

export type EveryYearHoliday = { date: string; name: string };

const fixedDates: readonly [month: number, day: number, name: string][] = [
  [1, 1, 'Tahun Baru Masehi'],
  [5, 1, 'Hari Buruh Internasional'],
  [6, 1, 'Hari Lahir Pancasila'],
  [8, 17, 'Hari Kemerdekaan Republik Indonesia'],
  [12, 25, 'Kelahiran Yesus Kristus (Natal)'],
];

const dayMs = 86_400_000;
const two = (n: number) => String(n).padStart(2, '0');

/** Easter Sunday of a Gregorian year (YYYY-MM-DD), by the anonymous Gregorian algorithm (Meeus/Jones/Butcher). */
export function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${two(month)}-${two(day)}`;
}

/** The date `days` after (or before) a date, both YYYY-MM-DD. */
const shifted = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * dayMs).toISOString().slice(0, 10);

/** The holidays of `year` that need no decree: 1 Jan, 1 May, 1 Jun, 17 Aug, 25 Dec, Good Friday and Ascension Day. */
export function everyYearHolidays(year: number): EveryYearHoliday[] {
  const easter = easterSunday(year);
  const fixed = fixedDates.map(([month, day, name]) => ({ date: `${year}-${two(month)}-${two(day)}`, name }));
  const easterDated = [
    { date: shifted(easter, -2), name: 'Wafat Yesus Kristus' },
    { date: shifted(easter, 39), name: 'Kenaikan Yesus Kristus' },
  ];
  return [...fixed, ...easterDated].sort((x, y) => x.date.localeCompare(y.date));
}

// a year's dates are computed once (the rule never changes, so the memo is as pure as the function)
const datesByYear = new Map<number, ReadonlySet<string>>();

/** Whether a date (YYYY-MM-DD) is one of the holidays of its year that need no decree. */
export function isEveryYearHoliday(date: string): boolean {
  const year = Number(date.slice(0, 4));
  let dates = datesByYear.get(year);
  if (!dates) {
    dates = new Set(everyYearHolidays(year).map(h => h.date));
    datesByYear.set(year, dates);
  }
  return dates.has(date);
}
