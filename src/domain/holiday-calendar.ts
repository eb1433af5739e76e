import { refuse } from '../errors.ts';
import { HolidayCalendarYearSet, type HolidayCalendarEvent } from '../events/holiday-calendar.ts';
import type { Decider } from './decider.ts';
import { holidayYearProblems, type Holiday, type HolidayCalendarYear } from './working-days.ts';

/** The platform's one holiday calendar, the years an admin set over the shipped file. */
export const holidayCalendarStream = 'holiday-calendar';

/** The years an admin set, as last set. */
export type SetHolidayCalendar = { years: Record<string, HolidayCalendarYear> };

export type HolidayCalendarCommand = {
  type: 'SetHolidayCalendarYear';
  year: number;
  source: string;
  days: Holiday[];
  /** an admin's user id, or `operator:cli` */
  setBy: string;
  now: Date;
};

/** The days in date order, so that setting the same days in another order is the same year. */
const byDate = (days: readonly Holiday[]) => [...days].sort((a, b) => a.date.localeCompare(b.date));

const sameYear = (a: HolidayCalendarYear, b: HolidayCalendarYear) => JSON.stringify(a) === JSON.stringify(b);

export const holidayCalendar: Decider<SetHolidayCalendar, HolidayCalendarCommand, HolidayCalendarEvent> = {
  cached: true,
  initialState: () => ({ years: {} }),
  evolve(state, event) {
    const { year, source, days } = event.data;
    return { years: { ...state.years, [String(year)]: { source, days } } };
  },
  decide(state, command) {
    const { year, source, setBy, now } = command;
    const problems = holidayYearProblems(year, command.days);
    if (problems.length > 0) {
      throw refuse('INVALID_HOLIDAY_CALENDAR', {
        message: `The days of ${year} must be dates of ${year}, each once: ${problems.map(p => p.message).join('; ')}`,
        errors: problems.map(p => ({ path: `body.days.${p.index}.date`, message: p.message })),
      });
    }
    const days = byDate(command.days);
    const current = state.years[String(year)];
    if (current && sameYear(current, { source, days })) return [];
    return [HolidayCalendarYearSet({ year, source, days, setBy, setAt: now.toISOString() })];
  },
};
