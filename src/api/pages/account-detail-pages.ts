import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { changeAccount, deleteAccount, refreshAccount } from '../../commands/manage-account.ts';
import { refuse, type DomainError } from '../../errors.ts';
import { findOwnedAccount } from '../../projections/accounts.ts';
import { findProvider } from '../../providers/catalogue.ts';
import { accountDetailHtml } from '../../web/pages/accounts.ts';
import type { AppDeps } from '../deps.ts';
import { accountFormBody, accountSettings } from './account-forms.ts';
import { noticeOf, orShowRefusal, pathId, seeOther, sendPage } from './page-reply.ts';
import { frameOf } from './page-surface.ts';
import { formThrough, postedForm } from './posted-form.ts';

type AccountRequest = FastifyRequest<{ Params: { id: string } }>;

const accountNotFound = () => refuse('ACCOUNT_NOT_FOUND', { words: 'Rekening tidak ditemukan' });
const detailNotices: Record<string, string> = {
  linked: 'Terhubung. Sinkron pertama berjalan sesuai jadwal; tekan "Sinkron sekarang" untuk segera.',
  saved: 'Pengaturan disimpan.',
  refreshed: 'Saldo dan mutasi baru saja disinkronkan.',
  transferred: 'Transfer terkirim; saldo sudah berkurang dan mutasinya tercatat.',
  paid: 'Pembayaran QRIS terkirim; saldo sudah berkurang dan mutasinya tercatat.',
};

/** The viewer's account the path names; another's or an unknown one is not found. */
async function owned(deps: AppDeps, request: AccountRequest) {
  const row = await findOwnedAccount(deps.pool, request.viewer!.user.id, pathId(request.params.id, accountNotFound));
  if (!row) throw accountNotFound();
  return row;
}

async function detailPage(deps: AppDeps, request: AccountRequest, reply: FastifyReply, error?: DomainError) {
  const row = await owned(deps, request);
  const provider = findProvider(row.provider_code);
  const opts = {
    otpLogin: provider?.loginFlow === 'otp',
    needsPin: row.provider_code === 'WALLET-A',
    isBank: row.type === 'bank',
  };
  return sendPage(
    reply,
    { ...frameOf(request, row.account_name, 'accounts'), notice: noticeOf(request, detailNotices, error) },
    accountDetailHtml(row, request.viewer!.csrf, opts),
    { status: error?.status ?? 200 },
  );
}

/** One of the viewer's accounts: its page, its settings changed, synchronised now, deleted. */
export function accountDetailPages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    /** Runs a change of the account's and goes back to its page; a refusal shows the page with it. */
    const change = (request: AccountRequest, reply: FastifyReply, accountId: string, run: () => Promise<string>) =>
      orShowRefusal(
        async () => seeOther(reply, `/dashboard/accounts/${accountId}`, await run()),
        error => detailPage(deps, request, reply, error),
      );

    app.get<{ Params: { id: string } }>('/accounts/:id', (request, reply) => detailPage(deps, request, reply));

    app.post<{ Params: { id: string } }>('/accounts/:id', async (request, reply) => {
      const row = await owned(deps, request);
      return change(request, reply, row.id, async () => {
        const settings = formThrough(accountSettings, postedForm(request, accountFormBody));
        await changeAccount(deps, request.viewer!.user.id, row.id, settings);
        return 'saved';
      });
    });

    app.post<{ Params: { id: string } }>('/accounts/:id/refresh', async (request, reply) => {
      const row = await owned(deps, request);
      return change(request, reply, row.id, async () => {
        await refreshAccount(deps, request.viewer!.user.id, row.id);
        return 'refreshed';
      });
    });

    app.post<{ Params: { id: string } }>('/accounts/:id/delete', async (request, reply) => {
      const row = await owned(deps, request);
      await deleteAccount(deps, request.viewer!.user.id, row.id);
      return seeOther(reply, '/dashboard/accounts', 'deleted');
    });
  };
}
