import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { setHolidayCalendarYear } from '../commands/holiday-calendar.ts';
import { holidayCalendarYear, missingYears, yearsDue } from '../domain/working-days.ts';
import { loadHolidayCalendarWithOrigin } from '../projections/holiday-calendar.ts';
import type { Queryable } from '../db/pool.ts';
import type { AppDeps } from './deps.ts';

/** A year of the calendar in a path (and the CLI's argument). */
export const yearParams = z.object({ year: z.coerce.number().int().min(2000).max(2999) });

/**
 * The years in force, in order (the shipped file's, overlaid by those an admin set, with who set each and when), and
 * the years due that are missing (this one, and next from 1 October; counted as weekends and every-year holidays only).
 * The JSON route and the admin's page show it.
 */
export async function calendarInForce(db: Queryable, now: Date) {
  const { calendar, origin } = await loadHolidayCalendarWithOrigin(db);
  const years = Object.entries(calendar.years)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([year, { source, days }]) => {
      const from = origin[year]!;
      return { year: Number(year), source, days, setBy: from.setBy, setAt: from.setBy === 'admin' ? from.setAt : null };
    });
  return { years, missingYears: missingYears(calendar, yearsDue(now)) };
}

/**
 * The settlement calendar in the admin console: the years in force (the shipped file's, overlaid by
 * those an admin set), the years due that are missing (a warning), and a year set whole.
 */
export function gatewayCalendarRoutes(deps: AppDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();

    const present = async () => {
      const { years, missingYears } = await calendarInForce(deps.pool, deps.clock.now());
      return { years: years.map(y => ({ ...y, setAt: y.setAt?.toISOString() ?? null })), missingYears };
    };

    app.get('/', async () => ({ status: 'success', data: await present() }));

    app.put('/:year', { schema: { params: yearParams, body: holidayCalendarYear } }, async request => {
      await setHolidayCalendarYear(deps, request.principal!.userId, { year: request.params.year, ...request.body });
      return { status: 'success', data: await present() };
    });
  };
}
