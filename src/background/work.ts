import type { Core } from '../core.ts';
import { projections } from '../projections/all.ts';
import { ProjectionRunner } from '../projections/runner.ts';
import { startAccountSync, type AccountSyncScheduler } from '../sagas/account-sync.ts';
import { sagas } from '../sagas/all.ts';
import { startPaymentExpiry, type PaymentExpiryTimer } from '../sagas/payment-expiry.ts';
import { SagaRunner } from '../sagas/runner.ts';
import { startWebhookDelivery, type WebhookDelivery } from '../webhooks/delivery-runner.ts';
import type { WebhookSettings } from '../webhooks/settings.ts';

/** The work nobody waits for on a request: projections, sagas, webhook delivery and the sync and expiry timers. */
export type BackgroundWork = {
  projections: ProjectionRunner;
  sagas: SagaRunner;
  webhookDelivery: WebhookDelivery;
  accountSync: AccountSyncScheduler;
  paymentExpiry: PaymentExpiryTimer;
  /** The projections and sagas have no error standing. */
  health(): { projections: boolean; sagas: boolean };
  /** Stops the timers and runners; the batch each subscriber has in hand is applied and checkpointed first. */
  stop(): Promise<void>;
};

export type BackgroundOptions = {
  publicBaseUrl: string;
  webhooks: WebhookSettings;
  schedulerTickMs?: number;
};

/** Creates the read models and starts everything in the background, in this thread. */
export async function startBackgroundWork(core: Core, options: BackgroundOptions): Promise<BackgroundWork> {
  const { pool, store, snapshots, cache, clock, log } = core;
  const projectionRunner = new ProjectionRunner({ pool, store, log }, projections);
  const sagaRunner = new SagaRunner({ pool, store, log }, sagas({ store, snapshots, cache, clock, log, pool, publicBaseUrl: options.publicBaseUrl }));
  await projectionRunner.start();
  // before the sagas: they publish webhook events into the tables and queue this creates
  const webhookDelivery = await startWebhookDelivery({ pool, store, snapshots, clock, log, vault: core.vault }, options.webhooks);
  await sagaRunner.start();
  const tickMs = options.schedulerTickMs ?? 1000;
  const accountSync = await startAccountSync({ ...core, readModels: projectionRunner }, { tickMs });
  const paymentExpiry = startPaymentExpiry({ store, snapshots, cache, clock, log, pool, readModels: projectionRunner }, { tickMs });
  return {
    projections: projectionRunner,
    sagas: sagaRunner,
    webhookDelivery,
    accountSync,
    paymentExpiry,
    health: () => ({ projections: projectionRunner.healthy, sagas: sagaRunner.healthy }),
    stop: async () => {
      await accountSync.stop();
      await webhookDelivery.stop();
      await paymentExpiry.stop();
      await sagaRunner.stop();
      await projectionRunner.stop();
    },
  };
}
