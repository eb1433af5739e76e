import type pg from 'pg';
import type { DatabaseWatch } from '../db/watch.ts';
import type { AuthLimits, OtpSettings } from '../config.ts';
import type { SyncDeps } from '../commands/sync-account.ts';
import type { SessionTokens } from '../security/session-token.ts';
import type { SubscriberProblem } from '../store/subscriber.ts';
import type { WebhookSettings } from '../webhooks/settings.ts';

/** Everything the HTTP layer needs, given when the app is built. */
export type AppDeps = SyncDeps & {
  pool: pg.Pool;
  database: DatabaseWatch;
  tokens: SessionTokens;
  config: { publicBaseUrl: string; sessionTtlHours: number; otp: OtpSettings; authLimits: AuthLimits; webhooks: WebhookSettings };
  /** Readiness of what the service depends on, and the subscribers that are stuck or waiting. */
  readiness(): Promise<{ checks: Record<string, boolean>; subscribers: SubscriberProblem[] }>;
};
