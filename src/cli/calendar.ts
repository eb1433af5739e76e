import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { yearParams } from '../api/gateway-calendar.ts';
import { streamEvents } from '../audit/stream-pages.ts';
import type { StoreDeps } from '../commands/deps.ts';
import { operatorCli, setHolidayCalendarYear } from '../commands/holiday-calendar.ts';
import { holidayCalendarStream } from '../domain/holiday-calendar.ts';
import { holidayCalendarYear, missingYears, yearsDue, type HolidayCalendarYear } from '../domain/working-days.ts';
import { DomainError } from '../errors.ts';
import { parseRecorded } from '../events/event.ts';
import type { HolidayCalendarEvent } from '../events/holiday-calendar.ts';
import { shippedHolidayCalendar, uncoveredYearsWarning } from '../projections/holiday-calendar.ts';

const usage =
  'calendar show [<year>] | calendar import <year> <file>: the file holds what PUT /api/admin/gateway/calendar/{year} takes, ' +
  '{"source": "...", "days": [{"date": "YYYY-MM-DD", "name": "...", "kind": "libur-nasional|cuti-bersama"}]}';

type YearInForce = HolidayCalendarYear & { year: number; setBy: string; setAt: string | null };

/**
 * The years in force, folded from the calendar's stream over the shipped file (not from the read model: a year set here
 * while the service is stopped shows at once), with who set each: `shipped`, an admin's user id or `operator:cli`.
 */
async function yearsInForce(deps: StoreDeps): Promise<YearInForce[]> {
  const years = new Map<number, YearInForce>(
    Object.entries(shippedHolidayCalendar().years).map(([year, y]) => [
      Number(year),
      { year: Number(year), ...y, setBy: 'shipped', setAt: null },
    ]),
  );
  for await (const recorded of streamEvents(deps.store, holidayCalendarStream)) {
    const event = parseRecorded(recorded) as HolidayCalendarEvent | null;
    if (event?.type !== 'HolidayCalendarYearSet') continue;
    const { year, source, days, setBy, setAt } = event.data;
    years.set(year, { year, source, days, setBy, setAt });
  }
  return [...years.values()].sort((a, b) => a.year - b.year);
}

/** `calendar show [year]`: one year's decree as JSON (exit 1 when it has none), or every year with the missing ones. */
async function show(deps: StoreDeps, args: string[], print: (line: string) => void, complain: (line: string) => void) {
  const years = await yearsInForce(deps);
  if (args.length === 0) {
    const missing = missingYears(
      { years: Object.fromEntries(years.map(y => [y.year, y])) },
      yearsDue(deps.clock.now()),
    );
    const warning = uncoveredYearsWarning(missing);
    print(JSON.stringify({ years, missingYears: missing, ...(warning ? { warning } : {}) }, null, 2));
    if (warning) complain(`calendar: ${warning}`);
    return 0;
  }
  const year = yearOf(args[0], complain);
  if (year === null || args.length > 1) return 2;
  const found = years.find(y => y.year === year);
  if (!found) {
    complain(`calendar: ${uncoveredYearsWarning([year])}; set it with calendar import ${year} <file>`);
    return 1;
  }
  print(JSON.stringify(found, null, 2));
  return 0;
}

function yearOf(value: string | undefined, complain: (line: string) => void): number | null {
  const parsed = yearParams.shape.year.safeParse(value);
  if (parsed.success) return parsed.data;
  complain(`calendar: ${value ?? 'no year'} is not a year from 2000 to 2999\n${usage}`);
  return null;
}

const zodProblems = (error: z.ZodError) => error.issues.map(i => `${i.path.join('.') || '(file)'}: ${i.message}`);

/**
 * `calendar import <year> <file>`: the file's year set whole, checked as the admin route checks its body (the same
 * schema, then the decider: every date a date of that year, each once) and recorded as the operator's
 * (`operator:cli`). A refused file changes nothing: exit 1 with each problem on stderr; 2 for bad usage.
 */
async function importYear(
  deps: StoreDeps,
  args: string[],
  print: (line: string) => void,
  complain: (line: string) => void,
) {
  if (args.length !== 2) {
    complain(usage);
    return 2;
  }
  const year = yearOf(args[0], complain);
  if (year === null) return 2;
  let body: unknown;
  try {
    body = JSON.parse(await readFile(args[1]!, 'utf8'));
  } catch (err) {
    complain(`calendar: ${args[1]} is not a readable JSON file: ${(err as Error).message}`);
    return 1;
  }
  const parsed = holidayCalendarYear.safeParse(body);
  if (!parsed.success) {
    complain(`calendar: ${args[1]} refused, nothing changed:\n${zodProblems(parsed.error).join('\n')}`);
    return 1;
  }
  try {
    const done = await setHolidayCalendarYear(deps, operatorCli, { year, ...parsed.data });
    const changed = done.events.length > 0;
    print(JSON.stringify({ year, days: parsed.data.days.length, changed }));
    if (!changed) complain(`calendar: ${year} is already set as the file says; nothing recorded`);
    return 0;
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    complain(`calendar: ${args[1]} refused, nothing changed: ${err.message}`);
    return 1;
  }
}

/** `calendar show|import`: the settlement calendar's years, from the service's command line. */
export async function calendarCommand(
  deps: StoreDeps,
  args: string[],
  print: (line: string) => void = line => console.log(line),
  complain: (line: string) => void = line => console.error(line),
): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'show') return show(deps, rest, print, complain);
  if (sub === 'import') return importYear(deps, rest, print, complain);
  complain(usage);
  return 2;
}
