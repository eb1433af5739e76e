import type { StoreDeps } from './deps.ts';
import { handleCommand } from '../store/commands/handle.ts';
import type { Holiday } from '../domain/working-days.ts';
import { holidayCalendarStream, holidayCalendar } from '../domain/holiday-calendar.ts';
import { holidayCalendarProjection } from '../projections/holiday-calendar.ts';

/** Who sets a year from the command line: the operator, who has no user id. */
export const operatorCli = 'operator:cli';

/**
 * An admin (by user id) or the operator (`operatorCli`) sets one year of the calendar, whole; settlement not yet done
 * follows the new days. Answers once the calendar's read model has it (the admin reads it next, the settlement at its
 * next tick).
 */
export async function setHolidayCalendarYear(
  deps: StoreDeps,
  setBy: string,
  input: { year: number; source: string; days: Holiday[] },
) {
  const now = deps.clock.now();
  const done = await handleCommand(
    deps,
    holidayCalendarStream,
    holidayCalendar,
    { type: 'SetHolidayCalendarYear', ...input, setBy, now },
    { actor: setBy === operatorCli ? operatorCli : `admin:${setBy}`, now },
  );
  await deps.readModels.waitFor(done.position, undefined, [holidayCalendarProjection]);
  return done;
}
