import { z } from 'zod';
import { event, isoDate, type EventOf } from './event.ts';
import { text } from '../text.ts';

// stream holiday-calendar: the years of the settlement calendar an admin set

/** An admin (or the operator, from the CLI) set one year of the holiday calendar, whole: it replaces the shipped file's year, or an earlier one set. */
export const HolidayCalendarYearSet = event(
  'HolidayCalendarYearSet',
  1,
  z.object({
    year: z.int().min(1970).max(9999),
    source: text,
    days: z.array(
      z.object({
        date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
        name: text,
        kind: z.enum(['libur-nasional', 'cuti-bersama']),
      }),
    ),
    /** the admin's user id, or `operator:cli` for the operator at the service's command line (it has no user) */
    setBy: z.union([z.uuid(), z.literal('operator:cli')]),
    setAt: isoDate,
  }),
);

export type HolidayCalendarEvent = EventOf<typeof HolidayCalendarYearSet>;
