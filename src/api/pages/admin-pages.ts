import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  approveGatewayAccess,
  deactivateGatewayAccess,
  rejectGatewayAccess,
} from '../../commands/gateway-access-decisions.ts';
import { payWithdrawal, rejectWithdrawal } from '../../commands/gateway-withdrawals.ts';
import { choosePayoutAccount, currentPayoutAccount } from '../../commands/payout-account.ts';
import { payOutWithdrawal } from '../../commands/withdrawal-payout.ts';
import { markHoldingAccount, unmarkHoldingAccount } from '../../commands/holding-accounts.ts';
import { DomainError, refuse } from '../../errors.ts';
import { findOwnedAccount, listAccounts } from '../../projections/accounts.ts';
import { lastPayoutFailures } from '../../projections/withdrawal-payouts.ts';
import { listGatewayAccess, listHoldingAccounts } from '../../projections/gateway-access.ts';
import { listGatewayWithdrawals } from '../../projections/gateway-ledger.ts';
import { gatewayReconciliation, reconciliationPeriod } from '../../audit/gateway-reconciliation.ts';
import { reconciliationTables } from '../../audit/gateway-reconciliation-csv.ts';
import { text } from '../../text.ts';
import { accessReviewHtml, adminOverviewHtml, holdingAccountsHtml, reconciliationHtml } from '../../web/pages/admin.ts';
import { adminWithdrawalsHtml } from '../../web/pages/admin-withdrawals.ts';
import type { AppDeps } from '../deps.ts';
import { sendReconciliationCsv } from '../gateway-reconciliation.ts';
import { isQueryDate } from '../query-params.ts';
import { adminSuspensePages } from './admin-suspense-pages.ts';
import { noticeOf, orShowRefusal, pathId, refusalText, seeOther, sendPage } from './page-reply.ts';
import { dateWords, queryFilters } from './list-filters.ts';
import { frameOf } from './page-surface.ts';

const note = text.trim().min(1, 'Catatan wajib diisi').max(1000, 'Catatan maksimal 1000 karakter');
const reference = text.trim().min(1, 'Referensi wajib diisi').max(200, 'Referensi maksimal 200 karakter');
const accessQuery = z.object({ status: z.enum(['PENDING', 'APPROVED', 'REJECTED']).optional() });
const withdrawalQuery = z.object({ status: z.enum(['REQUESTED', 'PAID', 'REJECTED']).optional() });
// the page's link without a table gets the merchants' (src/api/gateway-reconciliation.ts)
const reconciliationCsvQuery = z.object({ table: z.enum(reconciliationTables).default('merchants') });

const doneNotices: Record<string, string> = {
  approved: 'Akses disetujui.',
  rejected: 'Pengajuan ditolak.',
  deactivated: 'Merchant dinonaktifkan.',
  marked: 'Rekening ditandai sebagai penampung.',
  unmarked: 'Rekening dilepas dari penampung.',
  paid: 'Penarikan ditandai dibayar.',
  'paid-out': 'Penarikan dibayar lewat WALLET-A; nomor transfernya menjadi referensi.',
  'payout-account': 'Rekening pembayaran WALLET-A disimpan.',
  'withdrawal-rejected': 'Penarikan ditolak; dananya kembali tersedia bagi merchant.',
};
const field = (request: FastifyRequest, name: string): unknown =>
  (request.body as Record<string, unknown> | undefined)?.[name];

/**
 * The admin console's pages (DESIGN section 12): gateway access review, holding accounts, withdrawals and finance's
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
      const [pending, requested, holding] = await Promise.all([
        listGatewayAccess(deps.pool, 'PENDING'),
        listGatewayWithdrawals(deps.pool, { status: 'REQUESTED' }),
        listHoldingAccounts(deps.pool),
      ]);
      const counts = {
        pendingAccess: pending.length,
        requestedWithdrawals: requested.length,
        holdingAccounts: holding.length,
      };
      return sendPage(reply, frameOf(request, 'Konsol admin', 'admin'), adminOverviewHtml(counts));
    });

    // access review
    const accessPage = async (request: FastifyRequest, reply: FastifyReply, refused?: DomainError) => {
      const { value, refusal } = queryFilters(request, accessQuery);
      const { status } = value;
      const error = refused ?? refusal;
      const rows = await listGatewayAccess(deps.pool, status);
      return sendPage(
        reply,
        { ...frameOf(request, 'Akses gateway', 'access'), notice: noticeOf(request, doneNotices, error) },
        accessReviewHtml(rows, status ?? '', request.viewer!.csrf),
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
      const [holding, own] = await Promise.all([
        listHoldingAccounts(deps.pool),
        listAccounts(deps.pool, { ownerId: adminId(request), page: 1, limit: 100 }),
      ]);
      return sendPage(
        reply,
        {
          ...frameOf(request, 'Rekening penampung', 'holding-accounts'),
          notice: noticeOf(request, doneNotices, error),
        },
        holdingAccountsHtml(holding, own.rows, request.viewer!.csrf),
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

    // withdrawals: paid by an admin other than the requester, or refused
    const withdrawalsPage = async (request: FastifyRequest, reply: FastifyReply, refused?: DomainError) => {
      const { value, refusal } = queryFilters(request, withdrawalQuery);
      const { status } = value;
      const error = refused ?? refusal;
      const [rows, chosen, own] = await Promise.all([
        listGatewayWithdrawals(deps.pool, { status }),
        currentPayoutAccount(deps),
        listAccounts(deps.pool, { ownerId: adminId(request), page: 1, limit: 100 }),
      ]);
      const [failures, account] = await Promise.all([
        lastPayoutFailures(
          deps.pool,
          rows.map(w => w.id),
        ),
        chosen ? findOwnedAccount(deps.pool, chosen.ownerId, chosen.accountId) : null,
      ]);
      const payoutAccount = chosen
        ? {
            accountId: chosen.accountId,
            accountName: account?.account_name ?? null,
            balance: account?.balance ?? null,
            isActive: account?.is_active ?? null,
          }
        : null;
      const view = {
        rows,
        failures,
        status: status ?? '',
        csrf: request.viewer!.csrf,
        payoutAccount,
        ownWalletA: own.rows.filter(a => a.provider_code === 'WALLET-A'),
      };
      return sendPage(
        reply,
        { ...frameOf(request, 'Penarikan', 'withdrawals'), notice: noticeOf(request, doneNotices, error) },
        adminWithdrawalsHtml(view),
        {
          status: error?.status ?? 200,
        },
      );
    };
    app.get('/withdrawals', (request, reply) => withdrawalsPage(request, reply));
    const withdrawalNotFound = () => refuse('WITHDRAWAL_NOT_FOUND', { words: 'Penarikan tidak ditemukan' });
    app.post<{ Params: { id: string } }>('/withdrawals/:id/paid', (request, reply) =>
      decide(
        reply,
        '/admin/withdrawals',
        error => withdrawalsPage(request, reply, error),
        async () => {
          await payWithdrawal(
            deps,
            adminId(request),
            pathId(request.params.id, withdrawalNotFound),
            reference.parse(field(request, 'reference') ?? ''),
          );
          return 'paid';
        },
      ),
    );
    // a payout the provider refused or left unconfirmed (502) is shown on the page too, with its reason, not as an error page
    const payoutOutcome = (err: unknown) =>
      err instanceof DomainError &&
      (err.code === 'WITHDRAWAL_PAYOUT_FAILED' || err.code === 'WITHDRAWAL_PAYOUT_UNCONFIRMED');
    app.post<{ Params: { id: string } }>('/withdrawals/:id/pay', (request, reply) =>
      decide(
        reply,
        '/admin/withdrawals',
        error => withdrawalsPage(request, reply, error),
        async () => {
          await payOutWithdrawal(deps, adminId(request), pathId(request.params.id, withdrawalNotFound));
          return 'paid-out';
        },
      ).catch((err: unknown) => {
        if (err instanceof DomainError && payoutOutcome(err)) return withdrawalsPage(request, reply, err);
        throw err;
      }),
    );
    app.post('/withdrawals/payout-account', (request, reply) =>
      decide(
        reply,
        '/admin/withdrawals',
        error => withdrawalsPage(request, reply, error),
        async () => {
          await choosePayoutAccount(
            deps,
            adminId(request),
            pathId(String(field(request, 'accountId') ?? ''), accountNotFound),
          );
          return 'payout-account';
        },
      ),
    );
    app.post<{ Params: { id: string } }>('/withdrawals/:id/reject', (request, reply) =>
      decide(
        reply,
        '/admin/withdrawals',
        error => withdrawalsPage(request, reply, error),
        async () => {
          await rejectWithdrawal(
            deps,
            adminId(request),
            pathId(request.params.id, withdrawalNotFound),
            note.parse(field(request, 'note') ?? ''),
          );
          return 'withdrawal-rejected';
        },
      ),
    );

    // suspense: credits no payment claims, allocated or refunded (its own file)
    await adminSuspensePages(deps)(app);

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
          const report = await gatewayReconciliation(deps, reportPeriod(period));
          return sendPage(reply, frame, reconciliationHtml(period, report));
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
      return sendReconciliationCsv(reply, await gatewayReconciliation(deps, period), value.table);
    });
  };
}
