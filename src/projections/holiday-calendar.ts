import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { query, type Queryable } from '../db/pool.ts';
import {
  holidayCalendarSchema,
  holidayYearProblems,
  missingYears,
  yearsDue,
  type HolidayCalendar,
  type HolidayCalendarYear,
} from '../domain/working-days.ts';
import { projection } from './projection.ts';

/** Read model of the holiday calendar's years an admin set (stream holiday-calendar): one row per year, as last set. */
export const holidayCalendarProjection = projection({
  name: 'holiday-calendar',
  tables: ['holiday_calendar_years'],
  schema: [
    `
    create table if not exists holiday_calendar_years (
      year int primary key,
      source text not null,
      days json not null,
      set_at timestamptz not null
    );`,
  ],
  on: {
    async HolidayCalendarYearSet(tx, { data: d }) {
      await query(
        tx,
        'ProjectHolidayCalendarYearSet',
        `insert into holiday_calendar_years (year, source, days, set_at) values ($1, $2, $3, $4)
         on conflict (year) do update set source = excluded.source, days = excluded.days, set_at = excluded.set_at`,
        [d.year, d.source, JSON.stringify(d.days), d.setAt],
      );
    },
  },
});

export type HolidayCalendarYearRow = { year: number; source: string; days: HolidayCalendarYear['days']; set_at: Date };

/** The years an admin set, by year. */
export async function listHolidayCalendarYears(db: Queryable): Promise<HolidayCalendarYearRow[]> {
  const r = await query<HolidayCalendarYearRow>(
    db,
    'ListHolidayCalendarYears',
    'select year, source, days, set_at from holiday_calendar_years order by year',
  );
  return r.rows;
}

const shippedFile = new URL('../../data/holiday-calendar.json', import.meta.url);

/** The shipped file's text as a calendar, each year's days checked. */
function parseShipped(text: string, file: URL): HolidayCalendar {
  const calendar = holidayCalendarSchema.parse(JSON.parse(text));
  for (const [year, { days }] of Object.entries(calendar.years)) {
    const problem = holidayYearProblems(Number(year), days)[0];
    if (problem) throw new Error(`${file.pathname}: ${year}: ${problem.message}`);
  }
  return calendar;
}

/** The calendar shipped with the service (data/holiday-calendar.json), read at once: for start-up and the CLI. */
export function shippedHolidayCalendar(file: URL = shippedFile): HolidayCalendar {
  return parseShipped(readFileSync(file, 'utf8'), file);
}

/** The file's parse, by path, with the stat it was read at. */
const parsed = new Map<string, { version: string; calendar: Promise<HolidayCalendar> }>();

/**
 * The shipped calendar as a request reads it: parsed once per version of the file, never read synchronously. The file
 * may be replaced while the service runs (a deploy, an operator's edit, from another process), so each call stats
 * it: a file whose inode, size or modification time (in nanoseconds) changed is read again, an unchanged one is not.
 * Callers at once on a change share one read; a failed read is not kept.
 */
export async function readShippedHolidayCalendar(file: URL = shippedFile): Promise<HolidayCalendar> {
  const { ino, size, mtimeNs } = await stat(file, { bigint: true });
  const version = `${ino}:${size}:${mtimeNs}`;
  const known = parsed.get(file.href);
  if (known?.version === version) return known.calendar;
  const calendar = readFile(file, 'utf8').then(text => parseShipped(text, file));
  parsed.set(file.href, { version, calendar });
  calendar.catch(() => {
    if (parsed.get(file.href)?.calendar === calendar) parsed.delete(file.href);
  });
  return calendar;
}

/** Where each year of the calendar in force comes from: the shipped file, or an admin (and when). */
export type HolidayCalendarOrigin = Record<string, { setBy: 'shipped' } | { setBy: 'admin'; setAt: Date }>;

/** The calendar in force, with where each year comes from: the shipped file, overlaid by the years an admin set. */
export async function loadHolidayCalendarWithOrigin(db: Queryable, given?: HolidayCalendar) {
  const shipped = given ?? (await readShippedHolidayCalendar());
  const years = { ...shipped.years };
  const origin: HolidayCalendarOrigin = Object.fromEntries(
    Object.keys(shipped.years).map(y => [y, { setBy: 'shipped' as const }]),
  );
  for (const row of await listHolidayCalendarYears(db)) {
    years[String(row.year)] = { source: row.source, days: row.days };
    origin[String(row.year)] = { setBy: 'admin', setAt: row.set_at };
  }
  return { calendar: { years } satisfies HolidayCalendar, origin };
}

/** The calendar settlement uses: the shipped file (data/holiday-calendar.json), overlaid by the years an admin set. */
export async function loadHolidayCalendar(db: Queryable, shipped?: HolidayCalendar): Promise<HolidayCalendar> {
  return (await loadHolidayCalendarWithOrigin(db, shipped)).calendar;
}

/**
 * The years due at `now` (this one, and from 1 October WIB the next) that neither the shipped file nor an admin
 * covers: they count weekends and the every-year holidays only, so `/ready` and the admin console warn of them.
 */
export async function uncoveredYears(db: Queryable, now: Date, shipped?: HolidayCalendar): Promise<number[]> {
  return missingYears(await loadHolidayCalendar(db, shipped), yearsDue(now));
}

/** The warning `/ready` and the admin console give for the uncovered years (null when none is). */
export function uncoveredYearsWarning(years: readonly number[]): string | null {
  if (years.length === 0) return null;
  return `no holiday decree for ${years.join(', ')}: settlement into it counts weekends and the every-year holidays only`;
}
