import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DomainError } from '../../errors.ts';
import { listAccounts } from '../../projections/accounts.ts';
import { providers } from '../../providers/catalogue.ts';
import { accountsHtml, type AccountForm } from '../../web/pages/accounts.ts';
import type { AppDeps } from '../deps.ts';
import { formOf } from './account-forms.ts';
import { noticeOf, orShowRefusal, sendPage } from './page-reply.ts';
import { frameOf } from './page-surface.ts';

const linkForms = {
  banks: providers.filter(p => p.type === 'bank'),
  directWallets: providers.filter(p => p.type === 'ewallet' && p.loginFlow === 'direct'),
  otpWallets: providers.filter(p => p.loginFlow === 'otp'),
};

/** The viewer's accounts and the forms that link one; a refusal shows the form that asked, as typed. */
export async function listPage(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  opts: { error?: DomainError; form?: AccountForm; flow?: string } = {},
) {
  const { rows } = await listAccounts(deps.pool, { ownerId: request.viewer!.user.id, page: 1, limit: 100 });
  const notice = noticeOf(request, { deleted: 'Akun dan semua mutasinya dihapus.' }, opts.error);
  const view = {
    ...linkForms,
    accounts: rows,
    csrf: request.viewer!.csrf,
    form: opts.form ?? {},
    flow: opts.flow ?? '',
  };
  return sendPage(reply, { ...frameOf(request, 'Rekening & e-wallet', 'accounts'), notice }, accountsHtml(view), {
    status: opts.error?.status ?? 200,
  });
}

/** Runs a linking form's work; a refusal of ours or of the provider goes back to the form that asked, as typed. */
export const orShowLinkForm =
  (deps: AppDeps) => (request: FastifyRequest, reply: FastifyReply, flow: string, work: () => Promise<unknown>) =>
    orShowRefusal(work, error => listPage(deps, request, reply, { error, form: formOf(request.body), flow }));
