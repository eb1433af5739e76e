import type { FastifyInstance, FastifyRequest } from 'fastify';
import { csvText, csvTime, type CsvCell } from '../../csv.ts';
import { inSnapshot } from '../../db/pool.ts';
import { refuse } from '../../errors.ts';
import {
  listStatement,
  presentStatementEntry,
  statementDays,
  type StatementFilter,
  type StatementRow,
} from '../../projections/gateway-statement.ts';
import { statementTypeLabel, type StatementFilterForm, type StatementView } from '../../web/pages/gateway-statement.ts';
import type { AppDeps } from '../deps.ts';
import { statementQuery } from '../gateway-statement.ts';
import { filterForm, filterRefusal, pageAsked } from './list-filters.ts';
import { csvMaxRows } from './mutation-pages.ts';

const pageSize = 50;
const dayMs = 86_400_000;
const wibMs = 7 * 3_600_000;
const chartDays = 30; // without a period, the chart shows the last 30 days
const chartMaxDays = 366; // a longer period's chart shows its last year, so the SVG stays small
const filterNames = ['from', 'to', 'type'] as const;

/** The statement filters of the JSON API (dates as WIB days); a 400 names the first field at fault. */
function parseFilters(merchantId: string, form: StatementFilterForm, page: unknown, limit: number): StatementFilter {
  const parsed = statementQuery.safeParse({ ...form, page, limit });
  if (!parsed.success) throw filterRefusal(parsed.error);
  return { merchantId, ...parsed.data };
}

const wibDay = (at: Date) => new Date(at.getTime() + wibMs).toISOString().slice(0, 10);

/** The chart's days: the filter's period (its `to` included), else the last 30 days up to today (WIB). */
function chartPeriod(f: StatementFilter, now: Date): { first: string; last: string } {
  const last = f.to ? wibDay(new Date(f.to.getTime() - 1)) : wibDay(now);
  const lastStart = Date.parse(`${last}T00:00:00Z`);
  const earliest = lastStart - (chartMaxDays - 1) * dayMs;
  const wanted = f.from ? Date.parse(`${wibDay(f.from)}T00:00:00Z`) : lastStart - (chartDays - 1) * dayMs;
  return { first: new Date(Math.max(earliest, Math.min(wanted, lastStart))).toISOString().slice(0, 10), last };
}

/** The gateway page's statement: a page of 50 newest first, and the chart of the period (a bad filter is a refusal). */
export async function statementView(
  deps: AppDeps,
  merchantId: string,
  request: FastifyRequest,
): Promise<StatementView> {
  const filters = filterForm(request, filterNames);
  const f = parseFilters(merchantId, filters, pageAsked(request), pageSize);
  const period = chartPeriod(f, deps.clock.now());
  const [{ rows, total }, days] = await Promise.all([
    listStatement(deps.pool, f),
    statementDays(deps.pool, merchantId, period.first, period.last),
  ]);
  return { filters, rows, total, page: f.page, totalPages: Math.ceil(total / pageSize), days };
}

/** The statement's filters as typed, for the page that shows a refusal instead. */
export const statementFiltersOf = (request: FastifyRequest): StatementFilterForm => filterForm(request, filterNames);

const csvHeader = [
  'id',
  'at',
  'type',
  'typeLabel',
  'amount',
  'gross',
  'fee',
  'net',
  'paymentId',
  'orderId',
  'withdrawalId',
  'pending',
  'settled',
  'onHold',
  'available',
];

function csvLine(r: StatementRow): CsvCell[] {
  const p = presentStatementEntry(r);
  const b = p.balance;
  return [
    p.id,
    csvTime(r.at),
    r.type,
    statementTypeLabel[r.type],
    r.amount,
    r.gross,
    r.fee,
    r.net,
    r.payment_id,
    r.order_id,
    r.withdrawal_id,
    b.pending,
    b.settled,
    b.onHold,
    b.available,
  ];
}

/** GET /dashboard/gateway/statement.csv: every matching entry (newest first, as the page), up to 100,000 lines. */
export function gatewayStatementPages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    // the count and the rows from one snapshot: an entry projected meanwhile is not in one and missing from the other
    app.get('/gateway/statement.csv', async (request, reply) => {
      const f = parseFilters(request.viewer!.user.id, filterForm(request, filterNames), 1, 1);
      const { rows, total } = await inSnapshot(deps.pool, db => listStatement(db, { ...f, limit: csvMaxRows }));
      if (total > csvMaxRows)
        throw refuse('VALIDATION_ERROR', {
          words: `Terlalu banyak entri (${total}) untuk satu berkas; persempit filter sampai paling banyak ${csvMaxRows}.`,
        });
      const stamp = wibDay(deps.clock.now());
      return reply
        .type('text/csv; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('content-disposition', `attachment; filename="riwayat-saldo-${stamp}.csv"`)
        .send(csvText([csvHeader, ...rows.map(csvLine)]));
    });
  };
}
