import type pg from 'pg';
import type { Clock } from '../clock.ts';
import type { DatabaseWatch } from '../db/watch.ts';
import type { PaymentChecks } from '../background/payment-checks.ts';
import type {
  AuthLimits,
  GatewaySettings,
  HttpSettings,
  OtpSettings,
  PaymentCheckSettings,
  PaymentStreamSettings,
  ProviderNotificationSettings,
  QrSettings,
  TrustProxy,
} from '../config.ts';
import type { CommandDeps } from '../commands/deps.ts';
import type { SessionTokens } from '../security/session-token.ts';
import type { DeviceCookies } from '../security/device-cookie.ts';
import type { ServiceMetrics } from '../metrics.ts';
import type { SubscriberProblem } from '../store/subscriber.ts';
import type { WebhookSettings } from '../webhooks/settings.ts';
import type { MovableClock } from './test-clock.ts';
import type { SandboxPayer } from '../providers/sandbox-payer.ts';

/** Everything the HTTP layer needs, given when the app is built. */
export type AppDeps = CommandDeps & {
  pool: pg.Pool;
  database: DatabaseWatch;
  tokens: SessionTokens;
  /** The signed cookie of a browser that signed in to an account before (src/security/device-cookie.ts). */
  deviceCookies: DeviceCookies;
  /** The wall clock: sessions (issued, used, idle, expired) run on it, never on the test clock (`clock`). */
  wallClock: Clock;
  config: {
    publicBaseUrl: string;
    sessionTtlHours: number;
    sessionIdleHours: number;
    trustProxy: TrustProxy;
    metricsToken: string | undefined;
    otp: OtpSettings;
    authLimits: AuthLimits;
    webhooks: WebhookSettings;
    paymentChecks: PaymentCheckSettings;
    /** how many event streams the payment page may hold open, and their heartbeat */
    paymentStreams: PaymentStreamSettings;
    /** the secret of each provider heard (sandbox-played ones derived when none is set) and the timestamp window */
    providerNotifications: ProviderNotificationSettings;
    gateway: GatewaySettings;
    qr: QrSettings;
    http: HttpSettings;
  };
  /** Checks of accounts for the money of pending payments (src/background/payment-checks.ts). */
  paymentChecks: Pick<PaymentChecks, 'checkNow' | 'payerSeen'>;
  /**
   * A customer of the sandbox provider, when the service's provider is the sandbox (started with it, or SANDBOX_URL):
   * the payment page's "Bayar (sandbox)". Absent or null: real providers, and nothing is paid that way.
   */
  sandbox?: SandboxPayer | null;
  /** The clock POST /api/test-clock moves (TEST_CLOCK=true), else null: the route does not exist. */
  testClock: MovableClock | null;
  /** The public half of the key signing the daily digests (GET /api/admin/digests). */
  digestKey: { keyId: string; publicKey: string };
  /** Prometheus metrics, served at GET /metrics. */
  metrics: ServiceMetrics;
  /** An answer its documented schema refuses fails the request (tests) instead of being logged and sent. */
  strictResponses?: boolean;
  /** Readiness of what the service depends on, and the subscribers that are stuck or waiting. */
  readiness(): Promise<{
    checks: Record<string, boolean>;
    subscribers: SubscriberProblem[];
    details?: Record<string, unknown>;
  }>;
};
