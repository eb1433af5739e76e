import type { LedgerSigner } from '../audit/ledger-key-file.ts';
import { LedgerCheckpoints } from '../audit/ledger-checkpoints.ts';
import { checkpointHash, type LedgerCheckpoint } from '../audit/ledger-format.ts';
import { ledgerIntegrity } from '../audit/ledger-integrity.ts';
import { publishLedgerCheckpoint } from '../webhooks/ledger-checkpoints.ts';
import { publishLedgerIntegrity } from '../webhooks/ledger-integrity.ts';
import type { Clock } from '../clock.ts';
import type { PaymentCheckSettings, RetentionSettings } from '../config.ts';
import type { Core } from '../core.ts';
import { legacyPayablesCarriedOver } from '../commands/payments-carry-over.ts';
import { migrate } from '../db/migrations.ts';
import { projections } from '../projections/all.ts';
import { ProjectionRunner } from '../projections/runner.ts';
import { startAccountSync, type AccountSyncScheduler } from './account-sync.ts';
import { startGatewaySettlement, type GatewaySettlement } from './gateway-settlement.ts';
import { shippedHolidayCalendar } from '../projections/holiday-calendar.ts';
import { loadHolidayCalendar } from '../projections/holiday-calendar.ts';
import { sagas } from '../sagas/all.ts';
import { startPaymentChecks, type PaymentChecks } from './payment-checks.ts';
import { startTransferOutcomes } from './transfer-outcomes.ts';
import type { OnTheClock } from './on-the-clock.ts';
import { startPaymentExpiry, type PaymentExpiryTimer } from './payment-expiry.ts';
import { startRetention } from './retention.ts';
import { SagaRunner } from '../sagas/runner.ts';
import { listSubscriberFailures } from '../store/subscriber-failures.ts';
import { subscriberProblem, type SubscriberProblem } from '../store/subscriber.ts';
import { startWebhookDelivery, type WebhookDelivery } from '../webhooks/delivery-runner.ts';
import type { WebhookSettings } from '../webhooks/settings.ts';

/** The work nobody waits for on a request: projections, sagas, webhook delivery and the sync and expiry timers. */
export type BackgroundWork = {
  projections: ProjectionRunner;
  sagas: SagaRunner;
  webhookDelivery: WebhookDelivery;
  accountSync: AccountSyncScheduler;
  paymentExpiry: PaymentExpiryTimer;
  gatewaySettlement: GatewaySettlement;
  paymentChecks: PaymentChecks;
  /**
   * The chain of signed checkpoints of the log, at least one a minute, and the signed daily digests, in one pass
   * (src/audit/ledger-checkpoints.ts).
   */
  ledger: LedgerCheckpoints;
  /** Asks the provider what became of transfers whose outcome is unknown (src/background/transfer-outcomes.ts). */
  transferOutcomes: OnTheClock;
  /** Deletes operational rows past their retention, by one instance at a time (src/background/retention.ts). */
  retention: OnTheClock;
  /**
   * The subscribers that are not fine: stuck at an event (here, or in another process: they are recorded in
   * PostgreSQL) or waiting for the database; and whether the projections and the sagas are all fine.
   */
  health(): Promise<{ projections: boolean; sagas: boolean; ledger: boolean; subscribers: SubscriberProblem[] }>;
  /** Stops the timers and runners; the batch each subscriber has in hand is applied and checkpointed first. */
  stop(): Promise<void>;
};

export type BackgroundOptions = {
  publicBaseUrl: string;
  webhooks: WebhookSettings;
  schedulerTickMs?: number;
  paymentChecks: PaymentCheckSettings;
  retention: RetentionSettings;
  /** the sessions' clock (src/commands/login.ts): their retention is measured on it */
  wallClock: Clock;
  /** signs each day's digest of the log once the day is over */
  /** signs the checkpoints and the daily digests; follows rotations of its key file (src/audit/ledger-key-file.ts) */
  digestSigner: LedgerSigner;
  /** where every signed checkpoint of the log is also written, outside the database */
  ledgerCheckpointDir: string;
};

/** Creates the read models and starts everything in the background, in this thread. */
export async function startBackgroundWork(core: Core, options: BackgroundOptions): Promise<BackgroundWork> {
  const { pool, store, snapshots, cache, clock, log } = core;
  // before anything matches credits or expires payments: the bills are where matching and releases look
  await migrate(pool, [legacyPayablesCarriedOver({ store, snapshots, cache, clock, log })], log);
  const projectionRunner = new ProjectionRunner({ pool, store, log }, projections);
  const sagaRunner = new SagaRunner(
    { pool, store, log },
    sagas({ store, snapshots, cache, clock, log, pool, publicBaseUrl: options.publicBaseUrl }),
  );
  await projectionRunner.start();
  // before the sagas: they publish webhook events into the tables and queue this creates
  const webhookDelivery = await startWebhookDelivery(
    { pool, store, snapshots, clock, log, vault: core.vault, metrics: core.metrics },
    options.webhooks,
  );
  await sagaRunner.start();
  const ledger = await startLedger(core, options);
  const timers = await startTimers(core, projectionRunner, options);
  const work = { projections: projectionRunner, sagas: sagaRunner, webhookDelivery, ledger, ...timers };
  return {
    ...work,
    health: () => healthOf(pool, work),
    stop: async () => {
      await timers.retention.stop();
      await timers.accountSync.stop();
      await timers.transferOutcomes.stop();
      await webhookDelivery.stop();
      await timers.paymentExpiry.stop();
      await timers.gatewaySettlement.stop();
      await timers.paymentChecks.stop();
      await sagaRunner.stop();
      await ledger.stop();
      await projectionRunner.stop();
    },
  };
}

/**
 * The chain of signed checkpoints: every checkpoint also leaves as the ledger.checkpoint webhook, and what the ledger
 * finds wrong with its own history goes to the log and, as ledger.integrity, to the admins who ask.
 */
async function startLedger(core: Core, options: BackgroundOptions): Promise<LedgerCheckpoints> {
  const { pool, store, clock, log } = core;
  const published = async (checkpoints: LedgerCheckpoint[]) => {
    for (const checkpoint of checkpoints)
      await publishLedgerCheckpoint({ pool, clock }, checkpoint, checkpointHash(checkpoint));
  };
  ledgerIntegrity(pool).attach({
    log,
    publish: finding => publishLedgerIntegrity({ pool, clock }, finding),
    now: () => clock.now(),
  });
  const ledger = new LedgerCheckpoints(
    { pool, store, log, clock, published },
    options.digestSigner,
    options.ledgerCheckpointDir,
  );
  await ledger.start();
  return ledger;
}

/** The work on the clock: syncs, expiries, settlements, payment checks, transfer outcomes and retention. */
async function startTimers(core: Core, readModels: ProjectionRunner, options: BackgroundOptions) {
  const { pool, store, snapshots, cache, clock, log } = core;
  const tickMs = options.schedulerTickMs ?? 1000;
  const accountSync = await startAccountSync({ ...core, readModels }, { tickMs });
  const paymentExpiry = startPaymentExpiry({ store, snapshots, cache, clock, log, pool, readModels }, { tickMs });
  const shipped = shippedHolidayCalendar();
  const gatewaySettlement = startGatewaySettlement(
    { store, snapshots, cache, clock, log, pool, readModels },
    {
      tickMs,
      calendarAt: () => loadHolidayCalendar(pool, shipped),
    },
  );
  const paymentChecks = startPaymentChecks({ pool, clock, log }, options.paymentChecks, { tickMs });
  const transferOutcomes = startTransferOutcomes({ ...core, readModels }, { tickMs: Math.max(tickMs, 5000) });
  const retention = startRetention({ pool, clock, wallClock: options.wallClock, log }, options.retention);
  return { accountSync, paymentExpiry, gatewaySettlement, paymentChecks, transferOutcomes, retention };
}

/**
 * The subscribers stuck here or recorded as stuck by another process; the ledger's chain refusing to sign (a
 * malformed or forged row, a state that does not continue it) is not ready.
 */
async function healthOf(
  pool: Core['pool'],
  work: { projections: ProjectionRunner; sagas: SagaRunner; ledger: LedgerCheckpoints },
): ReturnType<BackgroundWork['health']> {
  const here = [...work.projections.health(), ...work.sagas.health(), ...work.ledger.health()].map(s =>
    subscriberProblem(s.subscriber, s.health),
  );
  const recorded = await listSubscriberFailures(pool).catch(() => []);
  const problems = new Map(
    recorded.map(f => [f.subscriber, subscriberProblem(f.subscriber, { state: 'stuck', ...f })!]),
  );
  for (const p of here) if (p) problems.set(p.subscriber, p);
  const subscribers = [...problems.values()];
  const fine = (prefix: string) => !subscribers.some(p => p.subscriber.startsWith(prefix));
  return { projections: fine('projection:'), sagas: fine('saga:'), ledger: fine('ledger:'), subscribers };
}
