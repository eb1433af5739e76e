import { runJobQueue } from '../db/job-queue.ts';
import type pg from 'pg';
import type { Clock } from '../clock.ts';
import type { EventSourcing } from '../store/commands/handle.ts';
import type { Logger } from '../logger.ts';
import type { ServiceMetrics } from '../metrics.ts';
import type { CredentialVault } from '../security/credentials.ts';
import {
  beginAttempt,
  cancelDelivery,
  findDeliveryTarget,
  markInterruptedAttempts,
  recordAttempt,
  type AttemptMaker,
} from './deliveries.ts';
import { isCurrent, type AttemptJob } from './delivery-state.ts';
import { disableWebhookEndpoint } from '../commands/webhook-endpoints.ts';
import { attemptJob, deliverWebhookTask } from './jobs.ts';
import { ensureWebhookSchema } from './schema.ts';
import { isSuccess, postWebhook } from './send.ts';
import type { WebhookSettings } from './settings.ts';
import { signedHeaders } from '../security/webhook-signature.ts';

export type DeliveryDeps = EventSourcing & {
  pool: pg.Pool;
  clock: Clock;
  log: Logger;
  vault: CredentialVault;
  metrics?: Pick<ServiceMetrics, 'webhookAttempts'>;
};

/**
 * Makes one attempt of a delivery: checks that the job is still wanted and the endpoint still active, logs the attempt
 * in flight, signs the stored body afresh, POSTs it, logs the answer and schedules what follows. A 410 disables the
 * endpoint. An attempt of this delivery cut off before (its worker died) is marked interrupted first.
 */
export async function attemptDelivery(
  deps: DeliveryDeps,
  settings: WebhookSettings,
  job: AttemptJob,
  maker: AttemptMaker,
): Promise<void> {
  await markInterruptedAttempts(deps.pool, { deliveryId: job.deliveryId, jobId: maker.jobId });
  const target = await findDeliveryTarget(deps.pool, job.deliveryId);
  if (!target || !isCurrent({ status: target.status, scheduleStep: target.schedule_step }, job)) return;
  if (target.removed_at || target.disabled_at) {
    await cancelDelivery(
      deps.pool,
      target.id,
      target.removed_at ? 'endpoint removed' : 'endpoint disabled',
      deps.clock.now(),
    );
    return;
  }
  const secret = deps.vault.open<string>(target.secret);
  // the signature's timestamp is wall-clock time: receivers compare it with their own clock to refuse replays
  const headers = signedHeaders(secret, target.event_id, new Date(), target.body);
  const number = await beginAttempt(deps.pool, { job, maker, attemptedAt: deps.clock.now() });
  const result = await postWebhook({ url: target.url, body: target.body, headers }, settings);
  // the next wait starts when this attempt ended (an answer, an error or the timeout), as the queue's does
  const endedAt = deps.clock.now();
  await recordAttempt(deps.pool, {
    job,
    number,
    endedAt,
    result,
    delays: settings.retryDelaysMs,
    random: Math.random(),
  });
  deps.metrics?.webhookAttempts.inc({
    outcome: isSuccess(result) ? 'success' : result.statusCode === null ? 'error' : 'failure',
  });
  if (result.statusCode === 410) await disableWebhookEndpoint(deps, target.owner_id, target.endpoint_id, 410);
}

export type WebhookDelivery = { stop(): Promise<void> };

/**
 * The webhook runner: a graphile-worker runner of its own, with its own concurrency and task, so receivers that are
 * slow or down take only its slots and never hold up account syncs or sagas. Like every queue runner it beats with the
 * ids of its workers and takes back the jobs of runners that died (src/db/queue-liveness.ts): an attempt cut off by a
 * crash is made again within about `deadAfterMs + heartbeatMs`, by whichever process runs webhooks then; the attempt
 * cut off stays in the log as interrupted, marked when its job runs again or when a runner starts.
 */
export async function startWebhookDelivery(deps: DeliveryDeps, settings: WebhookSettings): Promise<WebhookDelivery> {
  await ensureWebhookSchema(deps.pool);
  const interrupted = await markInterruptedAttempts(deps.pool);
  if (interrupted > 0)
    deps.log.warn({ attempts: interrupted }, 'webhook attempts cut off by a crash are logged as interrupted');
  const runner = await runJobQueue(
    'webhook queue',
    {
      pgPool: deps.pool,
      concurrency: settings.concurrency,
      pollInterval: settings.pollIntervalMs,
      liveness: { heartbeatMs: settings.heartbeatMs, deadAfterMs: settings.deadAfterMs },
      taskList: {
        [deliverWebhookTask]: async (payload, helpers) => {
          const job = attemptJob.safeParse(payload);
          if (!job.success) return; // a malformed job is dropped, not retried for ever
          await attemptDelivery(deps, settings, job.data, {
            jobId: helpers.job.id,
            workerId: helpers.job.locked_by ?? '',
          });
        },
      },
    },
    deps.log,
  );
  let stopping: Promise<void> | null = null;
  return { stop: () => (stopping ??= runner.stop()) };
}
