import type { FastifyInstance } from 'fastify';
import { linkAccount } from '../../commands/link-account.ts';
import { refuse } from '../../errors.ts';
import { findProvider } from '../../providers/catalogue.ts';
import type { AppDeps } from '../deps.ts';
import type { OtpSendLimits } from '../otp-flows.ts';
import { accountDetailPages } from './account-detail-pages.ts';
import { accountFormBody, linkSettings } from './account-forms.ts';
import { listPage, orShowLinkForm } from './account-list-page.ts';
import { accountOtpPages } from './account-otp-pages.ts';
import { seeOther } from './page-reply.ts';
import { formThrough, postedForm } from './posted-form.ts';

/**
 * The viewer's accounts: link a bank or a wallet (by phone, or by OTP in two or three steps, as POST /api/v1/accounts
 * does with its actions), synchronise now, change the settings, log in again, delete. The same commands and the same
 * OTP send limits as the key surface.
 */
export function accountPages(deps: AppDeps, otpSends: OtpSendLimits) {
  return async function (app: FastifyInstance) {
    const orShow = orShowLinkForm(deps);
    app.get('/accounts', (request, reply) => listPage(deps, request, reply));

    // a bank (internet-banking login) or a wallet logged in by its phone number alone
    app.post('/accounts', (request, reply) =>
      orShow(request, reply, String((request.body as { flow?: unknown } | undefined)?.flow ?? ''), async () => {
        const form = postedForm(request, accountFormBody);
        const provider = findProvider(form.providerCode ?? '');
        if (!provider || provider.loginFlow === 'otp')
          throw refuse('PROVIDER_NOT_FOUND', { words: 'Pilih penyedia dari daftar' });
        const settings = formThrough(linkSettings, form);
        const outcome = await linkAccount(deps, request.viewer!.user.id, {
          type: provider.type,
          providerCode: provider.providerCode,
          ...settings,
          accountNumber: form.accountNumber,
          username: form.username,
          password: form.password,
          phoneNumber: form.phoneNumber,
        });
        if (outcome.kind !== 'linked')
          throw refuse('VALIDATION_ERROR', { words: `${provider.name} dihubungkan dengan OTP` });
        return seeOther(reply, `/dashboard/accounts/${outcome.accountId}`, 'linked');
      }),
    );
    await app.register(accountOtpPages(deps, otpSends));
    await app.register(accountDetailPages(deps));
  };
}
