import { systemResolver, type ResolveHost } from '../security/address-guard.ts';
import { retryDelaysMs } from './retry-schedule.ts';

/** How webhooks are delivered: from the configuration, and from test options for what the environment does not set. */
export type WebhookSettings = {
  /** WEBHOOK_ALLOW_PRIVATE: URLs on private, loopback and other non-public addresses are allowed. */
  allowPrivate: boolean;
  /** WEBHOOK_TIMEOUT_SECONDS: how long one attempt may wait for the receiver's answer. */
  timeoutMs: number;
  /** WEBHOOK_CONCURRENCY: deliveries in flight at once, on a job runner of their own. */
  concurrency: number;
  retryDelaysMs: readonly number[];
  /** How often the runner looks for attempts whose time has come (new jobs wake it at once). */
  pollIntervalMs: number;
  resolveHost: ResolveHost;
  /** How often the runner says it is alive and looks for attempts cut off by the death of another (src/db/queue-liveness.ts). */
  heartbeatMs: number;
  /** A runner silent for this long is dead: the queue jobs its workers held are unlocked and run again. */
  deadAfterMs: number;
};

export function webhookSettings(
  config: { webhookAllowPrivate: boolean; webhookTimeoutSeconds: number; webhookConcurrency: number },
  overrides: Partial<WebhookSettings> = {},
): WebhookSettings {
  return {
    allowPrivate: config.webhookAllowPrivate,
    timeoutMs: config.webhookTimeoutSeconds * 1000,
    concurrency: config.webhookConcurrency,
    retryDelaysMs,
    pollIntervalMs: 1000,
    resolveHost: systemResolver,
    heartbeatMs: 5_000,
    deadAfterMs: 20_000,
    ...overrides,
  };
}
