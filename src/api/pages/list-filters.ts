import type { FastifyRequest } from 'fastify';

/** The filters of a list page as its GET form sent them: blank fields dropped, the rest kept as typed. */
export function filterForm<N extends string>(request: FastifyRequest, names: readonly N[]): Partial<Record<N, string>> {
  const q = (request.query ?? {}) as Record<string, unknown>;
  const form: Partial<Record<N, string>> = {};
  for (const name of names) if (typeof q[name] === 'string' && q[name] !== '') form[name] = q[name] as string;
  return form;
}

const isDay = (value: string) => /^\d{4}-\d{2}-\d{2}$/.test(value);

/**
 * A date typed into a page means a WIB day, as people here mean it: `from` its 00:00 WIB, `to` the end of it (the next
 * day's 00:00 WIB, exclusive). Anything else is left as typed, for the list's own schema to take or refuse.
 */
export const wibDayStart = (value: string) => (isDay(value) ? `${value}T00:00:00+07:00` : value);
export const wibDayEnd = (value: string) =>
  isDay(value) ? new Date(Date.parse(`${value}T00:00:00+07:00`) + 86_400_000).toISOString() : value;

/** The page number of a list's query; anything but a whole number from 1 is the first page. */
export function pageOf(request: FastifyRequest): number {
  const page = Number((request.query as { page?: unknown } | undefined)?.page);
  return Number.isInteger(page) && page >= 1 ? page : 1;
}
