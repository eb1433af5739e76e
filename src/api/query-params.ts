import { z } from 'zod';
import { isCalendarDate } from '../domain/working-days.ts';

/**
 * The query parameters the lists share, for the JSON routes (their schemas, so the OpenAPI document says what is
 * enforced) and the pages (their filters, parsed with the same schemas): dates, instants, page numbers and sizes.
 * Whatever passes here is safe to compute with: a real date, a Date that is not Invalid Date, an offset PostgreSQL takes.
 */

/** The years a date in a query may name: every record the service holds and any period finance asks about lies within. */
export const queryYears = { first: 2000, last: 2100 } as const;
/** The last page a list serves: with the largest page size, a hundred million rows deep. */
export const maxPage = 1_000_000;
/** The largest page size of a list, as the interface says of accounts and mutations. */
export const maxLimit = 100;

const dayMs = 86_400_000;
const yearPattern = '(20[0-9]{2}|2100)';
const datePattern = `${yearPattern}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])`;
const inQueryYears = (value: string) => {
  const year = Number(value.slice(0, 4));
  return year >= queryYears.first && year <= queryYears.last;
};

/** A real calendar date written YYYY-MM-DD (no month 13, no February 30) in `queryYears`. */
export const isQueryDate = (value: string): boolean => isCalendarDate(value) && inQueryYears(value);

const queryDateMessage = `must be a real date written YYYY-MM-DD, in the years ${queryYears.first} to ${queryYears.last}`;

/** A day of a query, YYYY-MM-DD, as `isQueryDate` takes it; the document says the format and the years. */
export const queryDate = (description = `A date, YYYY-MM-DD, years ${queryYears.first} to ${queryYears.last}`) =>
  z
    .string()
    .refine(isQueryDate, { message: queryDateMessage })
    .meta({
      format: 'date',
      pattern: `^${datePattern}$`,
      description,
    });

/** An instant with its offset (ISO 8601, `2026-03-01T10:00:00+07:00`) in `queryYears`, as a Date. */
export const queryInstant = () =>
  z.iso
    .datetime({ offset: true })
    .refine(inQueryYears, { message: `must be in the years ${queryYears.first} to ${queryYears.last}` })
    .meta({ pattern: `^${datePattern}T.+$` })
    .transform(at => new Date(at));

/** The zones a day of a query is read in: UTC, or WIB (UTC+7 all year, the merchants' and the settlement's day). */
export type DayZone = 'UTC' | 'WIB';
const zoneHours: Record<DayZone, number> = { UTC: 0, WIB: 7 };

/** The instant a day starts at in `zone`. */
export const dayStart = (date: string, zone: DayZone) =>
  new Date(Date.parse(`${date}T00:00:00.000Z`) - zoneHours[zone] * 3_600_000);

/** A period's `from`: an instant, or a day meaning from its 00:00 in `zone`. */
export const periodFrom = (zone: DayZone) =>
  z
    .union([queryInstant(), queryDate().transform(d => dayStart(d, zone))])
    .meta({ description: `An instant with its offset, or a day YYYY-MM-DD from its 00:00 ${zone}` });

/** A period's `to`: an instant (excluded), or a day meaning the whole of it (up to the next day's 00:00 in `zone`). */
export const periodTo = (zone: DayZone) =>
  z
    .union([queryInstant(), queryDate().transform(d => new Date(dayStart(d, zone).getTime() + dayMs))])
    .meta({ description: `An instant with its offset (excluded), or a day YYYY-MM-DD, the whole of it (${zone})` });

/** What a period's order refines to, fresh for each schema (zod takes the object over); pages say it in their words. */
export const periodOrderMessage = 'from must be before to';
export const periodOrder = () => ({ message: periodOrderMessage, path: ['from'] });
export const fromBeforeTo = (q: { from?: Date | undefined; to?: Date | undefined }) =>
  !q.from || !q.to || q.from < q.to;

/** A list's page number, from 1 up to `maxPage`; absent, the first. */
export const pageNumber = z.coerce.number().int().min(1).max(maxPage).default(1);

/** A list's page size, from 1 up to `max` (the interface's 100 unless a list says otherwise); absent, `byDefault`. */
export const pageSize = (byDefault: number, max: number = maxLimit) =>
  z.coerce.number().int().min(1).max(max).default(byDefault);

/** A position in an event stream, from 0 (its first event) up to the largest integer a number holds exactly. */
export const streamRevision = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0);
