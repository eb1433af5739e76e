import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accountNumberPattern, phonePattern } from './catalogue.ts';
import { providerOrThrow, SandboxError } from './errors.ts';
import type { Faults } from './faults.ts';
import type { SandboxLoginFlows } from './login.ts';
import { merchantQris } from './qris.ts';
import type { SandboxPayments } from './payments.ts';
import type { SandboxSessions } from './sessions.ts';
import type { SandboxAccount } from './state.ts';
import type { SandboxTransfers } from './transfers.ts';

/** The API a connector calls, under /providers/:providerCode; every request here passes through the faults. */
const providerParams = z.object({ providerCode: z.string() });
const accountParams = providerParams.extend({ accountRef: z.string().min(1).max(40) });
const phone = z.string().regex(phonePattern, 'a phone number');

const loginBody = z.object({
  username: z.string().min(1).max(100).optional(),
  password: z.string().min(1).max(200).optional(),
  accountNumber: z.string().regex(accountNumberPattern, '4 to 20 digits').optional(),
  phoneNumber: phone.optional(),
});
const otpBody = z.object({
  phoneNumber: phone,
  pin: z.string().max(20).optional(),
  channel: z.enum(['MESSENGER', 'SMS']).default('MESSENGER'),
});
const verifyBody = z.object({
  challengeId: z.string().min(1).max(100),
  otp: z.string().min(1).max(20),
  pin: z.string().max(20).optional(),
});
const authHeaders = z.object({ authorization: z.string().optional() });
const transactionsQuery = z.object({
  after: z.string().min(1).max(100).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});

export type ProviderRouteDeps = {
  faults: Faults;
  sessions: SandboxSessions;
  login: SandboxLoginFlows;
  payments: SandboxPayments;
  transfers: SandboxTransfers;
};

const destination = {
  instId: z.string().min(1).max(20),
  instLocalName: z.string().min(1).max(40),
  accountNumber: z.string().min(1).max(30),
};
const inquiryBody = z.object(destination);
const bankTransferBody = z.object({
  ...destination,
  reference: z.string().min(1).max(100),
  amount: z.int().positive().max(1_000_000_000),
});
const qrisPaymentBody = z.object({
  reference: z.string().min(1).max(100),
  qris: z.string().min(20).max(1024),
  amount: z.int().positive().max(1_000_000_000),
});
const referenceParams = accountParams.extend({ reference: z.string().min(1).max(100) });

const virtualAccountBody = z.object({ vaNumber: z.string().regex(/^[0-9]{6,20}$/, '6 to 20 digits') });

type AccountRequest = { params: z.infer<typeof accountParams>; headers: z.infer<typeof authHeaders> };

/** The account a route names, once the request's bearer token is a live session of that account (401, 403 if not). */
const authorizedBy = (sessions: SandboxSessions) => (request: AccountRequest) =>
  sessions.authorize(request.params.providerCode, request.params.accountRef, request.headers.authorization);

export function providerRoutes(deps: ProviderRouteDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();

    // before the body is read: an outage answers 503 whatever was sent
    app.addHook('onRequest', async request => {
      const params = providerParams.safeParse(request.params);
      if (!params.success) return;
      providerOrThrow(params.data.providerCode);
      await deps.faults.beforeRequest(params.data.providerCode);
    });

    loginRoutes(plain, deps);
    accountRoutes(plain, deps);
    transferRoutes(plain, deps);
  };
}

/** Logging in: by password, by phone number alone, or by OTP. */
function loginRoutes(plain: FastifyInstance, deps: ProviderRouteDeps) {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  app.post('/login', { schema: { params: providerParams, body: loginBody } }, async request => {
    const provider = providerOrThrow(request.params.providerCode);
    const { username, password, accountNumber, phoneNumber } = request.body;
    if (provider.type === 'ewallet') {
      if (!phoneNumber) throw new SandboxError(400, 'INVALID_REQUEST', 'phoneNumber is required');
      return deps.login.loginDirect(provider, { phoneNumber });
    }
    if (!username || !password || !accountNumber)
      throw new SandboxError(400, 'INVALID_REQUEST', 'username, password and accountNumber are required');
    return deps.login.loginBank(provider, { username, password, accountNumber });
  });

  app.post('/otp', { schema: { params: providerParams, body: otpBody } }, async request =>
    deps.login.sendOtp(providerOrThrow(request.params.providerCode), request.body),
  );

  app.post('/otp/verify', { schema: { params: providerParams, body: verifyBody } }, async request =>
    deps.login.verifyOtp(providerOrThrow(request.params.providerCode), request.body),
  );
}

/** What a logged-in account reads: its balance, its history and its QRIS; and the virtual accounts it opens. */
function accountRoutes(plain: FastifyInstance, deps: ProviderRouteDeps) {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const authorized = authorizedBy(deps.sessions);
  app.get(
    '/accounts/:accountRef/balance',
    { schema: { params: accountParams, headers: authHeaders } },
    async request => ({ balance: authorized(request).balance, currency: 'IDR' }),
  );

  app.get(
    '/accounts/:accountRef/transactions',
    { schema: { params: accountParams, headers: authHeaders, querystring: transactionsQuery } },
    async request => transactionPage(authorized(request), request.query.after, request.query.limit),
  );

  app.get('/accounts/:accountRef/qris', { schema: { params: accountParams, headers: authHeaders } }, async request => {
    const provider = providerOrThrow(request.params.providerCode);
    const account = authorized(request);
    if (!provider.qris) throw new SandboxError(404, 'QRIS_NOT_SUPPORTED', `${provider.providerCode} has no QRIS`);
    return { payload: merchantQris(account) };
  });

  // a merchant opens a virtual account number that pays into its account (what a VA payment needs)
  app.post(
    '/accounts/:accountRef/virtual-accounts',
    { schema: { params: accountParams, headers: authHeaders, body: virtualAccountBody } },
    async (request, reply) => {
      const account = authorized(request);
      const registered = deps.payments.registerVirtualAccount({
        providerCode: account.providerCode,
        accountRef: account.accountRef,
        vaNumber: request.body.vaNumber,
      });
      return reply.code(201).send(registered);
    },
  );
}

/** A wallet's transfers out. */
function transferRoutes(plain: FastifyInstance, deps: ProviderRouteDeps) {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const authorized = authorizedBy(deps.sessions);
  // outbound transfers of a wallet (WALLET-A): the banks, a destination's holder, transfers by the caller's reference
  app.get(
    '/accounts/:accountRef/banks',
    { schema: { params: accountParams, headers: authHeaders } },
    async request => ({ banks: deps.transfers.banks(authorized(request)) }),
  );
  app.post(
    '/accounts/:accountRef/bank-inquiries',
    { schema: { params: accountParams, headers: authHeaders, body: inquiryBody } },
    async request => deps.transfers.inquire(authorized(request), request.body),
  );
  app.post(
    '/accounts/:accountRef/bank-transfers',
    { schema: { params: accountParams, headers: authHeaders, body: bankTransferBody } },
    async request => deps.transfers.transferToBank(authorized(request), request.body),
  );
  app.post(
    '/accounts/:accountRef/qris-payments',
    { schema: { params: accountParams, headers: authHeaders, body: qrisPaymentBody } },
    async request => deps.transfers.payQris(authorized(request), request.body),
  );
  app.get(
    '/accounts/:accountRef/transfers/:reference',
    { schema: { params: referenceParams, headers: authHeaders } },
    async request => deps.transfers.status(authorized(request), request.params.reference),
  );
}

/** A page of the account's history after the transaction named (the whole history without one). */
function transactionPage(account: SandboxAccount, after: string | undefined, limit: number) {
  let start = 0;
  if (after !== undefined) {
    const index = account.transactions.findIndex(t => t.id === after);
    if (index < 0)
      throw new SandboxError(
        400,
        'UNKNOWN_TRANSACTION',
        `No transaction ${after} on this account; omit \`after\` for the whole history`,
      );
    start = index + 1;
  }
  const transactions = account.transactions.slice(start, start + limit);
  return { transactions, hasMore: start + limit < account.transactions.length };
}
