import path from 'node:path';
import type pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './api/app.ts';
import { startBackgroundWork } from './background/work.ts';
import { digestSigner } from './audit/digest-signer.ts';
import { LedgerKeyFile } from './audit/ledger-key-file.ts';
import type { LedgerCheckpoints } from './audit/ledger-checkpoints.ts';
import { ledgerIntegrity } from './audit/ledger-integrity.ts';
import { openCore } from './core.ts';
import type { AppDeps } from './api/deps.ts';
import type { MovableClock } from './api/test-clock.ts';
import { ShiftedClock, systemClock, type Clock } from './clock.ts';
import { ConfigError, type Config } from './config.ts';
import { databaseUrl, startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.ts';
import { createPool, query } from './db/pool.ts';
import { prepareServiceRole, serviceRole, warnIfLogRewritable } from './db/service-role.ts';
import './events/all.ts';
import { createLogger, type Logger } from './logger.ts';
import { migrateForStartUp } from './schema.ts';
import { writeDataFiles } from './start-files.ts';
import { uncoveredYears, uncoveredYearsWarning } from './projections/holiday-calendar.ts';
import type { ProjectionRunner } from './projections/runner.ts';
import type { SagaRunner } from './sagas/runner.ts';
import { sessionTokens } from './security/session-token.ts';
import { deviceCookies } from './security/device-cookie.ts';
import type { HttpConnectorOptions } from './providers/http-connector.ts';
import { startSandbox } from './providers/sandbox/server.ts';
import { sandboxPayer } from './providers/sandbox-payer.ts';
import { notificationSettings, sandboxPushOf } from './providers/notification-secrets.ts';
import type { AccountSyncScheduler } from './background/account-sync.ts';
import type { PaymentChecks } from './background/payment-checks.ts';
import type { PaymentExpiryTimer } from './background/payment-expiry.ts';
import type { GatewaySettlement } from './background/gateway-settlement.ts';
import type { OnTheClock } from './background/on-the-clock.ts';
import type { EventStore } from './store/event-store.ts';
import type { WebhookDelivery } from './webhooks/delivery-runner.ts';
import { webhookSettings, type WebhookSettings } from './webhooks/settings.ts';

export type Service = {
  app: FastifyInstance;
  deps: AppDeps;
  pool: pg.Pool;
  store: EventStore;
  projections: ProjectionRunner;
  sagas: SagaRunner;
  accountSync: AccountSyncScheduler;
  webhookDelivery: WebhookDelivery;
  paymentExpiry: PaymentExpiryTimer;
  gatewaySettlement: GatewaySettlement;
  transferOutcomes: OnTheClock;
  /** deletes operational rows past their retention (src/background/retention.ts) */
  retention: OnTheClock;
  paymentChecks: PaymentChecks;
  /** the chain of signed checkpoints of the log (src/audit/ledger-checkpoints.ts) */
  ledger: LedgerCheckpoints;
  sandboxUrl: string | null;
  /** the id of the key the ledger was signed with at start (its public key is logged, and published) */
  ledgerKeyId: string;
  /** Starts listening on the configured port and answers the service's URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
};

export type ServiceOptions = {
  clock?: Clock;
  /** Sessions' time (tests move their own); the system's time otherwise, whatever the test clock says. */
  wallClock?: Clock;
  log?: Logger;
  /** Tests start the sandbox on a free port even with SANDBOX_PORT=0 and a DATABASE_URL. */
  startSandbox?: boolean;
  schedulerTickMs?: number;
  /** Timeouts, retries and circuit breaking of provider calls (tests shorten them). */
  connector?: Omit<HttpConnectorOptions, 'baseUrl'>;
  /** Webhook delivery beyond the configuration: tests shorten the retry schedule and the poll interval. */
  webhooks?: Partial<WebhookSettings>;
  /** Tests: an answer its documented schema refuses fails the request (src/api/documented-responses.ts). */
  strictResponses?: boolean;
};

/**
 * The embedded database lives in DATA_DIR; our own database inside it is created on first start. The service connects
 * to it as a role that cannot rewrite the event log (src/db/service-role.ts); the superuser only prepares it.
 */
export async function openDatabase(
  config: Config,
  log: Logger,
): Promise<{ url: string; embedded: EmbeddedDatabase | null }> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: null };
  const embedded = await startEmbeddedPostgres({
    dataDir: config.dataDir,
    password: config.embeddedPostgresPassword,
    log,
  });
  const admin = createPool(embedded.url, 1);
  try {
    const exists = await query(admin, 'FindServiceDatabase', `select 1 from pg_database where datname = 'service'`);
    if (exists.rowCount === 0) await query(admin, 'CreateServiceDatabase', 'create database service');
  } finally {
    await admin.end();
  }
  // the owner registers the ledger's key: the service's role may not, so it cannot add a key of its own
  const url = await prepareServiceRole(databaseUrl(embedded.url, 'service'), {
    role: serviceRole,
    password: config.serviceRolePassword,
    ...(config.digestSigningKey ? { ledgerKey: digestSigner(config.digestSigningKey) } : {}),
  });
  return { url, embedded };
}

/**
 * The key that signs the daily digests and the ledger's checkpoints; its public half and fingerprint are logged once, for
 * the operator to pin (docs/operating.md). A database given by DATABASE_URL gets no generated key: the operator gives one.
 */
function ledgerSigner(config: Config, log: Logger): LedgerKeyFile {
  if (!config.digestSigningKey)
    throw new ConfigError(
      "LEDGER_SIGNING_KEY_FILE: required with DATABASE_URL: set it to a file holding the ledger's Ed25519 signing key (base64 PKCS#8 DER), kept off the data disk",
    );
  // whoever copies or restores the data folder would hold the key that vouches for it
  if (config.databaseUrl && config.signingKeyInDataDir)
    throw new ConfigError(
      `LEDGER_SIGNING_KEY_FILE: the ledger's signing key ${config.signingKeyFile} is inside DATA_DIR (${config.dataDir}), beside the data it signs: with DATABASE_URL move it off the data disk (a secrets mount such as /run/secrets/ledger-signing-key, readable by the service's user only) and set LEDGER_SIGNING_KEY_FILE to it`,
    );
  const signer = digestSigner(config.digestSigningKey);
  if (config.signingKeyInDataDir)
    log.warn(
      { file: config.signingKeyFile },
      `the ledger's signing key is kept in DATA_DIR (${config.signingKeyFile}), beside the database: whoever copies the data folder can sign as the service; set LEDGER_SIGNING_KEY_FILE to a file elsewhere (docs/operating.md)`,
    );
  log.info(
    { keyId: signer.keyId, publicKey: signer.publicKey, from: config.signingKeySource },
    `ledger signing key ${signer.keyId}: its public key ${signer.publicKey}, and every key after a rotation, at /.well-known/ledger-keys (docs/operating.md, "The ledger's signing key")`,
  );
  return new LedgerKeyFile(signer, config.signingKeyFile, log);
}

/** Starts everything the service is (database, event store, projections, sagas) and builds the HTTP API. */
export async function createService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const log = options.log ?? createLogger(config.logLevel);
  writeDataFiles(config.dataFiles);
  const signer = ledgerSigner(config, log);
  // the test clock (TEST_CLOCK=true) is the system's time moved forward, kept in DATA_DIR; tests bring their own
  const clock =
    options.clock ?? (config.testClock ? new ShiftedClock(path.join(config.dataDir, 'test-clock.json')) : systemClock);
  const { url: dbUrl, embedded } = await openDatabase(config, log);
  const providers = await startProviders(config, options, clock, log);
  // all DDL first, under one lock: instances started together on an empty database take turns (src/schema.ts)
  await migrateForStartUp(dbUrl, config, log);
  const core = await openCore(config, dbUrl, providers.url, { clock, log, connector: options.connector });
  const { pool, store } = core;
  if (config.databaseUrl) await warnIfLogRewritable(pool, log);
  const webhooks = webhookSettings(config, options.webhooks);
  const background = await startBackgroundWork(core, {
    publicBaseUrl: config.publicBaseUrl,
    webhooks,
    schedulerTickMs: options.schedulerTickMs,
    paymentChecks: { ...config.paymentChecks, pushingProviders: providers.pushing },
    retention: config.retention,
    wallClock: options.wallClock ?? systemClock,
    digestSigner: signer,
    ledgerCheckpointDir: config.ledgerCheckpointDir,
  });
  const deps = appDeps(config, options, { core, background, signer, webhooks, providers });
  const app = await buildApp(deps);
  providers.deliverTo(app);

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      await app.close(); // in-flight requests finish first
      await background.stop();
      await store.close();
      core.database.stop();
      await pool.end();
      await providers.sandbox?.close();
      await embedded?.stop();
    })());
  const { health: _health, stop: _stop, ...runners } = background;
  return {
    app,
    deps,
    pool,
    store,
    ...runners,
    sandboxUrl: providers.url,
    ledgerKeyId: signer.keyId,
    listen: () => listenOn(app, config),
    close,
  };
}

/**
 * The providers' side: the embedded sandbox when this service starts one, whose notifications reach this service's app
 * in process unless SANDBOX_PUSH_URL names one, and the providers that call this service when money lands.
 */
async function startProviders(config: Config, options: ServiceOptions, clock: Clock, log: Logger) {
  const startsSandbox = config.sandbox.start || (options.startSandbox && !config.sandboxUrl);
  const notifications = notificationSettings(config, Boolean(startsSandbox || config.sandboxUrl));
  let deliverInProcess: (path: string, headers: Record<string, string>, body: string) => Promise<number> = async () =>
    503;
  const sandboxPush = sandboxPushOf(config, notifications, (...args) => deliverInProcess(...args));
  // the providers that call this service when money lands: the payment checks lean on their notifications
  const pushing = [
    ...Object.keys(config.providerNotifications.secrets),
    ...(startsSandbox ? sandboxPush.providers : []),
  ];
  const sandbox = startsSandbox
    ? await startSandbox({
        push: sandboxPush,
        clock,
        log,
        port: config.sandboxPort,
        host: config.sandbox.host,
        stateFile: path.join(config.dataDir, 'sandbox-state.json'),
      })
    : null;
  const deliverTo = (app: FastifyInstance) => {
    deliverInProcess = async (url, headers, body) =>
      (
        await app.inject({
          method: 'POST',
          url,
          headers: { ...headers, 'content-type': 'application/json' },
          payload: body,
        })
      ).statusCode;
  };
  return { sandbox, url: config.sandboxUrl ?? sandbox?.url ?? null, notifications, pushing, deliverTo };
}

type Started = {
  core: Awaited<ReturnType<typeof openCore>>;
  background: Awaited<ReturnType<typeof startBackgroundWork>>;
  signer: LedgerKeyFile;
  webhooks: WebhookSettings;
  providers: Awaited<ReturnType<typeof startProviders>>;
};

/** What the routes are given: the core, the read models, the security helpers and the configuration they read. */
function appDeps(config: Config, options: ServiceOptions, { core, background, signer, webhooks, providers }: Started) {
  const deps: AppDeps = {
    ...core,
    strictResponses: options.strictResponses ?? false,
    readModels: background.projections,
    paymentChecks: background.paymentChecks,
    tokens: sessionTokens(config.jwtSecret),
    deviceCookies: deviceCookies(config.jwtSecret),
    wallClock: options.wallClock ?? systemClock,
    // the key as it stands: a rotation changes it while the service runs
    digestKey: signer,
    testClock: config.testClock ? (core.clock as MovableClock) : null,
    sandbox: providers.url ? sandboxPayer(providers.url) : null,
    config: {
      publicBaseUrl: config.publicBaseUrl,
      sessionTtlHours: config.sessionTtlHours,
      sessionIdleHours: config.sessionIdleHours,
      trustProxy: config.trustProxy,
      metricsToken: config.metricsToken,
      otp: config.otp,
      authLimits: config.authLimits,
      webhooks,
      paymentChecks: config.paymentChecks,
      providerNotifications: providers.notifications,
      paymentStreams: config.paymentStreams,
      gateway: config.gateway,
      qr: config.qr,
      http: config.http,
    },
    readiness: readinessOf(core, background),
  };
  return deps;
}

/** The readiness check: the database, the event store, the subscribers, the ledger's integrity and the calendar. */
function readinessOf(core: Started['core'], background: Started['background']): AppDeps['readiness'] {
  const { pool, store, clock } = core;
  const integrity = ledgerIntegrity(pool);
  return async () => {
    const { subscribers, ...running } = await background.health();
    const checks = {
      database: await query(pool, 'ReadinessPing', 'select 1').then(
        () => true,
        () => false,
      ),
      eventStore: await store.headPosition().then(
        () => true,
        () => false,
      ),
      ...running,
      // the ledger's history as its own checks found it: a finding no operator's reset accepted is not ready
      ledgerIntegrity: await integrity.sound().catch(() => false),
    };
    // a year due without its decree settles on what is known (weekends, every-year holidays): a warning, still ready
    const missingYears = await uncoveredYears(pool, clock.now()).catch(() => null);
    const warning = missingYears ? uncoveredYearsWarning(missingYears) : null;
    return {
      checks,
      subscribers,
      details: {
        holidayCalendar: { missingYears, ...(warning ? { warning } : {}) },
        ledgerIntegrity: await integrity.details().catch(() => ({ findings: [], lastVerification: null })),
      },
    };
  };
}

/** Starts listening on the configured port and answers the service's URL. */
async function listenOn(app: FastifyInstance, config: Config): Promise<string> {
  await app.listen({ port: config.port, host: config.host, listenTextResolver: at => `service listening on ${at}` });
  const address = app.server.address();
  return `http://localhost:${typeof address === 'object' && address ? address.port : config.port}`;
}
