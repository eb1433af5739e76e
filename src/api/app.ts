import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { accountRoutes } from './accounts.ts';
import { otpSendLimits } from './otp-flows.ts';
import { apiKeyRoutes } from './api-keys.ts';
import { paymentPageRoutes } from './payment-page.ts';
import { paymentRoutes } from './payments.ts';
import { mutationRoutes } from './mutations.ts';
import { providerRoutes } from './providers.ts';
import { authRoutes } from './auth.ts';
import { signInLimits } from './sign-in.ts';
import { errorCodes } from '../errors.ts';
import { accessLogger, lazyLogger } from '../logger.ts';
import type { HttpSettings } from '../config.ts';
import type { AppDeps } from './deps.ts';
import { serializeDocumentedResponses } from './documented-responses.ts';
import { answerFrameworkError, registerErrorHandling } from './errors.ts';
import { attemptCountStore } from '../db/attempt-counts.ts';
import { healthRoutes } from './health.ts';
import { ledgerKeyRoutes } from './ledger-keys.ts';
import { keySurface } from './key-auth.ts';
import { apiKeyCache } from './key-cache.ts';
import { adminSurface, dashboardSurface } from './session-auth.ts';
import { refusePlantedSessionCookies } from './session-cookie.ts';
import { webhookRoutes } from './webhooks.ts';
import { testClockRoutes } from './test-clock.ts';
import { sandboxPaymentRoutes } from './sandbox-payments.ts';
import { transferRoutes } from './transfers.ts';
import { qrUploads } from './qr-uploads.ts';
import { dashboardGatewayRoutes, gatewayRoutes } from './gateway.ts';
import { gatewayStatementRoutes } from './gateway-statement.ts';
import { gatewaySettlementRoutes } from './gateway-settlements.ts';
import { adminGatewayRoutes } from './gateway-admin.ts';
import { adminWithdrawalRoutes, dashboardWithdrawalRoutes, keyWithdrawalRoutes } from './gateway-withdrawals.ts';
import { adminPayoutAccountRoutes } from './payout-account.ts';
import { adminSuspenseRoutes } from './gateway-suspense.ts';
import { holdingTransferRoutes } from './holding-transfers.ts';
import { ledgerAdjustmentRoutes } from './ledger-adjustments.ts';
import { gatewayCalendarRoutes } from './gateway-calendar.ts';
import { gatewayReconciliationRoutes } from './gateway-reconciliation.ts';
import { financeReportRoutes } from './finance-reports.ts';
import { gatewayPeriodRoutes } from './gateway-periods.ts';
import { adminAuditRoutes } from './admin-audit.ts';
import { auditLedgerRoutes } from './audit-ledger.ts';
import { auditorSurface } from './auditor-auth.ts';
import { registerMetrics } from './metrics.ts';
import { registerResponseHeaders } from './response-headers.ts';
import { registerOpenApi } from './openapi.ts';
import { accountPages } from './pages/account-pages.ts';
import { adminPages } from './pages/admin-pages.ts';
import { adminRecordPages } from './pages/admin-record-pages.ts';
import { dashboardPages } from './pages/dashboard-pages.ts';
import { gatewayPages } from './pages/gateway-pages.ts';
import { mutationPages } from './pages/mutation-pages.ts';
import { pageSurface } from './pages/page-surface.ts';
import { passwordPages } from './pages/password-pages.ts';
import { paymentPages } from './pages/payment-pages.ts';
import { signInPages } from './pages/sign-in-pages.ts';
import { transferPages } from './pages/transfer-pages.ts';
import { providerNotificationRoutes } from './provider-notifications.ts';

const hopsTrusted = (hops: number) => (_address: string, hop: number) => hop < hops;

/**
 * A client that sends its request slowly (a byte every few seconds) holds a connection: the whole request, its headers
 * and a silent connection each have a limit, checked every second (Node checks every 30 s by default).
 */
const clientTimeouts = (http: HttpSettings) => ({
  requestTimeout: http.requestTimeoutSeconds * 1000,
  connectionTimeout: http.idleTimeoutSeconds * 1000,
  keepAliveTimeout: http.keepAliveTimeoutSeconds * 1000,
  http: {
    headersTimeout: Math.min(http.headersTimeoutSeconds, http.requestTimeoutSeconds) * 1000,
    connectionsCheckingInterval: 1000,
  },
});

/** The fastify instance: its logger, proxies trusted, client timeouts, one access-log line per answer. */
function serverOf(deps: AppDeps): FastifyInstance {
  const app: FastifyInstance = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    bodyLimit: 1024 * 1024,
    // a hop count as the function proxy-addr makes of it (fastify's types take no number): the n nearest hops
    trustProxy:
      typeof deps.config.trustProxy === 'number' ? hopsTrusted(deps.config.trustProxy) : deps.config.trustProxy,
    return503OnClosing: true,
    frameworkErrors: answerFrameworkError,
    // one access-log line per request, when it is answered (below), instead of fastify's two
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: (logger, bindings, options) => lazyLogger(() => logger.child(bindings, options)),
    ...clientTimeouts(deps.config.http),
  });
  app.server.maxConnections = deps.config.http.maxConnections;
  const access = accessLogger(app.log);
  app.addHook('onResponse', async (request, reply) => {
    // the request's id where request.log binds it, first after the logger's own fields
    access.info({ reqId: request.id, req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  });
  // While closing, answers end their keep-alive connection, so close() does not wait for idle clients.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  return app;
}

/** What every route shares: validation, errors, the OpenAPI document, metrics, headers, cookies, rate limits. */
async function registerCommon(app: FastifyInstance, deps: AppDeps) {
  app.setValidatorCompiler(validatorCompiler);
  serializeDocumentedResponses(app, deps.log as FastifyBaseLogger, deps.strictResponses ?? false);
  registerErrorHandling(app, deps.database);
  // before any route: the OpenAPI document is made from the routes as they are registered
  await registerOpenApi(app);
  registerMetrics(app, deps.metrics, deps.config.metricsToken);
  registerResponseHeaders(app, deps.config.publicBaseUrl);
  await app.register(cookie);
  refusePlantedSessionCookies(app, deps.config.publicBaseUrl);
  await app.register(rateLimit, {
    global: false,
    store: attemptCountStore(deps.pool), // counted in PostgreSQL: every instance on the database enforces the same limits
    hook: 'preHandler', // after the body is parsed: limits can be keyed on what the request is about
    errorResponseBuilder: (request, context) => {
      const message =
        request.routeOptions.config?.surface === 'session'
          ? errorCodes.TOO_MANY_ATTEMPTS.message
          : `Too many requests, retry in ${Math.ceil(context.ttl / 1000)} s`;
      return Object.assign(new Error(message), { statusCode: 429 });
    },
  });
}

/** The limits and caches the surfaces share: API keys, sign-in attempts, OTP sends, QR uploads. */
type Shared = {
  keys: ReturnType<typeof apiKeyCache>;
  signingIn: ReturnType<typeof signInLimits>;
  otpSends: ReturnType<typeof otpSendLimits>;
  qrImages: ReturnType<typeof qrUploads>;
};

/** The JSON surfaces: sessions, API keys, the dashboard's and the admin's JSON, auditors, payers and providers. */
async function registerApi(app: FastifyInstance, deps: AppDeps, { keys, signingIn, otpSends, qrImages }: Shared) {
  await app.register(authRoutes(deps, signingIn), { prefix: '/api/auth' });
  // each surface is one plugin whose hook guards all its routes: a route added inside is guarded, wherever it is
  await app.register(
    keySurface(deps, keys, async v1 => {
      await v1.register(providerRoutes, { prefix: '/providers' });
      await v1.register(accountRoutes(deps, otpSends), { prefix: '/accounts' });
      await v1.register(transferRoutes(deps, qrImages), { prefix: '/accounts' });
      await v1.register(mutationRoutes(deps), { prefix: '/mutations' });
      await v1.register(webhookRoutes(deps, 'key'), { prefix: '/webhooks' });
      await v1.register(paymentRoutes(deps), { prefix: '/payments' });
      await v1.register(gatewayRoutes(deps), { prefix: '/gateway' });
      await v1.register(gatewayStatementRoutes(deps), { prefix: '/gateway/transactions' });
      await v1.register(gatewaySettlementRoutes(deps), { prefix: '/gateway/settlements' });
      await v1.register(keyWithdrawalRoutes(deps), { prefix: '/gateway/withdrawals' });
    }),
    { prefix: '/api/v1' },
  );
  await app.register(
    dashboardSurface(deps, async dashboard => {
      await dashboard.register(apiKeyRoutes(deps, keys), { prefix: '/api-keys' });
      await dashboard.register(webhookRoutes(deps, 'dashboard'), { prefix: '/webhooks' });
      await dashboard.register(dashboardGatewayRoutes(deps), { prefix: '/gateway' });
      await dashboard.register(dashboardWithdrawalRoutes(deps), { prefix: '/gateway/withdrawals' });
    }),
    { prefix: '/api/dashboard' },
  );
  await app.register(
    adminSurface(deps, async admin => {
      // every admin route answers 401 without a session and 403 to anyone but an ADMIN
      await admin.register(adminGatewayRoutes(deps), { prefix: '/gateway' });
      await admin.register(adminWithdrawalRoutes(deps), { prefix: '/gateway/withdrawals' });
      await admin.register(adminPayoutAccountRoutes(deps), { prefix: '/gateway/payout-account' });
      await admin.register(adminSuspenseRoutes(deps), { prefix: '/gateway/suspense' });
      await admin.register(holdingTransferRoutes(deps), { prefix: '/gateway/holding-transfers' });
      await admin.register(ledgerAdjustmentRoutes(deps), { prefix: '/gateway/ledger-adjustments' });
      await admin.register(gatewayCalendarRoutes(deps), { prefix: '/gateway/calendar' });
      await admin.register(gatewayReconciliationRoutes(deps), { prefix: '/gateway/reconciliation' });
      await admin.register(gatewayPeriodRoutes(deps), { prefix: '/gateway/periods' });
      await admin.register(financeReportRoutes(deps), { prefix: '/gateway' });
      await admin.register(adminAuditRoutes(deps));
    }),
    { prefix: '/api/admin' },
  );
  // witnesses (docs/auditing.md): an auditor's token opens these and nothing else
  await app.register(auditorSurface(deps, auditLedgerRoutes(deps)), { prefix: '/api/audit' });
  await app.register(paymentPageRoutes(deps));
  await app.register(sandboxPaymentRoutes(deps));
  // providers' notifications: the provider's signature is the credential, no API key (src/api/provider-notifications.ts)
  await app.register(providerNotificationRoutes(deps), { prefix: '/api/providers' });
}

/** The pages for people: sign-in, the dashboard and the admin console. */
async function registerPages(app: FastifyInstance, deps: AppDeps, { keys, signingIn, otpSends, qrImages }: Shared) {
  // the dashboard's pages: sign-in forms at the root, the rest behind the session under /dashboard
  await app.register(signInPages(deps, signingIn));
  await app.register(
    pageSurface(deps, { admin: false }, async pages => {
      await pages.register(dashboardPages(deps, keys));
      await pages.register(passwordPages(deps));
      await pages.register(accountPages(deps, otpSends));
      await pages.register(transferPages(deps, qrImages));
      await pages.register(mutationPages(deps));
      await pages.register(paymentPages(deps));
      await pages.register(gatewayPages(deps));
    }),
    { prefix: '/dashboard' },
  );
  await app.register(
    pageSurface(deps, { admin: true }, async admin => {
      await admin.register(adminPages(deps));
      await admin.register(adminRecordPages(deps));
    }),
    { prefix: '/admin' },
  );
}

/** Builds the HTTP app without listening, so tests use `inject` against real dependencies. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = serverOf(deps);
  await registerCommon(app, deps);
  const keys = apiKeyCache(deps.clock);
  await app.register(healthRoutes(deps));
  await app.register(ledgerKeyRoutes(deps));
  const shared = {
    keys,
    signingIn: signInLimits(app, deps),
    otpSends: otpSendLimits(app, deps.config.otp),
    qrImages: qrUploads(app, deps.config.qr),
  };
  await registerApi(app, deps, shared);
  await registerPages(app, deps, shared);
  if (deps.testClock) await app.register(testClockRoutes(deps, deps.testClock), { prefix: '/api/test-clock' });
  return app;
}
