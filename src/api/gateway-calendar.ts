import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { setHolidayCalendarYear } from '../commands/holiday-calendar.ts';
import { holidayCalendarYear, missingYears, wibDate } from '../commands/working-days.ts';
import { loadHolidayCalendarWithOrigin } from '../projections/holiday-calendar.ts';
import type { AppDeps } from './deps.ts';

const yearParams = z.object({ year: z.coerce.number().int().min(2000).max(2999) });

/**
 * The settlement calendar in the admin console (DESIGN section 9): the years in force (the shipped file's, overlaid by
 * those an admin set), the years of now and next that are missing (counted as weekends only), and a year set whole.
 */
export function gatewayCalendarRoutes(deps: AppDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();

    const present = async () => {
      const { calendar, origin } = await loadHolidayCalendarWithOrigin(deps.pool);
      const thisYear = Number(wibDate(deps.clock.now()).slice(0, 4));
      return {
        years: Object.entries(calendar.years)
          .sort(([a], [b]) => Number(a) - Number(b))
          .map(([year, { source, days }]) => {
            const from = origin[year]!;
            return { year: Number(year), source, days, setBy: from.setBy, setAt: from.setBy === 'admin' ? from.setAt.toISOString() : null };
          }),
        missingYears: missingYears(calendar, [thisYear, thisYear + 1]),
      };
    };

    app.get('/', async () => ({ status: 'success', data: await present() }));

    app.put('/:year', { schema: { params: yearParams, body: holidayCalendarYear } }, async request => {
      const done = await setHolidayCalendarYear(deps, request.principal!.userId, { year: request.params.year, ...request.body });
      await deps.readModels.waitFor(done.position, undefined, ['holiday-calendar']);
      return { status: 'success', data: await present() };
    });
  };
}
