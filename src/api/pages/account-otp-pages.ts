import type { FastifyInstance } from 'fastify';
import { sendOtpLoginCode, verifyOtpLoginCode } from '../../commands/otp-login-steps.ts';
import { otpWallets, type OtpWallet } from '../../commands/otp-login.ts';
import { refuse } from '../../errors.ts';
import { findOwnedAccount } from '../../projections/accounts.ts';
import { otpStepHtml } from '../../web/pages/accounts.ts';
import { wibText } from '../../web/page.ts';
import type { AppDeps } from '../deps.ts';
import {
  firstVerifyActionOf,
  isVerifyAction,
  maskPhone,
  otpSendInputOf,
  otpVerifyInputOf,
  type OtpSendLimits,
} from '../otp-flows.ts';
import { accountFormBody } from './account-forms.ts';
import { orShowLinkForm } from './account-list-page.ts';
import { pathId, seeOther, sendPage } from './page-reply.ts';
import { frameOf } from './page-surface.ts';
import { postedForm } from './posted-form.ts';

const isOtpWallet = (code: string): code is OtpWallet => (otpWallets as readonly string[]).includes(code);
const accountNotFound = () => refuse('ACCOUNT_NOT_FOUND', { words: 'Rekening tidak ditemukan' });

/**
 * An OTP wallet linked, or logged in again, in two or three steps: the code sent, then verified (wallet C may ask for a
 * second code). A refusal goes back to the linking form, as typed.
 */
export function accountOtpPages(deps: AppDeps, otpSends: OtpSendLimits) {
  return async function (app: FastifyInstance) {
    const orShow = orShowLinkForm(deps);

    // step 1 (send), for a new account or a new login of one (accountId)
    app.post('/accounts/otp/send', (request, reply) =>
      orShow(request, reply, 'otp', async () => {
        const form = postedForm(request, accountFormBody);
        const providerCode = form.providerCode ?? '';
        if (!isOtpWallet(providerCode)) throw refuse('UNKNOWN_PROVIDER', { words: 'Pilih e-wallet dari daftar' });
        const { accountId } = form;
        const ownerId = request.viewer!.user.id;
        if (accountId && !(await findOwnedAccount(deps.pool, ownerId, pathId(accountId, accountNotFound))))
          throw accountNotFound();
        const input = otpSendInputOf(providerCode, {
          phoneNumber: form.phoneNumber,
          pin: form.pin,
          verificationMethod: form.verificationMethod,
          ...(accountId
            ? { accountId }
            : { providerCode, accountName: form.accountName, intervalMinutes: form.intervalMinutes }),
        });
        const sent = await sendOtpLoginCode(deps, deps.config.otp, ownerId, input, () =>
          otpSends.count(request, reply),
        );
        const view = {
          csrf: request.viewer!.csrf,
          action: firstVerifyActionOf(providerCode),
          sessionId: sent.sessionId,
          accountId,
          message: `Kode OTP dikirim ke ${maskPhone(input.phoneNumber)} lewat ${input.channel === 'SMS' ? 'SMS' : 'messenger'}; berlaku sampai ${wibText(sent.expiresAt)}`,
          needsPin: providerCode === 'WALLET-B',
          second: false,
        };
        return sendPage(reply, frameOf(request, 'Verifikasi OTP', 'accounts'), otpStepHtml(view));
      }),
    );

    // step 2 (and wallet C's step 3): the code; the provider may ask for a second one
    app.post('/accounts/otp/verify', (request, reply) =>
      orShow(request, reply, 'otp', async () => {
        const form = postedForm(request, accountFormBody);
        const action = form.action ?? '';
        if (!isVerifyAction(action))
          throw refuse('VALIDATION_ERROR', { words: 'Langkah OTP tidak dikenal; mulai lagi' });
        const { accountId } = form;
        const input = otpVerifyInputOf(action, { sessionId: form.sessionId, otp: form.otp, pin: form.pin, accountId });
        const outcome = await verifyOtpLoginCode(deps, deps.config.otp, request.viewer!.user.id, input);
        if (outcome.kind === 'completed') return seeOther(reply, `/dashboard/accounts/${outcome.accountId}`, 'linked');
        const view = {
          csrf: request.viewer!.csrf,
          action: 'wallet-c-verify-second-otp',
          sessionId: outcome.sessionId,
          accountId,
          message: 'Penyedia mengirim kode OTP kedua.',
          needsPin: false,
          second: true,
        };
        return sendPage(reply, frameOf(request, 'Verifikasi OTP', 'accounts'), otpStepHtml(view));
      }),
    );
  };
}
