import type { FastifyInstance } from 'fastify';
import { csvText, csvTime, type CsvCell } from '../../csv.ts';
import { inSnapshot } from '../../db/pool.ts';
import { refuse } from '../../errors.ts';
import { listAccounts } from '../../projections/accounts.ts';
import { listMutations, type MutationFilter, type MutationRow } from '../../projections/mutations.ts';
import { mutationsHtml, type MutationFilterForm } from '../../web/pages/mutations.ts';
import type { AppDeps } from '../deps.ts';
import { mutationsQueryIn } from '../mutations.ts';
import { filterForm, filterRefusal, pageAsked } from './list-filters.ts';
import { orShowRefusal, refusalText, sendPage } from './page-reply.ts';
import { frameOf } from './page-surface.ts';

const pageSize = 50;
/** The most lines one CSV export holds; a wider filter is asked to narrow down. */
export const csvMaxRows = 100_000;
// a date typed into the page means a WIB day, as people here mean it
const mutationsQuery = mutationsQueryIn('WIB');
const filterNames = ['accountId', 'accountType', 'type', 'from', 'to', 'minAmount', 'maxAmount'] as const;

/** The filters of the key surface's GET /api/v1/mutations, dates as WIB days; a 400 names the first field at fault. */
function parseFilters(ownerId: string, form: MutationFilterForm, page: unknown): Omit<MutationFilter, 'limit'> {
  const parsed = mutationsQuery.safeParse({ ...form, page });
  if (!parsed.success) throw filterRefusal(parsed.error);
  const { limit: _limit, ...filters } = parsed.data;
  return { ownerId, ...filters };
}

const csvHeader = [
  'id',
  'createdAt',
  'accountId',
  'accountType',
  'type',
  'amount',
  'description',
  'senderName',
  'reference',
  'status',
  'paymentId',
  'orderId',
];

function csvLine(m: MutationRow): CsvCell[] {
  const paid = m.payment as { id?: string; orderId?: string } | null;
  const accountType = m.account_type === 'ewallet' ? 'wallet' : 'bank';
  return [
    m.id,
    csvTime(m.created_at),
    m.account_id,
    accountType,
    m.type,
    m.amount,
    m.description,
    m.sender_name,
    m.reference,
    m.status,
    paid?.id ?? null,
    paid?.orderId ?? null,
  ];
}

/** The mutations page (filters, a page of 50, newest first) and its CSV export of every matching mutation. */
export function mutationPages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    app.get('/mutations', async (request, reply) => {
      const ownerId = request.viewer!.user.id;
      const form = filterForm(request, filterNames);
      const accounts = (await listAccounts(deps.pool, { ownerId, page: 1, limit: 100 })).rows;
      const frame = frameOf(request, 'Mutasi', 'mutations');
      return orShowRefusal(
        async () => {
          const filters = parseFilters(ownerId, form, pageAsked(request));
          const { rows, total } = await listMutations(deps.pool, { ...filters, limit: pageSize });
          return sendPage(
            reply,
            frame,
            mutationsHtml({
              accounts,
              filters: form,
              rows,
              total,
              page: filters.page,
              totalPages: Math.ceil(total / pageSize),
            }),
          );
        },
        error => {
          const view = { accounts, filters: form, rows: [], total: 0, page: 1, totalPages: 0 };
          return sendPage(
            reply,
            { ...frame, notice: { kind: 'error', text: refusalText(error) } },
            mutationsHtml(view),
            { status: error.status },
          );
        },
      );
    });

    // the count and the rows from one snapshot: a mutation synchronised meanwhile is not in one and missing from the other
    app.get('/mutations.csv', async (request, reply) => {
      const filters = parseFilters(request.viewer!.user.id, filterForm(request, filterNames), 1);
      const { rows, total } = await inSnapshot(deps.pool, db =>
        listMutations(db, { ...filters, page: 1, limit: csvMaxRows }),
      );
      if (total > csvMaxRows)
        throw refuse('VALIDATION_ERROR', {
          words: `Terlalu banyak mutasi (${total}) untuk satu berkas; persempit filter sampai paling banyak ${csvMaxRows}.`,
        });
      const lines: CsvCell[][] = [csvHeader, ...rows.map(csvLine)];
      const stamp = csvTime(deps.clock.now()).slice(0, 10); // today as a WIB day, as the times in the file
      return reply
        .type('text/csv; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('content-disposition', `attachment; filename="mutasi-${stamp}.csv"`)
        .send(csvText(lines));
    });
  };
}
