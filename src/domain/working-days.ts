import { z } from 'zod';
import { text } from '../text.ts';
import { isEveryYearHoliday } from './every-year-holidays.ts';

/**
 * Working days in Asia/Jakarta, for the gateway's settlement: Saturday, Sunday and the days of the
 * holidays every year keeps (every-year-holidays.ts) and the days of the year's decree in the holiday calendar (libur
 * nasional, cuti bersama) are not. WIB is UTC+7 all year (no daylight saving), so a WIB day is computed with the offset
 * alone. A year missing from the calendar counts weekends and the every-year holidays only (`missingYears` names it).
 */

export type HolidayKind = 'libur-nasional' | 'cuti-bersama';
export type Holiday = { date: string; name: string; kind: HolidayKind };
export type HolidayCalendarYear = { source: string; days: Holiday[] };
export type HolidayCalendar = { years: Record<string, HolidayCalendarYear> };

/** A real calendar date written YYYY-MM-DD (2026-02-30 is not one). */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const at = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(at) && new Date(at).toISOString().slice(0, 10) === value;
}

export const calendarDate = z.string().refine(isCalendarDate, { message: 'must be a date written YYYY-MM-DD' });
export const holidayKind = z.enum(['libur-nasional', 'cuti-bersama']);
export const holiday = z.object({ date: calendarDate, name: text.trim().min(1).max(200), kind: holidayKind });
export const holidayCalendarYear = z.object({ source: text.trim().min(1).max(1000), days: z.array(holiday).max(366) });
export const holidayCalendarSchema = z.object({ years: z.record(z.string().regex(/^\d{4}$/), holidayCalendarYear) });

/** What is wrong with a year's days: not a date, a date outside the year, a date given twice (empty when nothing is). */
export function holidayYearProblems(
  year: number,
  days: readonly Pick<Holiday, 'date'>[],
): { index: number; message: string }[] {
  const seen = new Set<string>();
  return days.flatMap(({ date }, index) => {
    if (!isCalendarDate(date)) return [{ index, message: `${date} is not a date written YYYY-MM-DD` }];
    if (!date.startsWith(`${year}-`)) return [{ index, message: `${date} does not lie in ${year}` }];
    if (seen.has(date)) return [{ index, message: `${date} is given twice` }];
    seen.add(date);
    return [];
  });
}

/** The years among `years` that the calendar does not hold: their working days are weekdays less the every-year holidays. */
export function missingYears(calendar: HolidayCalendar, years: readonly number[]): number[] {
  return years.filter(year => !Object.hasOwn(calendar.years, String(year)));
}

const dayMs = 86_400_000;
const wibOffsetMs = 7 * 3_600_000;

/** Days since 1970-01-01, counted in WIB: the WIB day an instant falls on. */
const wibDay = (at: Date): number => Math.floor((at.getTime() + wibOffsetMs) / dayMs);
/** 00:00 WIB of a day. */
const startOfWibDay = (day: number): Date => new Date(day * dayMs - wibOffsetMs);
const dateOf = (day: number): string => new Date(day * dayMs).toISOString().slice(0, 10);
/** 0 Sunday .. 6 Saturday; 1970-01-01 was a Thursday. */
const weekdayOf = (day: number): number => (((day + 4) % 7) + 7) % 7;

// the set of dates is built once per calendar value (a calendar is not changed in place)
const holidayDates = new WeakMap<HolidayCalendar, Set<string>>();
function datesOf(calendar: HolidayCalendar): Set<string> {
  let dates = holidayDates.get(calendar);
  if (!dates) {
    dates = new Set(Object.values(calendar.years).flatMap(y => y.days.map(d => d.date)));
    holidayDates.set(calendar, dates);
  }
  return dates;
}

function isWorkingDay(day: number, calendar: HolidayCalendar): boolean {
  const weekday = weekdayOf(day);
  if (weekday === 0 || weekday === 6) return false;
  const date = dateOf(day);
  return !isEveryYearHoliday(date) && !datesOf(calendar).has(date);
}

/** The WIB date (YYYY-MM-DD) an instant falls on. */
export const wibDate = (at: Date): string => dateOf(wibDay(at));

/**
 * The years whose decree should be in force at `now`: this year (WIB), and next year from 1 October (WIB), when the
 * decree for it is usually out and a missing one is worth a warning.
 */
export function yearsDue(now: Date): number[] {
  const [year, month] = wibDate(now).split('-').map(Number) as [number, number];
  return month >= 10 ? [year, year + 1] : [year];
}

/** The years of the WIB days a settlement at `now` judged for a payment completed at `completedAt`: the day after to today. */
export function yearsJudged(completedAt: Date, now: Date): number[] {
  const first = Number(dateOf(wibDay(completedAt) + 1).slice(0, 4));
  const last = Number(wibDate(now).slice(0, 4));
  return Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => first + i);
}

/** Whether a date (YYYY-MM-DD) is a working day: a weekday neither an every-year holiday nor named by the calendar. */
export const isWorkingDate = (date: string, calendar: HolidayCalendar): boolean =>
  isWorkingDay(Date.parse(`${date}T00:00:00Z`) / dayMs, calendar);

/** When a payment completed at `completedAt` settles: 00:00 WIB of the first working day after its WIB day. */
export function settlesAt(completedAt: Date, calendar: HolidayCalendar): Date {
  let day = wibDay(completedAt) + 1;
  while (!isWorkingDay(day, calendar)) day++;
  return startOfWibDay(day);
}

/**
 * What is due at `now`: everything completed strictly before the instant returned, 00:00 WIB of the latest working day
 * on or before today (WIB). That is, `completedAt < settlementCutoff(now)` exactly when `settlesAt(completedAt) <= now`.
 */
export function settlementCutoff(now: Date, calendar: HolidayCalendar): Date {
  let day = wibDay(now);
  while (!isWorkingDay(day, calendar)) day--;
  return startOfWibDay(day);
}
