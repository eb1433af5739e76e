import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { markHoldingAccount, unmarkHoldingAccount } from '../../commands/holding-accounts.ts';
import { bookLedgerAdjustment } from '../../commands/ledger-adjustments.ts';
import { refuse, type DomainError } from '../../errors.ts';
import { listAccounts } from '../../projections/accounts.ts';
import { listHoldingAccounts } from '../../projections/gateway-access.ts';
import { listLedgerAdjustments } from '../../projections/ledger-adjustments.ts';
import { holdingAccountsHtml } from '../../web/pages/admin.ts';
import { ledgerAdjustmentsHtml } from '../../web/pages/admin-ledger-adjustments.ts';
import type { AppDeps } from '../deps.ts';
import { ledgerAdjustmentBody } from '../ledger-adjustments.ts';
import { parseBody } from '../validation.ts';
import { noticeOf, orShowRefusal, pathId, seeOther, sendPage } from './page-reply.ts';
import { frameOf } from './page-surface.ts';
import { postedForm } from './posted-form.ts';

const doneNotices: Record<string, string> = {
  marked: 'Rekening ditandai sebagai penampung.',
  unmarked: 'Rekening dilepas dari penampung.',
  'ledger-adjustment': 'Penyesuaian dicatat di buku besar.',
};
const markForm = z.object({ accountId: z.string().prefault('') });
const accountNotFound = () => refuse('ACCOUNT_NOT_FOUND', { words: 'Rekening tidak ditemukan' });

/**
 * A dated opening or correcting entry as the form sends it, through the JSON route's schema: a whole number typed is
 * the amount, and the form's local time is WIB.
 */
function ledgerAdjustmentOf(request: FastifyRequest) {
  const typed = (request.body ?? {}) as Record<string, unknown>;
  const amount = /^-?\d{1,15}$/.test(String(typed.amount ?? '').trim()) ? Number(typed.amount) : typed.amount;
  const local = String(typed.effectiveAt ?? '').trim();
  const effectiveAt = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(local) ? `${local}:00+07:00` : `${local}+07:00`;
  return parseBody(ledgerAdjustmentBody, { ...typed, amount, effectiveAt }, 'Isian penyesuaian belum benar');
}

async function holdingPage(deps: AppDeps, request: FastifyRequest, reply: FastifyReply, error?: DomainError) {
  const [holding, own, entries] = await Promise.all([
    listHoldingAccounts(deps.pool),
    listAccounts(deps.pool, { ownerId: request.viewer!.user.id, page: 1, limit: 100 }),
    listLedgerAdjustments(deps.pool),
  ]);
  const csrf = request.viewer!.csrf;
  return sendPage(
    reply,
    { ...frameOf(request, 'Rekening penampung', 'holding-accounts'), notice: noticeOf(request, doneNotices, error) },
    holdingAccountsHtml(holding, own.rows, csrf) + ledgerAdjustmentsHtml({ holding, entries, csrf }),
    { status: error?.status ?? 200 },
  );
}

/** The admin console's holding accounts: the admin's own linked accounts marked or unmarked, and ledger adjustments. */
export function adminHoldingPages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    /** Runs a decision of the admin's and goes back to the page; a refusal shows the page with it. */
    const decide = (request: FastifyRequest, reply: FastifyReply, run: (adminId: string) => Promise<string>) =>
      orShowRefusal(
        async () => seeOther(reply, '/admin/holding-accounts', await run(request.viewer!.user.id)),
        error => holdingPage(deps, request, reply, error),
      );

    app.get('/holding-accounts', (request, reply) => holdingPage(deps, request, reply));
    app.post('/holding-accounts', (request, reply) =>
      decide(request, reply, async adminId => {
        await markHoldingAccount(deps, adminId, pathId(postedForm(request, markForm).accountId, accountNotFound));
        return 'marked';
      }),
    );
    app.post('/holding-accounts/ledger-adjustments', (request, reply) =>
      decide(request, reply, async adminId => {
        await bookLedgerAdjustment(deps, adminId, ledgerAdjustmentOf(request));
        return 'ledger-adjustment';
      }),
    );
    app.post<{ Params: { accountId: string } }>('/holding-accounts/:accountId/unmark', (request, reply) =>
      decide(request, reply, async adminId => {
        await unmarkHoldingAccount(deps, adminId, pathId(request.params.accountId, accountNotFound));
        return 'unmarked';
      }),
    );
  };
}
