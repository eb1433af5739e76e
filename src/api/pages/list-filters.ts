import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { refuse, type DomainError } from '../../errors.ts';
import { maxPage, periodOrderMessage, queryYears } from '../query-params.ts';

/** The filters of a list page as its GET form sent them: blank fields dropped, the rest kept as typed. */
export function filterForm<N extends string>(request: FastifyRequest, names: readonly N[]): Partial<Record<N, string>> {
  const q = (request.query ?? {}) as Record<string, unknown>;
  const form: Partial<Record<N, string>> = {};
  for (const name of names) if (typeof q[name] === 'string' && q[name] !== '') form[name] = q[name] as string;
  return form;
}

/** The page number of a list's query as sent (blank: none), for the list's schema to take or refuse. */
export function pageAsked(request: FastifyRequest): unknown {
  const page = (request.query as { page?: unknown } | undefined)?.page;
  return page === '' ? undefined : page;
}

/** What a date typed into a page must be, in the pages' words. */
export const dateWords = `tulis tanggal YYYY-MM-DD yang ada di kalender, tahun ${queryYears.first} sampai ${queryYears.last}`;
const amountWords = 'tulis jumlah rupiah tanpa titik atau koma, 0 atau lebih';

/** What a page asks of each filter it refuses, in its words; a filter not here is a choice from a list. */
const filterWords: Record<string, string> = {
  from: dateWords,
  to: dateWords,
  page: `halaman 1 sampai ${maxPage.toLocaleString('id-ID')}`,
  fromRevision: 'revisi bilangan bulat 0 atau lebih',
  minAmount: amountWords,
  maxAmount: amountWords,
  accountId: 'pilih rekening dari daftar',
  orderId: 'paling banyak 100 karakter',
};

/**
 * A list page's refusal of its query (400): the first filter at fault and what it asks, in the page's words, never the
 * schema's English.
 */
export function filterRefusal(error: z.ZodError): DomainError {
  const issue = error.issues[0];
  const field = issue?.path.map(String).join('.') || 'filter';
  const said =
    issue?.message === periodOrderMessage
      ? 'tanggal awal harus sebelum tanggal akhir'
      : (filterWords[field] ?? 'pilih salah satu dari daftar');
  return refuse('VALIDATION_ERROR', { words: `Filter tidak valid (${field}): ${said}` });
}

/**
 * A page's query through its schema (blank fields absent, as a GET form sends them): its filters, or, refused, what
 * the schema makes of none (the page's defaults) with the refusal the page shows.
 */
export function queryFilters<S extends z.ZodType>(
  request: FastifyRequest,
  schema: S,
): { value: z.output<S>; refusal: DomainError | null } {
  const asked = Object.entries((request.query ?? {}) as Record<string, unknown>).filter(([, value]) => value !== '');
  const parsed = schema.safeParse(Object.fromEntries(asked));
  if (parsed.success) return { value: parsed.data, refusal: null };
  return { value: schema.parse({}), refusal: filterRefusal(parsed.error) };
}
