import { createPrivateKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import type { CadenceSettings } from './domain/check-cadence.ts';

const booleanFromEnv = z.enum(['true', 'false', '1', '0']).transform(v => v === 'true' || v === '1');

export const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./.data'),
  DATABASE_URL: z.url().optional(),
  // connections of the pool of each instance; its subscribers' locks and LISTEN take one more each (docs/configuration.md)
  DATABASE_POOL_MAX: z.coerce.number().int().min(8).max(1000).default(30),
  EVENT_STORE: z.enum(['postgres', 'eventstoredb']).default('postgres'),
  EVENTSTORE_CONNECTION_STRING: z.string().min(1).optional(),
  PUBLIC_BASE_URL: z.url().optional(),
  SANDBOX_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SANDBOX_URL: z.url().optional(),
  // the embedded sandbox provider: on by default only without DATABASE_URL, never with NODE_ENV=production
  SANDBOX: booleanFromEnv.optional(),
  SANDBOX_HOST: z.string().min(1).default('127.0.0.1'),
  NODE_ENV: z.string().optional(),
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must hold at least 32 characters').optional(),
  ENCRYPTION_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'ENCRYPTION_KEY must be 64 hex characters (32 bytes)')
    .optional(),
  DIGEST_SIGNING_KEY: z
    .string()
    .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'DIGEST_SIGNING_KEY must be an Ed25519 private key, base64 PKCS#8 DER')
    .optional(),
  // the ledger's signing key kept apart from the data, its checkpoints' file, and the key an auditor trusts
  LEDGER_SIGNING_KEY_FILE: z.string().min(1).optional(),
  LEDGER_CHECKPOINT_DIR: z.string().min(1).optional(),
  LEDGER_PUBLIC_KEY: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SESSION_TTL_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 90)
    .default(24 * 7),
  SESSION_IDLE_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 90)
    .default(12),
  TRUST_PROXY: z.string().trim().min(1).default('false'),
  METRICS_TOKEN: z.string().min(16, 'METRICS_TOKEN must hold at least 16 characters').optional(),
  WEBHOOK_ALLOW_PRIVATE: booleanFromEnv.default(false),
  // how long a client may take over a request, its headers and an idle connection, and how many connections are open
  HTTP_REQUEST_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  HTTP_HEADERS_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(10),
  HTTP_IDLE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(72),
  HTTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(2048),
  OTP_SESSION_TTL_MINUTES: z.coerce.number().int().min(1).max(60).default(5),
  OTP_SEND_LIMIT_PER_PHONE: z.coerce.number().int().min(1).max(1000).default(5),
  OTP_SEND_LIMIT_PER_KEY: z.coerce.number().int().min(1).max(100_000).default(100),
  OTP_SEND_LIMIT_WINDOW_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .default(15),
  LOGIN_LIMIT_PER_IP_EMAIL: z.coerce.number().int().min(1).max(1_000_000).default(10),
  LOGIN_LIMIT_PER_IP_EMAIL_WINDOW_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .default(1),
  LOGIN_LIMIT_PER_IP: z.coerce.number().int().min(1).max(1_000_000).default(30),
  LOGIN_LIMIT_PER_IP_WINDOW_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .default(15),
  // wrong passwords for one account, from anywhere: free attempts, then a delay doubling from 1 s up to the cap
  LOGIN_SLOWDOWN_AFTER: z.coerce.number().int().min(1).max(1000).default(5),
  LOGIN_SLOWDOWN_MAX_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  LOGIN_SLOWDOWN_WINDOW_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .default(15),
  REGISTER_LIMIT_PER_IP: z.coerce.number().int().min(1).max(1_000_000).default(10),
  REGISTER_LIMIT_PER_IP_WINDOW_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .default(60),
  WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(60).default(10),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(8),
  PAYMENT_CHECK_FAST_SECONDS: z.coerce.number().int().min(1).max(3600).default(15),
  PAYMENT_CHECK_FAST_FOR_MINUTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(24 * 60)
    .default(10),
  PAYMENT_CHECK_SLOW_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  PAYMENT_CHECK_ASK_EVERY_SECONDS: z.coerce.number().int().min(1).max(3600).default(10),
  // the payment page's event streams (src/api/payment-stream.ts)
  PAYMENT_STREAMS_PER_PAYMENT: z.coerce.number().int().min(0).max(1000).default(5),
  PAYMENT_STREAMS_PER_INSTANCE: z.coerce.number().int().min(0).max(100_000).default(1000),
  PAYMENT_STREAM_HEARTBEAT_SECONDS: z.coerce.number().int().min(1).max(50).default(15),
  // the cadence that follows the payer (src/domain/check-cadence.ts); 'fixed' is the every-15-s-then-60-s rule
  PAYMENT_CHECK_CADENCE: z.enum(['payer', 'fixed']).default('payer'),
  // the provider's own limit per account: never two checks of one account closer than this
  PAYMENT_CHECK_FLOOR_SECONDS: z.coerce.number().int().min(1).max(3600).default(2),
  // a page in sight on a computer (its payer may pay from a phone), and on a phone (its payer reading it)
  PAYMENT_CHECK_PAGE_SECONDS: z.coerce.number().int().min(1).max(3600).default(6),
  PAYMENT_CHECK_READING_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  // after a page went out of sight just after its QR was downloaded: every PAYING_SECONDS for PAYING_FOR_SECONDS
  PAYMENT_CHECK_PAYING_SECONDS: z.coerce.number().int().min(1).max(3600).default(4),
  PAYMENT_CHECK_PAYING_FOR_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  PAYMENT_CHECK_WINDOW_SECONDS: z.coerce.number().int().min(1).max(3600).default(15),
  PAYMENT_CHECK_WINDOW_DEFAULT_SECONDS: z.coerce.number().int().min(1).max(3600).default(120),
  PAYMENT_CHECK_BACKOFF_PERCENT: z.coerce.number().int().min(1).max(100).default(25),
  // providers' notifications that money landed (docs/sandbox.md): CODE=whsec_... per provider, comma-separated
  PROVIDER_NOTIFICATION_SECRETS: z.string().default(''),
  PROVIDER_NOTIFICATION_TOLERANCE_SECONDS: z.coerce.number().int().min(10).max(3600).default(300),
  // which providers the embedded sandbox pushes notifications for (codes, or none), and the service's URL it calls
  SANDBOX_PUSH: z.string().trim().optional(),
  SANDBOX_PUSH_URL: z.url().optional(),
  // the gateway's numbers (the interface document's Limits table sets the fees and the minimum withdrawal)
  GATEWAY_VA_FEE: z.coerce.number().int().min(0).max(1_000_000).default(3000),
  GATEWAY_QRIS_FEE_RATE_BP: z.coerce.number().int().min(0).max(10_000).default(70),
  GATEWAY_QRIS_FEE_FLAT: z.coerce.number().int().min(0).max(1_000_000).default(200),
  GATEWAY_QRIS_MIN_AMOUNT: z.coerce.number().int().min(1).default(1000),
  GATEWAY_QRIS_MAX_AMOUNT: z.coerce.number().int().min(1).default(10_000_000),
  GATEWAY_VA_MIN_AMOUNT: z.coerce.number().int().min(1).default(10_000),
  GATEWAY_VA_MAX_AMOUNT: z.coerce.number().int().min(1).default(50_000_000),
  GATEWAY_MIN_WITHDRAWAL: z.coerce.number().int().min(1).default(50_000),
  // QR images of transfers: decoded in worker threads, bounded, with a deadline; uploads limited
  QR_DECODE_THREADS: z.coerce.number().int().min(1).max(16).optional(),
  QR_DECODE_QUEUE: z.coerce.number().int().min(0).max(1000).default(8),
  QR_DECODE_QUEUE_PER_TENANT: z.coerce.number().int().min(0).max(100).default(2),
  QR_DECODE_DEADLINE_MS: z.coerce.number().int().min(10).max(60_000).default(2000),
  QR_UPLOAD_LIMIT_PER_KEY: z.coerce.number().int().min(1).max(1_000_000).default(10),
  QR_UPLOAD_LIMIT_PER_USER: z.coerce.number().int().min(1).max(1_000_000).default(20),
  QR_UPLOAD_LIMIT_WINDOW_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .default(1),
  // operational rows past their retention are deleted in small batches by one instance (docs/operating.md)
  RETENTION_WEBHOOK_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  RETENTION_FAILED_JOBS_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  // 0: the first pass after a session ended or expired deletes its row (no reader looks at it once it is over)
  RETENTION_ENDED_SESSIONS_DAYS: z.coerce.number().int().min(0).max(3650).default(0),
  RETENTION_BATCH_ROWS: z.coerce.number().int().min(1).max(100_000).default(1000),
  RETENTION_PAUSE_MS: z.coerce.number().int().min(0).max(60_000).default(100),
  // a clock people and tests move over HTTP: never on unless asked for
  TEST_CLOCK: booleanFromEnv.default(false),
  TEST_CLOCK_FORCE: booleanFromEnv.default(false),
});

/**
 * The gateway's money numbers, integer rupiah. QRIS fee = round-half-up(amount x rateBp / 10,000) +
 * flat; a virtual account pays vaFee flat. Minimums are checked on the requested amount, maximums on the billed one.
 */
export type GatewaySettings = {
  vaFee: number;
  qrisFee: { rateBp: number; flat: number };
  limits: { qris: { min: number; max: number }; va: { min: number; max: number } };
  minWithdrawal: number;
};

/**
 * The payment page's event streams: at most perPayment open at once for one payment and perInstance in all on one
 * instance (beyond: the page polls; 0 offers no stream), each sent a comment every heartbeatSeconds so that a proxy
 * and the server's idle timeout keep it open.
 */
export type PaymentStreamSettings = { perPayment: number; perInstance: number; heartbeatSeconds: number };

/** How often a receiving account with pending payments is checked. */
export type PaymentCheckSettings = {
  /** every fastSeconds while its newest pending payment is younger than fastForMinutes */
  fastSeconds: number;
  fastForMinutes: number;
  /** then every slowSeconds until its last pending payment ends */
  slowSeconds: number;
  /** the payer's "Saya sudah bayar" asks for a check at most this often per payment */
  askEverySeconds: number;
  /** the providers that call the service when money lands (set at start: configured secrets, the sandbox's push) */
  pushingProviders?: readonly string[];
} & Omit<CadenceSettings, 'fastSeconds' | 'fastForMinutes' | 'slowSeconds'>;

/**
 * Providers' notifications that money landed: the secret each provider signs with (a provider without one is not
 * heard), and how far a notification's timestamp may stray from the service's clock.
 */
export type ProviderNotificationSettings = {
  secrets: Readonly<Record<string, string>>;
  toleranceSeconds: number;
};

/**
 * What the embedded sandbox pushes: the providers it notifies for (null: every one that offers notifications) and the
 * service's base URL it calls (undefined: the service that started it, in process).
 */
export type SandboxPushSettings = { providers: readonly string[] | null; url: string | undefined };

/** How long operational rows are kept, and how the pass deleting them goes easy on the database (docs/operating.md). */
export type RetentionSettings = {
  /** finished webhook deliveries with their attempts, and events with no delivery left: days after the last change */
  webhookDays: number;
  /** queue jobs that failed for good: days after their last try */
  failedJobDays: number;
  /** rows of the sessions read model: days after the session ended or expired, on the sessions' wall clock */
  endedSessionDays: number;
  /** rows deleted by one statement, and the pause between two statements */
  batchRows: number;
  pauseMs: number;
};

export type Config = {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** The most connections the pool of the service opens (DATABASE_POOL_MAX); the subscribers' locks and LISTEN take one more each. */
  databasePoolMax: number;
  eventStore: 'postgres' | 'eventstoredb';
  eventStoreConnectionString: string | undefined;
  publicBaseUrl: string;
  sandboxPort: number;
  sandboxUrl: string | undefined;
  jwtSecret: string;
  encryptionKey: string;
  /**
   * Ed25519 private key (base64 PKCS#8 DER) signing the daily digests and the ledger's checkpoints;
   * null with DATABASE_URL and none given: the service then refuses to start (the CLI's checks need none)
   */
  digestSigningKey: string | null;
  /** where the signing key came from, for the start's log line */
  signingKeySource: string | null;
  /** the file the signing key is read from, which a rotation replaces; null when DIGEST_SIGNING_KEY gives it */
  signingKeyFile: string | null;
  /** the key file lies in DATA_DIR, beside the database (refused with DATABASE_URL, src/service.ts) */
  signingKeyInDataDir: boolean;
  /** the folder of checkpoints.jsonl, every signed checkpoint outside the database (LEDGER_CHECKPOINT_DIR) */
  ledgerCheckpointDir: string;
  /** the public key `verify-log` trusts when none is given on its command line (LEDGER_PUBLIC_KEY) */
  ledgerPublicKey: string | undefined;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  sessionTtlHours: number;
  /** a session unused this long is ended (SESSION_IDLE_HOURS) */
  sessionIdleHours: number;
  /** which proxies' X-Forwarded-* headers are believed (fastify's trustProxy): none, all, a hop count, or addresses/CIDRs */
  trustProxy: TrustProxy;
  /** the bearer token /metrics and /ready's details answer to; unset: loopback only */
  metricsToken: string | undefined;
  /** WEBHOOK_ALLOW_PRIVATE: off unless asked for, in every mode; the start's log names it when on */
  webhookAllowPrivate: boolean;
  http: HttpSettings;
  /** whether this process starts the sandbox provider, on which address (SANDBOX, SANDBOX_HOST), what it pushes */
  sandbox: { start: boolean; host: string; push: SandboxPushSettings };
  providerNotifications: ProviderNotificationSettings;
  embeddedPostgresPassword: string;
  /** the password of the embedded database's restricted role that the service connects as */
  serviceRolePassword: string;
  otp: OtpSettings;
  authLimits: AuthLimits;
  paymentChecks: PaymentCheckSettings;
  paymentStreams: PaymentStreamSettings;
  retention: RetentionSettings;
  gateway: GatewaySettings;
  qr: QrSettings;
  /** POST /api/test-clock moves the service's clock forward (TEST_CLOCK=true) */
  testClock: boolean;
  webhookTimeoutSeconds: number;
  webhookConcurrency: number;
  /** what the start writes into DATA_DIR (src/start-files.ts): loading reads files and writes none */
  dataFiles: DataFiles;
};

/**
 * What a client may take of the server: a whole request (body included), its headers, an idle keep-alive or silent
 * connection, and how many connections one instance holds open (beyond: new ones are closed at once).
 */
export type HttpSettings = {
  requestTimeoutSeconds: number;
  headersTimeoutSeconds: number;
  idleTimeoutSeconds: number;
  keepAliveTimeoutSeconds: number;
  maxConnections: number;
};

/** E-wallet OTP logins: how long an OTP session lives, and how many codes may be sent per phone and per key in a window. */
export type OtpSettings = {
  sessionTtlMinutes: number;
  sendsPerPhone: number;
  sendsPerKey: number;
  windowMinutes: number;
};

/** At most `max` attempts in a fixed window of `windowMinutes`, then 429 until the window ends. */
export type AttemptLimit = { max: number; windowMinutes: number };

/**
 * Dashboard sign-in limits, per client address: guesses at one account (IP and email), password spraying across
 * accounts (IP alone), and sign-ups (IP).
 */
export type AuthLimits = {
  loginPerIpEmail: AttemptLimit;
  loginPerIp: AttemptLimit;
  registerPerIp: AttemptLimit;
  accountSlowDown: AccountSlowDown;
};

/**
 * Wrong passwords for one account from anywhere (a browser that signed in to it before counts apart): `after` attempts
 * go through, then each waits 1 s after the last, 2 s, 4 s... up to `maxSeconds`; a streak is forgotten on a success
 * or `windowMinutes` after its last attempt.
 */
export type AccountSlowDown = { after: number; maxSeconds: number; windowMinutes: number };

/**
 * QR images of transfers: decoded by `threads` worker threads, one image of a user at a time, with at most
 * `queuePerTenant` more of that user's and `queue` of all users' waiting (beyond: 429); each given `deadlineMs` once a
 * thread takes it (past it: QR_NOT_FOUND); uploads per API key and per user (the dashboard's form counts for its
 * user), counted once the decoder takes the image, 429 beyond.
 */
export type QrSettings = { decoding: QrDecodeSettings; perKey: AttemptLimit; perUser: AttemptLimit };
export type QrDecodeSettings = { threads: number; queue: number; queuePerTenant: number; deadlineMs: number };

/** Half the cores, one or two: decoding is CPU-bound, and the event loop keeps a core of its own for every other call. */
const defaultQrDecodeThreads = () => Math.max(1, Math.min(2, Math.floor(availableParallelism() / 2)));

export class ConfigError extends Error {}

/** fastify's trustProxy: false (the default), true (every hop), a hop count, or the proxies' addresses and CIDRs. */
export type TrustProxy = boolean | number | string[];

function isCidr(entry: string): boolean {
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}

/** TRUST_PROXY as fastify takes it: `false`, `true`, a hop count (`1`), or a comma-separated list of addresses/CIDRs. */
export function parseTrustProxy(value: string): TrustProxy {
  if (value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value
    .split(',')
    .map(v => v.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const valid = entry.includes('/') ? isCidr(entry) : ipaddr.isValid(entry);
    if (!valid)
      throw new ConfigError(
        `Invalid configuration:\n  TRUST_PROXY: "${entry}" is neither true, false, a hop count nor an IP address or CIDR`,
      );
  }
  return entries;
}

/** Secrets that are not given in the environment are generated once and kept in the data folder. */
type StoredSecrets = {
  jwtSecret: string;
  encryptionKey: string;
  embeddedPostgresPassword: string;
  serviceRolePassword: string;
};
/** An older data folder's secrets.json also holds the digest signing key, moved out on start (src/start-files.ts). */
export type OldSecrets = StoredSecrets & { digestSigningKey?: string };

/**
 * What the start writes into the data folder before anything else (src/start-files.ts), as loading found it: secrets
 * generated now, a signing key generated or moved out of an older secrets.json. Loading itself writes nothing.
 */
export type DataFiles = {
  dataDir: string;
  /** secrets.json as it is to be, or null when it is so already */
  secrets: OldSecrets | null;
  /** the ledger's signing key to write into its own file (written aside and renamed over), or null */
  signingKey: { file: string; key: string } | null;
};

function readStoredSecrets(dataDir: string): Partial<OldSecrets> | null {
  const file = path.join(dataDir, 'secrets.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<OldSecrets>) : null;
}

function freshSecrets(): StoredSecrets {
  return {
    jwtSecret: randomBytes(48).toString('base64url'),
    encryptionKey: randomBytes(32).toString('hex'),
    embeddedPostgresPassword: randomBytes(24).toString('base64url'),
    serviceRolePassword: randomBytes(24).toString('base64url'),
  };
}

const ed25519Pkcs8 = (text: string) => {
  try {
    return (
      createPrivateKey({ key: Buffer.from(text, 'base64'), format: 'der', type: 'pkcs8' }).asymmetricKeyType ===
      'ed25519'
    );
  } catch {
    return false;
  }
};

const newSigningKey = () =>
  generateKeyPairSync('ed25519').privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');

type SigningKey = {
  key: string;
  source: string;
  file: string | null;
  /** the key is not in its file yet: the start writes it there */
  unwritten: boolean;
  /** an older secrets.json holds it too: the start takes it out, once the key is in its own file */
  moved: boolean;
};

/**
 * The key that signs the ledger: LEDGER_SIGNING_KEY_FILE (which the operator can keep off the data disk), or
 * DIGEST_SIGNING_KEY; else DATA_DIR/ledger-signing-key, to be moved there from an older secrets.json, or generated for
 * it in embedded mode only. With DATABASE_URL and none of these: null (the service refuses to start; the CLI needs none).
 */
function loadSigningKey(
  e: z.infer<typeof envSchema>,
  dataDir: string,
  old: Partial<OldSecrets> | null,
): SigningKey | null {
  const checked = (key: string, source: string, file: string | null = null, unwritten = false) => {
    if (!ed25519Pkcs8(key))
      throw new ConfigError(`Invalid configuration:\n  ${source}: not an Ed25519 private key as base64 PKCS#8 DER`);
    return { key, source, file, unwritten, moved: file !== null && old?.digestSigningKey === key };
  };
  if (e.LEDGER_SIGNING_KEY_FILE) {
    const file = path.resolve(e.LEDGER_SIGNING_KEY_FILE);
    let text: string;
    try {
      text = readFileSync(file, 'utf8').trim();
    } catch (err) {
      throw new ConfigError(
        `Invalid configuration:\n  LEDGER_SIGNING_KEY_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
      );
    }
    return { ...checked(text, `LEDGER_SIGNING_KEY_FILE (${file})`, file), moved: false };
  }
  if (e.DIGEST_SIGNING_KEY) return checked(e.DIGEST_SIGNING_KEY, 'DIGEST_SIGNING_KEY');
  const own = path.join(dataDir, 'ledger-signing-key');
  if (existsSync(own)) return checked(readFileSync(own, 'utf8').trim(), own, own);
  if (!old?.digestSigningKey && e.DATABASE_URL) return null;
  return checked(old?.digestSigningKey ?? newSigningKey(), own, own, true);
}

/**
 * secrets.json as the start leaves it: every secret it lacks added, and the signing key taken out once it has a file
 * of its own (an older data folder kept it beside the database password). Null when it is so already.
 */
function secretsToStore(
  stored: Partial<OldSecrets> | null,
  merged: OldSecrets,
  signingKey: SigningKey | null,
): OldSecrets | null {
  if (signingKey?.moved) {
    const { digestSigningKey: _moved, ...rest } = merged;
    return rest;
  }
  if (stored && Object.keys(stored).length === Object.keys(merged).length) return null;
  return merged;
}

/**
 * Whether the key's file lies inside `dir`, symbolic links followed: where its bytes are is what matters. The key file
 * the start is to write is DATA_DIR's own; a folder not made yet holds nothing.
 */
function isInside(dir: string, key: SigningKey): boolean {
  if (key.unwritten) return true;
  if (!existsSync(dir)) return false;
  const relative = path.relative(realpathSync(dir), realpathSync(key.file!));
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

/** PROVIDER_NOTIFICATION_SECRETS: `CODE=whsec_...` entries, comma-separated (the catalogue is checked at start). */
function parseNotificationSecrets(value: string): Record<string, string> {
  const entries = value
    .split(',')
    .map(v => v.trim())
    .filter(Boolean);
  const secrets: Record<string, string> = {};
  for (const entry of entries) {
    const match = /^([A-Z0-9-]{1,40})=(whsec_[A-Za-z0-9+/]{16,}={0,2})$/.exec(entry);
    if (!match)
      throw new ConfigError(
        'Invalid configuration:\n  PROVIDER_NOTIFICATION_SECRETS: CODE=whsec_<base64> entries, comma-separated',
      );
    secrets[match[1]!] = match[2]!;
  }
  return secrets;
}

/** SANDBOX_PUSH: unset is every provider that offers notifications; `none` is none; else provider codes. */
function parseSandboxPush(value: string | undefined): readonly string[] | null {
  if (value === undefined || value === '') return null;
  if (value === 'none') return [];
  return value
    .split(',')
    .map(v => v.trim())
    .filter(Boolean);
}

/** Every environment variable the service reads (docs/configuration.md). */
export const configurationNames: readonly string[] = Object.keys(envSchema.shape);

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const e = parsedEnv(env);
  refuseCombinations(e);
  const dataDir = path.resolve(e.DATA_DIR);
  const stored = readStoredSecrets(dataDir);
  const secrets: OldSecrets = { ...freshSecrets(), ...stored };
  const signingKey = loadSigningKey(e, dataDir, stored);
  const sandboxPort = e.SANDBOX_PORT ?? (e.PORT === 0 ? 0 : e.PORT + 1);
  const production = e.NODE_ENV === 'production';
  if (e.SANDBOX && production)
    throw new ConfigError(
      'Invalid configuration:\n  SANDBOX: refused with NODE_ENV=production (its control routes hand out OTP codes and credit accounts)',
    );
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX,
    eventStore: e.EVENT_STORE,
    eventStoreConnectionString: e.EVENTSTORE_CONNECTION_STRING,
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, ''),
    sandboxPort,
    sandboxUrl: e.SANDBOX_URL,
    sandbox: {
      // embedded defaults show the whole product; elsewhere the sandbox is asked for
      start: !production && !e.SANDBOX_URL && sandboxPort !== 0 && (e.SANDBOX ?? !e.DATABASE_URL),
      host: e.SANDBOX_HOST,
      push: { providers: parseSandboxPush(e.SANDBOX_PUSH), url: e.SANDBOX_PUSH_URL?.replace(/\/$/, '') },
    },
    providerNotifications: {
      secrets: parseNotificationSecrets(e.PROVIDER_NOTIFICATION_SECRETS),
      toleranceSeconds: e.PROVIDER_NOTIFICATION_TOLERANCE_SECONDS,
    },
    jwtSecret: e.JWT_SECRET ?? secrets.jwtSecret,
    encryptionKey: e.ENCRYPTION_KEY ?? secrets.encryptionKey,
    digestSigningKey: signingKey?.key ?? null,
    signingKeySource: signingKey?.source ?? null,
    signingKeyFile: signingKey?.file ?? null,
    signingKeyInDataDir: signingKey?.file ? isInside(dataDir, signingKey) : false,
    ledgerCheckpointDir: path.resolve(e.LEDGER_CHECKPOINT_DIR ?? path.join(dataDir, 'checkpoints')),
    ledgerPublicKey: e.LEDGER_PUBLIC_KEY,
    logLevel: e.LOG_LEVEL,
    sessionTtlHours: e.SESSION_TTL_HOURS,
    sessionIdleHours: e.SESSION_IDLE_HOURS,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    metricsToken: e.METRICS_TOKEN,
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
    http: httpOf(e),
    embeddedPostgresPassword: secrets.embeddedPostgresPassword,
    serviceRolePassword: secrets.serviceRolePassword,
    ...limitsOf(e),
    ...paymentsOf(e),
    retention: retentionOf(e),
    gateway: gatewayOf(e),
    qr: qrOf(e),
    testClock: e.TEST_CLOCK,
    webhookTimeoutSeconds: e.WEBHOOK_TIMEOUT_SECONDS,
    webhookConcurrency: e.WEBHOOK_CONCURRENCY,
    dataFiles: {
      dataDir,
      secrets: secretsToStore(stored, secrets, signingKey),
      signingKey: signingKey?.unwritten ? { file: signingKey.file!, key: signingKey.key } : null,
    },
  };
}

/** The environment as the schema reads it; every problem is named in one error. */
function parsedEnv(env: NodeJS.ProcessEnv): z.infer<typeof envSchema> {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map(i => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** The HTTP server's timeouts and connection cap. */
function httpOf(e: z.infer<typeof envSchema>): Config['http'] {
  return {
    requestTimeoutSeconds: e.HTTP_REQUEST_TIMEOUT_SECONDS,
    headersTimeoutSeconds: e.HTTP_HEADERS_TIMEOUT_SECONDS,
    idleTimeoutSeconds: e.HTTP_IDLE_TIMEOUT_SECONDS,
    keepAliveTimeoutSeconds: e.HTTP_KEEP_ALIVE_TIMEOUT_SECONDS,
    maxConnections: e.HTTP_MAX_CONNECTIONS,
  };
}

/** How long operational rows are kept, and how fast they are deleted. */
function retentionOf(e: z.infer<typeof envSchema>): Config['retention'] {
  return {
    webhookDays: e.RETENTION_WEBHOOK_DAYS,
    failedJobDays: e.RETENTION_FAILED_JOBS_DAYS,
    endedSessionDays: e.RETENTION_ENDED_SESSIONS_DAYS,
    batchRows: e.RETENTION_BATCH_ROWS,
    pauseMs: e.RETENTION_PAUSE_MS,
  };
}

/** Refuses the combinations of settings that cannot run together. */
function refuseCombinations(e: z.infer<typeof envSchema>): void {
  if (e.EVENT_STORE === 'eventstoredb' && !e.EVENTSTORE_CONNECTION_STRING) {
    throw new ConfigError(
      'Invalid configuration:\n  EVENTSTORE_CONNECTION_STRING: required when EVENT_STORE=eventstoredb',
    );
  }
  if (e.TEST_CLOCK && e.DATABASE_URL && !e.TEST_CLOCK_FORCE) {
    throw new ConfigError(
      'Invalid configuration:\n  TEST_CLOCK: refused with DATABASE_URL (a shared database would get events from the future); set TEST_CLOCK_FORCE=true if this database is a test one',
    );
  }
}

/** The OTP sessions' and sends' limits, and the login and registration limits. */
function limitsOf(e: z.infer<typeof envSchema>): Pick<Config, 'otp' | 'authLimits'> {
  return {
    otp: {
      sessionTtlMinutes: e.OTP_SESSION_TTL_MINUTES,
      sendsPerPhone: e.OTP_SEND_LIMIT_PER_PHONE,
      sendsPerKey: e.OTP_SEND_LIMIT_PER_KEY,
      windowMinutes: e.OTP_SEND_LIMIT_WINDOW_MINUTES,
    },
    authLimits: {
      loginPerIpEmail: { max: e.LOGIN_LIMIT_PER_IP_EMAIL, windowMinutes: e.LOGIN_LIMIT_PER_IP_EMAIL_WINDOW_MINUTES },
      loginPerIp: { max: e.LOGIN_LIMIT_PER_IP, windowMinutes: e.LOGIN_LIMIT_PER_IP_WINDOW_MINUTES },
      registerPerIp: { max: e.REGISTER_LIMIT_PER_IP, windowMinutes: e.REGISTER_LIMIT_PER_IP_WINDOW_MINUTES },
      accountSlowDown: {
        after: e.LOGIN_SLOWDOWN_AFTER,
        maxSeconds: e.LOGIN_SLOWDOWN_MAX_SECONDS,
        windowMinutes: e.LOGIN_SLOWDOWN_WINDOW_MINUTES,
      },
    },
  };
}

/** The payment page's streams and the payment checks' cadence. */
function paymentsOf(e: z.infer<typeof envSchema>): Pick<Config, 'paymentStreams' | 'paymentChecks'> {
  return {
    paymentStreams: {
      perPayment: e.PAYMENT_STREAMS_PER_PAYMENT,
      perInstance: e.PAYMENT_STREAMS_PER_INSTANCE,
      heartbeatSeconds: e.PAYMENT_STREAM_HEARTBEAT_SECONDS,
    },
    paymentChecks: {
      fastSeconds: e.PAYMENT_CHECK_FAST_SECONDS,
      fastForMinutes: e.PAYMENT_CHECK_FAST_FOR_MINUTES,
      slowSeconds: e.PAYMENT_CHECK_SLOW_SECONDS,
      askEverySeconds: e.PAYMENT_CHECK_ASK_EVERY_SECONDS,
      cadence: e.PAYMENT_CHECK_CADENCE,
      floorSeconds: e.PAYMENT_CHECK_FLOOR_SECONDS,
      pageSeconds: e.PAYMENT_CHECK_PAGE_SECONDS,
      readingSeconds: e.PAYMENT_CHECK_READING_SECONDS,
      payingSeconds: e.PAYMENT_CHECK_PAYING_SECONDS,
      payingForSeconds: e.PAYMENT_CHECK_PAYING_FOR_SECONDS,
      // the page asks every 3 s: three missed asks and it counts as closed
      pageOpenForSeconds: 10,
      windowSeconds: e.PAYMENT_CHECK_WINDOW_SECONDS,
      backoffShare: e.PAYMENT_CHECK_BACKOFF_PERCENT / 100,
      window: {
        percentile: 90,
        minPaid: 5,
        defaultSeconds: e.PAYMENT_CHECK_WINDOW_DEFAULT_SECONDS,
        minSeconds: 30,
        maxSeconds: 15 * 60,
      },
    },
  };
}

/** The gateway's fees and limits. */
function gatewayOf(e: z.infer<typeof envSchema>): Config['gateway'] {
  return {
    vaFee: e.GATEWAY_VA_FEE,
    qrisFee: { rateBp: e.GATEWAY_QRIS_FEE_RATE_BP, flat: e.GATEWAY_QRIS_FEE_FLAT },
    limits: {
      qris: { min: e.GATEWAY_QRIS_MIN_AMOUNT, max: e.GATEWAY_QRIS_MAX_AMOUNT },
      va: { min: e.GATEWAY_VA_MIN_AMOUNT, max: e.GATEWAY_VA_MAX_AMOUNT },
    },
    minWithdrawal: e.GATEWAY_MIN_WITHDRAWAL,
  };
}

/** QR decoding's threads and queues, and the upload limits. */
function qrOf(e: z.infer<typeof envSchema>): Config['qr'] {
  return {
    decoding: {
      threads: e.QR_DECODE_THREADS ?? defaultQrDecodeThreads(),
      queue: e.QR_DECODE_QUEUE,
      queuePerTenant: e.QR_DECODE_QUEUE_PER_TENANT,
      deadlineMs: e.QR_DECODE_DEADLINE_MS,
    },
    perKey: { max: e.QR_UPLOAD_LIMIT_PER_KEY, windowMinutes: e.QR_UPLOAD_LIMIT_WINDOW_MINUTES },
    perUser: { max: e.QR_UPLOAD_LIMIT_PER_USER, windowMinutes: e.QR_UPLOAD_LIMIT_WINDOW_MINUTES },
  };
}
