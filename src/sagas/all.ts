import type pg from 'pg';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { EventStore } from '../store/event-store.ts';
import type { SnapshotStore } from '../store/snapshots.ts';
import type { StateCache } from '../store/commands/state-cache.ts';
import { sagaOf, type Saga } from './runner.ts';
import { gatewayLedgerCredits } from './gateway-ledger.ts';
import { paymentMatching } from './payment-matching.ts';
import { paymentWebhooks } from './payment-webhooks.ts';
import { walletLogins } from './wallet-login.ts';
import { transferWebhooks } from './transfer-webhooks.ts';
import { withdrawalWebhooks } from './withdrawal-webhooks.ts';
import { settlementWebhooks } from './settlement-webhooks.ts';
import { accountWebhooks } from './account-webhooks.ts';

export type SagaDeps = { store: EventStore; snapshots?: SnapshotStore; cache?: StateCache; clock: Clock; log: Logger };

/** What the sagas that leave the event store need besides (webhook tables, public URLs). */
export type ServiceSagaDeps = SagaDeps & { pool: pg.Pool; publicBaseUrl: string };

/** Every reaction the service runs (src/sagas/reaction.ts), each a subscriber `saga:<name>` of its own. */
export function sagas(deps: ServiceSagaDeps): Saga[] {
  const reactions = [
    walletLogins,
    paymentMatching,
    paymentWebhooks(deps.publicBaseUrl),
    gatewayLedgerCredits,
    transferWebhooks,
    withdrawalWebhooks,
    settlementWebhooks,
    accountWebhooks,
  ];
  return reactions.map(r => sagaOf(r, deps));
}
