import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sandboxProviders } from './catalogue.ts';
import { providerOrThrow, SandboxError } from './errors.ts';
import { allProviders, type Faults } from './faults.ts';
import { openAccountFor, type sandboxPayments } from './payments.ts';
import type { SandboxNotifier } from './notifications.ts';
import type { SandboxQrImages } from './qr-images.ts';
import { qrImageLimits } from '../../qr-image.ts';
import type { SandboxSessions } from './sessions.ts';
import type { SandboxState } from './state.ts';

/** The test-control API under /sandbox: what a tester does by hand. Faults never apply here. */
const rupiah = z.int().positive().max(1_000_000_000_000);
const ref = z.string().min(1).max(40);
const providerCode = z.string().min(1).max(40);

const transactionBody = z.object({
  providerCode,
  accountRef: ref,
  type: z.enum(['CREDIT', 'DEBIT']),
  amount: rupiah,
  description: z.string().max(200).optional(),
  senderName: z.string().max(100).optional(),
  reference: z.string().max(100).optional(),
});
const paymentBody = z
  .object({
    qris: z.string().min(20).max(512).optional(),
    vaNumber: z.string().min(1).max(40).optional(),
    providerCode: providerCode.optional(),
    accountNumber: ref.optional(),
    amount: rupiah.optional(),
  })
  .strict();
const imageQuery = z.object({ amount: z.coerce.number().pipe(rupiah).optional() });

/** A JSON body the route reads by hand (it also takes images), refused as the schemas' refusals are worded. */
function parsedBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map(i => `${['body', ...i.path.map(String)].join('.')}: ${i.message}`);
  throw new SandboxError(400, 'INVALID_REQUEST', issues.join('; '));
}

const virtualAccountBody = z.object({
  providerCode,
  accountRef: ref,
  vaNumber: z.string().regex(/^[0-9]{6,20}$/, '6 to 20 digits'),
});
const faultBody = z
  .object({
    providerCode: providerCode.optional(),
    latencyMs: z.int().min(0).max(60_000).optional(),
    failNext: z.int().min(0).max(10_000).optional(),
    failureRate: z.number().min(0).max(1).optional(),
    seed: z.int().optional(),
    outage: z.boolean().optional(),
    expireSessions: z.boolean().optional(),
    requireSecondOtp: z.boolean().optional(),
    refuseLogin: z.boolean().optional(),
    transferRefuse: z.int().min(0).max(10_000).optional(),
    transferTimeout: z.int().min(0).max(10_000).optional(),
    transferFailAfterAccept: z.int().min(0).max(10_000).optional(),
    transferHoldMs: z.int().min(0).max(60_000).optional(),
    notificationDelayMs: z.int().min(0).max(60_000).optional(),
    notificationDuplicate: z.int().min(0).max(10_000).optional(),
    notificationForge: z.int().min(0).max(10_000).optional(),
    notificationLose: z.int().min(0).max(10_000).optional(),
  })
  .strict();
const faultScopeQuery = z.object({ providerCode: providerCode.optional() });
const accountParams = z.object({ providerCode, accountRef: ref });

export type ControlRouteDeps = {
  state: SandboxState;
  faults: Faults;
  sessions: SandboxSessions;
  payments: ReturnType<typeof sandboxPayments>;
  qrImages: SandboxQrImages;
  notifier: SandboxNotifier;
  /** who may drive the sandbox: its control routes hand out OTP codes and credit accounts */
  controlAllowed: (address: string) => boolean;
};

export function controlRoutes(deps: ControlRouteDeps) {
  return async function (plain: FastifyInstance) {
    const app = plain.withTypeProvider<ZodTypeProvider>();
    const { state } = deps;
    app.addHook('onRequest', async request => {
      if (!deps.controlAllowed(request.socket.remoteAddress ?? ''))
        throw new SandboxError(403, 'CONTROL_NOT_ALLOWED', 'The sandbox control API answers only on loopback');
    });

    app.get('/providers', async () => ({ providers: sandboxProviders }));

    app.get('/otp', { schema: { querystring: z.object({ phone: z.string().min(1).max(20) }) } }, async request => {
      const message = state.inbox.get(request.query.phone);
      if (!message) throw new SandboxError(404, 'NO_OTP', `No OTP was sent to ${request.query.phone}`);
      return {
        code: message.code,
        providerCode: message.providerCode,
        channel: message.channel,
        sentAt: message.sentAt,
      };
    });

    paymentRoutes(plain, deps);

    app.get('/notifications', async () => ({ notifications: deps.notifier.sent() }));

    faultRoutes(plain, deps);

    app.get('/accounts', async () => ({
      accounts: [...state.accounts.values()].map(a => ({
        providerCode: a.providerCode,
        accountRef: a.accountRef,
        holderName: a.holderName,
        balance: a.balance,
        transactionCount: a.transactions.length,
        createdAt: a.createdAt,
      })),
    }));

    app.get('/accounts/:providerCode/:accountRef', { schema: { params: accountParams } }, async request => {
      const account = state.findAccount(request.params.providerCode, request.params.accountRef);
      if (!account) throw new SandboxError(404, 'ACCOUNT_NOT_FOUND', 'The sandbox has not seen this account yet');
      return account;
    });
  };
}

/** Money in as a tester adds it: a transaction by hand, a virtual account, a payment as a customer makes it. */
function paymentRoutes(plain: FastifyInstance, deps: ControlRouteDeps) {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { state } = deps;
  app.post('/transactions', { schema: { body: transactionBody } }, async (request, reply) => {
    const { providerCode: code, accountRef, ...transaction } = request.body;
    const added = state.record(openAccountFor(state, code, accountRef), transaction);
    return reply.code(201).send({ id: added.id });
  });

  app.post('/virtual-accounts', { schema: { body: virtualAccountBody } }, async (request, reply) =>
    reply.code(201).send(deps.payments.registerVirtualAccount(request.body)),
  );

  // a QR image as the body pays the QRIS it shows (a static QR's amount in ?amount=), as a payer's phone scans it
  app.addContentTypeParser(
    ['image/png', 'image/jpeg'],
    { parseAs: 'buffer', bodyLimit: qrImageLimits.maxBytes },
    (_request, image, done) => done(null, image),
  );
  app.post('/payments', { schema: { querystring: imageQuery } }, async (request, reply) => {
    if (Buffer.isBuffer(request.body)) {
      const qris = await deps.qrImages.read(request.body, request.socket.remoteAddress ?? '');
      return reply.code(201).send(deps.payments.payQris(qris, request.query.amount));
    }
    const { qris, vaNumber, providerCode: code, accountNumber, amount } = parsedBody(paymentBody, request.body);
    const ways = [qris, vaNumber, accountNumber].filter(w => w !== undefined).length;
    if (ways !== 1)
      throw new SandboxError(400, 'INVALID_REQUEST', 'Give exactly one of qris, vaNumber or accountNumber');
    if (qris !== undefined) return reply.code(201).send(deps.payments.payQris(qris, amount));
    if (amount === undefined) throw new SandboxError(400, 'INVALID_REQUEST', 'amount is required');
    if (vaNumber !== undefined) return reply.code(201).send(deps.payments.payVirtualAccount(vaNumber, amount));
    return reply.code(201).send(deps.payments.transfer(code, accountNumber!, amount));
  });
}

/** The faults a tester switches on, per provider or for all. */
function faultRoutes(plain: FastifyInstance, deps: ControlRouteDeps) {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { faults } = deps;
  app.get('/faults', async () => ({ faults: faults.view() }));

  app.post('/faults', { schema: { body: faultBody } }, async request => {
    const { providerCode: code, expireSessions, ...switches } = request.body;
    const scope = code ?? allProviders;
    if (code !== undefined) {
      const provider = providerOrThrow(code);
      if (switches.requireSecondOtp && !(provider.login.kind === 'otp' && provider.login.mayAskSecondOtp))
        throw new SandboxError(
          400,
          'INVALID_FAULT',
          `${code} never asks for a second OTP; requireSecondOtp is for WALLET-C`,
        );
    }
    faults.set(scope, switches);
    const expiredSessions = expireSessions ? deps.sessions.expireAll(scope) : 0;
    return { faults: faults.view(), expiredSessions };
  });

  app.delete('/faults', { schema: { querystring: faultScopeQuery } }, async request => {
    faults.clear(request.query.providerCode);
    return { faults: faults.view() };
  });
}
