import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { linkAccount } from '../../commands/link-account.ts';
import { sendOtpLoginCode, verifyOtpLoginCode } from '../../commands/otp-login-steps.ts';
import { otpWallets, type OtpWallet } from '../../commands/otp-login.ts';
import { changeAccount, deleteAccount, refreshAccount } from '../../commands/manage-account.ts';
import { DomainError, refuse } from '../../errors.ts';
import { findOwnedAccount, listAccounts } from '../../projections/accounts.ts';
import { findProvider, providers } from '../../providers/catalogue.ts';
import { text } from '../../text.ts';
import { accountDetailHtml, accountsHtml, otpStepHtml, type AccountForm } from '../../web/pages/accounts.ts';
import { wibText } from '../../web/page.ts';
import type { AppDeps } from '../deps.ts';
import {
  firstVerifyActionOf,
  isVerifyAction,
  otpSendInputOf,
  maskPhone,
  otpVerifyInputOf,
  type OtpSendLimits,
} from '../otp-flows.ts';
import { noticeOf, orShowRefusal, pathId, seeOther, sendPage } from './page-reply.ts';
import { frameOf } from './page-surface.ts';

const linkForms = {
  banks: providers.filter(p => p.type === 'bank'),
  directWallets: providers.filter(p => p.type === 'ewallet' && p.loginFlow === 'direct'),
  otpWallets: providers.filter(p => p.loginFlow === 'otp'),
};
const isOtpWallet = (code: string): code is OtpWallet => (otpWallets as readonly string[]).includes(code);

type Posted = Record<string, unknown>;
const posted = (request: FastifyRequest): Posted => (request.body ?? {}) as Posted;
const str = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);
/** A number field as the API's schemas take it: a whole number typed is a number, anything else left for them to refuse. */
const num = (value: unknown) =>
  typeof value === 'string' && /^\d{1,9}$/.test(value.trim()) ? Number(value) : str(value);
const accountNotFound = () => refuse('ACCOUNT_NOT_FOUND', { words: 'Rekening tidak ditemukan' });

/** The form as it comes back after a refusal: what was typed, without passwords, PINs or codes. */
const formOf = (body: Posted): AccountForm =>
  Object.fromEntries(
    ['providerCode', 'accountName', 'accountNumber', 'username', 'phoneNumber', 'intervalMinutes'].flatMap(k =>
      typeof body[k] === 'string' ? [[k, body[k]]] : [],
    ),
  );

/**
 * The viewer's accounts: link a bank or a wallet (by phone, or by OTP in two or three steps, as POST /api/v1/accounts
 * does with its actions), synchronise now, change the settings, log in again, delete. The same commands and the same
 * OTP send limits as the key surface.
 */
export function accountPages(deps: AppDeps, otpSends: OtpSendLimits) {
  return async function (app: FastifyInstance) {
    const listPage = async (
      request: FastifyRequest,
      reply: FastifyReply,
      opts: { error?: DomainError; form?: AccountForm; flow?: string } = {},
    ) => {
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
    };
    /** A refusal of ours or of the provider goes back to the form that asked, as typed. */
    const orShow = (request: FastifyRequest, reply: FastifyReply, flow: string, work: () => Promise<unknown>) =>
      orShowRefusal(work, error => listPage(request, reply, { error, form: formOf(posted(request)), flow }));

    app.get('/accounts', (request, reply) => listPage(request, reply));

    // a bank (internet-banking login) or a wallet logged in by its phone number alone
    app.post('/accounts', (request, reply) =>
      orShow(request, reply, String(posted(request).flow ?? ''), async () => {
        const body = posted(request);
        const provider = findProvider(String(body.providerCode ?? ''));
        if (!provider || provider.loginFlow === 'otp')
          throw refuse('PROVIDER_NOT_FOUND', { words: 'Pilih penyedia dari daftar' });
        const input = z
          .object({
            accountName: text.trim().min(1, 'Nama wajib diisi').max(100, 'Nama maksimal 100 karakter'),
            intervalMinutes: z.int('Interval harus angka bulat').min(5).max(1440),
          })
          .safeParse({ accountName: body.accountName ?? '', intervalMinutes: num(body.intervalMinutes) });
        if (!input.success) throw refuse('VALIDATION_ERROR', { words: input.error.issues[0]!.message });
        const outcome = await linkAccount(deps, request.viewer!.user.id, {
          type: provider.type,
          providerCode: provider.providerCode,
          ...input.data,
          accountNumber: str(body.accountNumber),
          username: str(body.username),
          password: typeof body.password === 'string' && body.password !== '' ? body.password : undefined,
          phoneNumber: str(body.phoneNumber),
        });
        if (outcome.kind !== 'linked')
          throw refuse('VALIDATION_ERROR', { words: `${provider.name} dihubungkan dengan OTP` });
        return seeOther(reply, `/dashboard/accounts/${outcome.accountId}`, 'linked');
      }),
    );

    // an OTP wallet, step 1 (send), for a new account or a new login of one (accountId)
    app.post('/accounts/otp/send', (request, reply) =>
      orShow(request, reply, 'otp', async () => {
        const body = posted(request);
        const providerCode = String(body.providerCode ?? '');
        if (!isOtpWallet(providerCode)) throw refuse('UNKNOWN_PROVIDER', { words: 'Pilih e-wallet dari daftar' });
        const accountId = str(body.accountId);
        if (
          accountId &&
          !(await findOwnedAccount(deps.pool, request.viewer!.user.id, pathId(accountId, accountNotFound)))
        )
          throw accountNotFound();
        const fields = {
          phoneNumber: str(body.phoneNumber),
          pin: str(body.pin),
          verificationMethod: str(body.verificationMethod),
          ...(accountId
            ? { accountId }
            : { providerCode, accountName: str(body.accountName), intervalMinutes: num(body.intervalMinutes) }),
        };
        const input = otpSendInputOf(providerCode, fields);
        const sent = await sendOtpLoginCode(deps, deps.config.otp, request.viewer!.user.id, input, () =>
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
        const body = posted(request);
        const action = String(body.action ?? '');
        if (!isVerifyAction(action))
          throw refuse('VALIDATION_ERROR', { words: 'Langkah OTP tidak dikenal; mulai lagi' });
        const accountId = str(body.accountId);
        const input = otpVerifyInputOf(action, {
          sessionId: str(body.sessionId),
          otp: str(body.otp),
          pin: str(body.pin),
          accountId,
        });
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

    const owned = async (request: FastifyRequest<{ Params: { id: string } }>) => {
      const row = await findOwnedAccount(
        deps.pool,
        request.viewer!.user.id,
        pathId(request.params.id, accountNotFound),
      );
      if (!row) throw accountNotFound();
      return row;
    };
    const detailNotices: Record<string, string> = {
      linked: 'Terhubung. Sinkron pertama berjalan sesuai jadwal; tekan "Sinkron sekarang" untuk segera.',
      saved: 'Pengaturan disimpan.',
      refreshed: 'Saldo dan mutasi baru saja disinkronkan.',
      transferred: 'Transfer terkirim; saldo sudah berkurang dan mutasinya tercatat.',
      paid: 'Pembayaran QRIS terkirim; saldo sudah berkurang dan mutasinya tercatat.',
    };
    const detailPage = async (
      request: FastifyRequest<{ Params: { id: string } }>,
      reply: FastifyReply,
      error?: DomainError,
    ) => {
      const row = await owned(request);
      const provider = findProvider(row.provider_code);
      const notice = noticeOf(request, detailNotices, error);
      const opts = {
        otpLogin: provider?.loginFlow === 'otp',
        needsPin: row.provider_code === 'WALLET-A',
        isBank: row.type === 'bank',
      };
      return sendPage(
        reply,
        { ...frameOf(request, row.account_name, 'accounts'), notice },
        accountDetailHtml(row, request.viewer!.csrf, opts),
        { status: error?.status ?? 200 },
      );
    };

    app.get<{ Params: { id: string } }>('/accounts/:id', (request, reply) => detailPage(request, reply));

    app.post<{ Params: { id: string } }>('/accounts/:id', async (request, reply) => {
      const row = await owned(request);
      const body = posted(request);
      const changes = z
        .object({
          accountName: text.trim().min(1, 'Nama wajib diisi').max(100, 'Nama maksimal 100 karakter'),
          intervalMinutes: z
            .int('Interval harus angka bulat')
            .min(5, 'Interval minimal 5 menit')
            .max(1440, 'Interval maksimal 1440 menit'),
          username: text.min(1).max(100).optional(),
          password: text.min(1).max(200).optional(),
        })
        .safeParse({
          accountName: body.accountName ?? '',
          intervalMinutes: num(body.intervalMinutes),
          username: str(body.username),
          password: typeof body.password === 'string' && body.password !== '' ? body.password : undefined,
        });
      if (!changes.success)
        return detailPage(request, reply, refuse('VALIDATION_ERROR', { words: changes.error.issues[0]!.message }));
      return orShowRefusal(
        async () => {
          await changeAccount(deps, request.viewer!.user.id, row.id, changes.data);
          return seeOther(reply, `/dashboard/accounts/${row.id}`, 'saved');
        },
        error => detailPage(request, reply, error),
      );
    });

    app.post<{ Params: { id: string } }>('/accounts/:id/refresh', async (request, reply) => {
      const row = await owned(request);
      return orShowRefusal(
        async () => {
          await refreshAccount(deps, request.viewer!.user.id, row.id);
          return seeOther(reply, `/dashboard/accounts/${row.id}`, 'refreshed');
        },
        error => detailPage(request, reply, error),
      );
    });

    app.post<{ Params: { id: string } }>('/accounts/:id/delete', async (request, reply) => {
      const row = await owned(request);
      await deleteAccount(deps, request.viewer!.user.id, row.id);
      return seeOther(reply, '/dashboard/accounts', 'deleted');
    });
  };
}
