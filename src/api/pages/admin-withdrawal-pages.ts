import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { defaultPayoutSource, payWithdrawal, rejectWithdrawal } from '../../commands/gateway-withdrawals.ts';
import { choosePayoutAccount, currentPayoutAccount } from '../../commands/payout-account.ts';
import { payOutWithdrawal } from '../../commands/withdrawal-payout.ts';
import { DomainError, refuse } from '../../errors.ts';
import { findOwnedAccount, listAccounts } from '../../projections/accounts.ts';
import { lastPayoutFailures } from '../../projections/withdrawal-payouts.ts';
import { listGatewayWithdrawals } from '../../projections/gateway-ledger.ts';
import { text } from '../../text.ts';
import { adminWithdrawalsHtml } from '../../web/pages/admin-withdrawals.ts';
import type { AppDeps } from '../deps.ts';
import { noticeOf, orShowRefusal, pathId, seeOther, sendPage } from './page-reply.ts';
import { queryFilters } from './list-filters.ts';
import { frameOf } from './page-surface.ts';

const note = text.trim().min(1, 'Catatan wajib diisi').max(1000, 'Catatan maksimal 1000 karakter');
const reference = text.trim().min(1, 'Referensi wajib diisi').max(200, 'Referensi maksimal 200 karakter');
const overrideReason = text.trim().max(1000, 'Alasan maksimal 1000 karakter');
const withdrawalQuery = z.object({ status: z.enum(['REQUESTED', 'PAID', 'REJECTED']).optional() });

const doneNotices: Record<string, string> = {
  paid: 'Penarikan ditandai dibayar.',
  'paid-out': 'Penarikan dibayar lewat WALLET-A; nomor transfernya menjadi referensi.',
  'payout-account': 'Rekening pembayaran WALLET-A disimpan.',
  'withdrawal-rejected': 'Penarikan ditolak; dananya kembali tersedia bagi merchant.',
};
const field = (request: FastifyRequest, name: string): unknown =>
  (request.body as Record<string, unknown> | undefined)?.[name];
const withdrawalNotFound = () => refuse('WITHDRAWAL_NOT_FOUND', { words: 'Penarikan tidak ditemukan' });
/** The override form's reason: blank is no override (a mismatch is then refused with the form to give one). */
function holderOverrideOf(request: FastifyRequest): { reason: string } | undefined {
  const reason = overrideReason.parse(field(request, 'holderOverrideReason') ?? '');
  return reason ? { reason } : undefined;
}
// a payout the provider refused or left unconfirmed (502) is shown on the page too, with its reason, not as an error page
const payoutOutcome = (err: unknown) =>
  err instanceof DomainError &&
  (err.code === 'WITHDRAWAL_PAYOUT_FAILED' || err.code === 'WITHDRAWAL_PAYOUT_UNCONFIRMED');

/** The admin console's withdrawals: the payout account, then each withdrawal paid, marked paid or refused by a form. */
export function adminWithdrawalPages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    const adminId = (request: FastifyRequest) => request.viewer!.user.id;

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
    /** Runs a decision and goes back to the withdrawals; a refusal shows the page with its message instead. */
    const decide = (request: FastifyRequest, reply: FastifyReply, run: () => Promise<string>) =>
      orShowRefusal(
        async () => seeOther(reply, '/admin/withdrawals', await run()),
        error => withdrawalsPage(request, reply, error),
      );

    app.get('/withdrawals', (request, reply) => withdrawalsPage(request, reply));
    app.post<{ Params: { id: string } }>('/withdrawals/:id/paid', (request, reply) =>
      decide(request, reply, async () => {
        const id = pathId(request.params.id, withdrawalNotFound);
        const ref = reference.parse(field(request, 'reference') ?? '');
        await payWithdrawal(deps, adminId(request), id, ref, {
          holdingAccountId: await defaultPayoutSource(deps),
          holderOverride: holderOverrideOf(request),
        });
        return 'paid';
      }),
    );
    app.post<{ Params: { id: string } }>('/withdrawals/:id/pay', (request, reply) =>
      decide(request, reply, async () => {
        const id = pathId(request.params.id, withdrawalNotFound);
        await payOutWithdrawal(deps, adminId(request), id, { holderOverride: holderOverrideOf(request) });
        return 'paid-out';
      }).catch((err: unknown) => {
        if (err instanceof DomainError && payoutOutcome(err)) return withdrawalsPage(request, reply, err);
        throw err;
      }),
    );
    app.post('/withdrawals/payout-account', (request, reply) =>
      decide(request, reply, async () => {
        const accountNotFound = () => refuse('ACCOUNT_NOT_FOUND', { words: 'Rekening tidak ditemukan' });
        await choosePayoutAccount(
          deps,
          adminId(request),
          pathId(String(field(request, 'accountId') ?? ''), accountNotFound),
        );
        return 'payout-account';
      }),
    );
    app.post<{ Params: { id: string } }>('/withdrawals/:id/reject', (request, reply) =>
      decide(request, reply, async () => {
        const id = pathId(request.params.id, withdrawalNotFound);
        await rejectWithdrawal(deps, adminId(request), id, note.parse(field(request, 'note') ?? ''));
        return 'withdrawal-rejected';
      }),
    );
  };
}
