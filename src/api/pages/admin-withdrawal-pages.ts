import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { payWithdrawal, rejectWithdrawal } from '../../commands/gateway-withdrawals.ts';
import { recordHoldingTransfer } from '../../commands/holding-transfers.ts';
import { listHoldingAccounts } from '../../projections/gateway-access.ts';
import { holdingCashByAccount } from '../../projections/gateway-ledger.ts';
import { listHoldingTransfers } from '../../projections/holding-transfers.ts';
import { holdingTransferBody } from '../holding-transfers.ts';
import { parseBody } from '../validation.ts';
import { choosePayoutAccount, currentPayoutAccount } from '../../commands/payout-account.ts';
import { payOutWithdrawal } from '../../commands/withdrawal-payout.ts';
import { DomainError, refuse } from '../../errors.ts';
import { findOwnedAccount, listAccounts } from '../../projections/accounts.ts';
import { lastPayoutFailures } from '../../projections/withdrawal-payouts.ts';
import { listGatewayWithdrawals } from '../../projections/gateway-ledger.ts';
import type { SourceAccount } from '../../web/pages/admin-withdrawals.ts';
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
  'holding-transfer': 'Pemindahan dana antar rekening penampung dicatat di buku besar.',
};
const field = (request: FastifyRequest, name: string): unknown =>
  (request.body as Record<string, unknown> | undefined)?.[name];
const withdrawalNotFound = () => refuse('WITHDRAWAL_NOT_FOUND', { words: 'Penarikan tidak ditemukan' });
/** The override form's reason: blank is no override (a mismatch is then refused with the form to give one). */
function holderOverrideOf(request: FastifyRequest): { reason: string } | undefined {
  const reason = overrideReason.parse(field(request, 'holderOverrideReason') ?? '');
  return reason ? { reason } : undefined;
}
/** The source account a form chose: a UUID, or nothing chosen (the mark-paid form refuses that, the pay form takes the payout account). */
function sourceOf(request: FastifyRequest, required: boolean): string | undefined {
  const chosen = String(field(request, 'holdingAccountId') ?? '').trim();
  if (!chosen && !required) return undefined;
  if (!z.uuid().safeParse(chosen).success)
    throw refuse('VALIDATION_ERROR', { words: 'Pilih rekening sumber pembayaran' });
  return chosen;
}

/**
 * When the money left, as the mark-paid form gives it: its local time is WIB, blank is now. A time after now is refused
 * here in the page's words (the ledger refuses it too, in general words).
 */
function transferredAtOf(request: FastifyRequest, now: Date): Date | undefined {
  const local = String(field(request, 'transferredAt') ?? '').trim();
  if (!local) return undefined;
  const at = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(local)
    ? new Date(`${local.length === 16 ? `${local}:00` : local}+07:00`)
    : null;
  if (!at || Number.isNaN(at.getTime()))
    throw refuse('VALIDATION_ERROR', { words: 'Waktu transfer tidak valid (tanggal dan jam WIB)' });
  if (at.getTime() > now.getTime())
    throw refuse('INVALID_INPUT', { words: 'Waktu transfer tidak boleh setelah sekarang' });
  return at;
}

/** A move between holding accounts as the form sends it, through the JSON route's schema: a whole number typed is the amount. */
function holdingTransferOf(request: FastifyRequest) {
  const typed = (request.body ?? {}) as Record<string, unknown>;
  const amount = /^\d{1,15}$/.test(String(typed.amount ?? '').trim()) ? Number(typed.amount) : typed.amount;
  const note = String(typed.note ?? '').trim();
  return parseBody(
    holdingTransferBody,
    { ...typed, amount, note: note || undefined },
    'Isian pemindahan dana belum benar',
  );
}

// a payout the provider refused or left unconfirmed (502) is shown on the page too, with its reason, not as an error page
const payoutOutcome = (err: unknown) =>
  err instanceof DomainError &&
  (err.code === 'WITHDRAWAL_PAYOUT_FAILED' || err.code === 'WITHDRAWAL_PAYOUT_UNCONFIRMED');

type PayoutAccount = Awaited<ReturnType<typeof currentPayoutAccount>>;
type OwnedAccount = Awaited<ReturnType<typeof findOwnedAccount>>;
type HoldingAccount = Awaited<ReturnType<typeof listHoldingAccounts>>[number];

/** Every account money may leave from, with its ledger cash: the holding accounts and the payout account. */
function sourcesOf(
  holding: HoldingAccount[],
  cash: Map<string, number>,
  chosen: PayoutAccount,
  account: OwnedAccount,
): SourceAccount[] {
  const sources: SourceAccount[] = holding.map(h => ({
    accountId: h.account_id,
    name: h.account_name ?? h.account_id,
    providerCode: h.provider_code,
    cash: cash.get(h.account_id) ?? 0,
    payout: h.account_id === chosen?.accountId,
    holding: true,
  }));
  if (chosen && !sources.some(a => a.accountId === chosen.accountId))
    sources.unshift({
      accountId: chosen.accountId,
      name: account?.account_name ?? chosen.accountId,
      providerCode: 'WALLET-A',
      cash: cash.get(chosen.accountId) ?? 0,
      payout: true,
      holding: false,
    });
  return sources;
}

/** The withdrawals, the payout account and the sources money leaves from; a refusal on top, with its status. */
async function withdrawalsPage(deps: AppDeps, request: FastifyRequest, reply: FastifyReply, refused?: DomainError) {
  const { value, refusal } = queryFilters(request, withdrawalQuery);
  const { status } = value;
  const error = refused ?? refusal;
  const [rows, chosen, own, holding, cash, transfers] = await Promise.all([
    listGatewayWithdrawals(deps.pool, { status }),
    currentPayoutAccount(deps),
    listAccounts(deps.pool, { ownerId: request.viewer!.user.id, page: 1, limit: 100 }),
    listHoldingAccounts(deps.pool),
    holdingCashByAccount(deps.pool),
    listHoldingTransfers(deps.pool),
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
    sources: sourcesOf(holding, cash, chosen, account),
    transfers,
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
    { status: error?.status ?? 200 },
  );
}

/** The admin console's withdrawals: the payout account, then each withdrawal paid, marked paid or refused by a form. */
export function adminWithdrawalPages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    const adminId = (request: FastifyRequest) => request.viewer!.user.id;

    /** Runs a decision and goes back to the withdrawals; a refusal shows the page with its message instead. */
    const decide = (request: FastifyRequest, reply: FastifyReply, run: () => Promise<string>) =>
      orShowRefusal(
        async () => seeOther(reply, '/admin/withdrawals', await run()),
        error => withdrawalsPage(deps, request, reply, error),
      );

    app.get('/withdrawals', (request, reply) => withdrawalsPage(deps, request, reply));
    app.post<{ Params: { id: string } }>('/withdrawals/:id/paid', (request, reply) =>
      decide(request, reply, async () => {
        const id = pathId(request.params.id, withdrawalNotFound);
        const ref = reference.parse(field(request, 'reference') ?? '');
        await payWithdrawal(deps, adminId(request), id, ref, {
          holdingAccountId: sourceOf(request, true)!,
          holderOverride: holderOverrideOf(request),
          transferredAt: transferredAtOf(request, deps.clock.now()),
        });
        return 'paid';
      }),
    );
    app.post<{ Params: { id: string } }>('/withdrawals/:id/pay', (request, reply) =>
      decide(request, reply, async () => {
        const id = pathId(request.params.id, withdrawalNotFound);
        await payOutWithdrawal(deps, adminId(request), id, {
          holdingAccountId: sourceOf(request, false),
          holderOverride: holderOverrideOf(request),
        });
        return 'paid-out';
      }).catch((err: unknown) => {
        if (err instanceof DomainError && payoutOutcome(err)) return withdrawalsPage(deps, request, reply, err);
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
    app.post('/withdrawals/holding-transfers', (request, reply) =>
      decide(request, reply, async () => {
        await recordHoldingTransfer(deps, adminId(request), holdingTransferOf(request));
        return 'holding-transfer';
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
