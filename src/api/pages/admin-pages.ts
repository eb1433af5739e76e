import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  approveGatewayAccess,
  deactivateGatewayAccess,
  rejectGatewayAccess,
} from '../../commands/gateway-access-decisions.ts';
import { markHoldingAccount, unmarkHoldingAccount } from '../../commands/holding-accounts.ts';
import { bookLedgerAdjustment } from '../../commands/ledger-adjustments.ts';
import { listLedgerAdjustments } from '../../projections/ledger-adjustments.ts';
import { ledgerAdjustmentsHtml } from '../../web/pages/admin-ledger-adjustments.ts';
import { ledgerAdjustmentBody } from '../ledger-adjustments.ts';
import { parseBody } from '../validation.ts';
import { DomainError, refuse } from '../../errors.ts';
import { listAccounts } from '../../projections/accounts.ts';
import { listGatewayAccess, listHoldingAccounts, servedGatewayMethods } from '../../projections/gateway-access.ts';
import { gatewayMethods, paymentMethod } from '../../domain/payment-methods.ts';
import { listGatewayWithdrawals } from '../../projections/gateway-ledger.ts';
import { uncoveredYears } from '../../projections/holiday-calendar.ts';
import { reconciliationPeriod } from '../../audit/gateway-reconciliation.ts';
import { reconciliationOf } from '../../audit/gateway-closed-periods.ts';
import { reconciliationTables } from '../../audit/gateway-reconciliation-csv.ts';
import { text } from '../../text.ts';
import {
  accessReviewHtml,
  adminOverviewHtml,
  holdingAccountsHtml,
  holdingWarningHtml,
  reconciliationHtml,
} from '../../web/pages/admin.ts';
import type { AppDeps } from '../deps.ts';
import { sendReconciliationCsv } from '../gateway-reconciliation.ts';
import { isQueryDate } from '../query-params.ts';
import { adminSuspensePages } from './admin-suspense-pages.ts';
import { adminWithdrawalPages } from './admin-withdrawal-pages.ts';
import { adminPeriodPages, periodPanelHtml } from './admin-period-pages.ts';
import { adminReportPages } from './admin-report-pages.ts';
import { noticeOf, orShowRefusal, pathId, refusalText, seeOther, sendPage } from './page-reply.ts';
import { dateWords, queryFilters } from './list-filters.ts';
import { frameOf } from './page-surface.ts';

const note = text.trim().min(1, 'Catatan wajib diisi').max(1000, 'Catatan maksimal 1000 karakter');
const accessQuery = z.object({ status: z.enum(['PENDING', 'APPROVED', 'REJECTED']).optional() });
// the page's link without a table gets the merchants' (src/api/gateway-reconciliation.ts)
const reconciliationCsvQuery = z.object({ table: z.enum(reconciliationTables).default('merchants') });

const doneNotices: Record<string, string> = {
  approved: 'Akses disetujui.',
  rejected: 'Pengajuan ditolak.',
  deactivated: 'Merchant dinonaktifkan.',
  marked: 'Rekening ditandai sebagai penampung.',
  unmarked: 'Rekening dilepas dari penampung.',
  'ledger-adjustment': 'Penyesuaian dicatat di buku besar.',
};
const periodNotices: Record<string, string> = {
  'period-closed': 'Periode ditutup; laporannya dibekukan.',
  'period-reopened': 'Periode dibuka kembali; laporannya dihitung ulang.',
};
const field = (request: FastifyRequest, name: string): unknown =>
  (request.body as Record<string, unknown> | undefined)?.[name];

/**
 * The admin console's pages: gateway access review, holding accounts, withdrawals and finance's
 * reconciliation; the admin JSON routes' commands, each decision recorded as the admin's.
 */
export function adminPages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    const adminId = (request: FastifyRequest) => request.viewer!.user.id;
    /** Runs a decision and goes back to `path`; a refusal shows that page with its message instead. */
    const decide = (
      reply: FastifyReply,
      path: string,
      show: (error: DomainError) => Promise<unknown>,
      run: () => Promise<string>,
    ) => orShowRefusal(async () => seeOther(reply, path, await run()), show);

    app.get('/', async (request, reply) => {
      const [pending, requested, holding, uncovered, warning] = await Promise.all([
        listGatewayAccess(deps.pool, 'PENDING'),
        listGatewayWithdrawals(deps.pool, { status: 'REQUESTED' }),
        listHoldingAccounts(deps.pool),
        uncoveredYears(deps.pool, deps.clock.now()),
        holdingWarning(),
      ]);
      const counts = {
        pendingAccess: pending.length,
        requestedWithdrawals: requested.length,
        holdingAccounts: holding.length,
        uncoveredYears: uncovered,
      };
      return sendPage(reply, frameOf(request, 'Konsol admin', 'admin'), `${warning}${adminOverviewHtml(counts)}`);
    });

    /** The warning that approved or waiting merchants would be refused for want of a holding account, or ''. */
    const holdingWarning = async () => {
      const [approved, pending, served] = await Promise.all([
        listGatewayAccess(deps.pool, 'APPROVED'),
        listGatewayAccess(deps.pool, 'PENDING'),
        servedGatewayMethods(deps.pool),
      ]);
      if (approved.length + pending.length === 0) return '';
      const unserved = gatewayMethods.filter(m => paymentMethod(m).creatable && !served.includes(m));
      return holdingWarningHtml(unserved, served.length === 0);
    };

    // access review
    const accessPage = async (request: FastifyRequest, reply: FastifyReply, refused?: DomainError) => {
      const { value, refusal } = queryFilters(request, accessQuery);
      const { status } = value;
      const error = refused ?? refusal;
      const [rows, warning] = await Promise.all([listGatewayAccess(deps.pool, status), holdingWarning()]);
      return sendPage(
        reply,
        { ...frameOf(request, 'Akses gateway', 'access'), notice: noticeOf(request, doneNotices, error) },
        accessReviewHtml(rows, status ?? '', request.viewer!.csrf, warning),
        {
          status: error?.status ?? 200,
        },
      );
    };
    app.get('/access', (request, reply) => accessPage(request, reply));
    const merchantNotFound = () => refuse('NOT_FOUND', { words: 'Merchant tidak ditemukan' });
    /** Runs a decision on the merchant the path names, then back to the review; `run` answers what it did. */
    const review =
      (run: (request: FastifyRequest, merchantId: string) => Promise<string>) =>
      async (request: FastifyRequest<{ Params: { userId: string } }>, reply: FastifyReply) => {
        const merchantId = pathId(request.params.userId, merchantNotFound);
        return decide(
          reply,
          '/admin/access',
          error => accessPage(request, reply, error),
          () => run(request, merchantId),
        );
      };
    const noteOf = (request: FastifyRequest) => note.parse(field(request, 'note') ?? '');
    app.post(
      '/access/:userId/approve',
      review(async (request, merchantId) => {
        await approveGatewayAccess(deps, adminId(request), merchantId);
        return 'approved';
      }),
    );
    app.post(
      '/access/:userId/reject',
      review(async (request, merchantId) => {
        await rejectGatewayAccess(deps, adminId(request), merchantId, noteOf(request));
        return 'rejected';
      }),
    );
    app.post(
      '/access/:userId/deactivate',
      review(async (request, merchantId) => {
        await deactivateGatewayAccess(deps, adminId(request), merchantId, noteOf(request));
        return 'deactivated';
      }),
    );

    // holding accounts: the admin's own linked accounts, marked
    const holdingPage = async (request: FastifyRequest, reply: FastifyReply, error?: DomainError) => {
      const [holding, own, entries] = await Promise.all([
        listHoldingAccounts(deps.pool),
        listAccounts(deps.pool, { ownerId: adminId(request), page: 1, limit: 100 }),
        listLedgerAdjustments(deps.pool),
      ]);
      return sendPage(
        reply,
        {
          ...frameOf(request, 'Rekening penampung', 'holding-accounts'),
          notice: noticeOf(request, doneNotices, error),
        },
        holdingAccountsHtml(holding, own.rows, request.viewer!.csrf) +
          ledgerAdjustmentsHtml({ holding, entries, csrf: request.viewer!.csrf }),
        {
          status: error?.status ?? 200,
        },
      );
    };
    app.get('/holding-accounts', (request, reply) => holdingPage(request, reply));
    const accountNotFound = () => refuse('ACCOUNT_NOT_FOUND', { words: 'Rekening tidak ditemukan' });
    app.post('/holding-accounts', (request, reply) =>
      decide(
        reply,
        '/admin/holding-accounts',
        error => holdingPage(request, reply, error),
        async () => {
          const accountId = pathId(String(field(request, 'accountId') ?? ''), accountNotFound);
          await markHoldingAccount(deps, adminId(request), accountId);
          return 'marked';
        },
      ),
    );
    // a dated opening or correcting entry: the form's local time is WIB
    app.post('/holding-accounts/ledger-adjustments', (request, reply) =>
      decide(
        reply,
        '/admin/holding-accounts',
        error => holdingPage(request, reply, error),
        async () => {
          const typed = (request.body ?? {}) as Record<string, unknown>;
          const amount = /^-?\d{1,15}$/.test(String(typed.amount ?? '').trim()) ? Number(typed.amount) : typed.amount;
          const local = String(typed.effectiveAt ?? '').trim();
          const effectiveAt = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(local) ? `${local}:00+07:00` : `${local}+07:00`;
          const entry = parseBody(
            ledgerAdjustmentBody,
            { ...typed, amount, effectiveAt },
            'Isian penyesuaian belum benar',
          );
          await bookLedgerAdjustment(deps, adminId(request), entry);
          return 'ledger-adjustment';
        },
      ),
    );
    app.post<{ Params: { accountId: string } }>('/holding-accounts/:accountId/unmark', (request, reply) =>
      decide(
        reply,
        '/admin/holding-accounts',
        error => holdingPage(request, reply, error),
        async () => {
          await unmarkHoldingAccount(deps, adminId(request), pathId(request.params.accountId, accountNotFound));
          return 'unmarked';
        },
      ),
    );

    // withdrawals: paid, marked paid or refused (their own file)
    await adminWithdrawalPages(deps)(app);

    // suspense: credits no payment claims, allocated or refunded (its own file)
    await adminSuspensePages(deps)(app);

    // closing and reopening a month from its reconciliation page (their own file)
    await adminPeriodPages(deps)(app);

    // the finance reports beside the reconciliation: balance history, revenue, payouts (their own file)
    await adminReportPages(deps)(app);

    // reconciliation: WIB days, as the JSON route and the CLI
    const periodOf = (request: FastifyRequest) => {
      const q = (request.query ?? {}) as { from?: unknown; to?: unknown };
      return { from: typeof q.from === 'string' ? q.from : '', to: typeof q.to === 'string' ? q.to : '' };
    };
    // both dates as the JSON route takes them, checked before the report is computed
    const reportPeriod = ({ from, to }: { from: string; to: string }) => {
      if (!isQueryDate(from) || !isQueryDate(to))
        throw refuse('INVALID_PERIOD', { words: `Isi kedua tanggal: ${dateWords}` });
      return reconciliationPeriod(from, to);
    };
    app.get('/reconciliation', async (request, reply) => {
      const period = periodOf(request);
      const frame = frameOf(request, 'Rekonsiliasi gateway', 'reconciliation');
      if (!period.from && !period.to) return sendPage(reply, frame, reconciliationHtml(period, null));
      return orShowRefusal(
        async () => {
          const report = await reconciliationOf(deps, reportPeriod(period));
          const extra = await periodPanelHtml(deps, request, period, report);
          const notice = noticeOf(request, periodNotices);
          return sendPage(reply, notice ? { ...frame, notice } : frame, reconciliationHtml(period, report, extra));
        },
        error =>
          sendPage(
            reply,
            { ...frame, notice: { kind: 'error', text: refusalText(error) } },
            reconciliationHtml(period, null),
            { status: error.status },
          ),
      );
    });
    app.get('/reconciliation.csv', async (request, reply) => {
      const period = reportPeriod(periodOf(request));
      const { value, refusal } = queryFilters(request, reconciliationCsvQuery);
      if (refusal) throw refusal;
      return sendReconciliationCsv(reply, await reconciliationOf(deps, period), value.table);
    });
  };
}
