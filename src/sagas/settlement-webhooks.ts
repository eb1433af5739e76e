import { deterministicUuid } from '../ids.ts';
import type { PresentedSettlement } from '../projections/settlement-presenter.ts';
import { publishWebhook, reaction, readSettlement, type Step, type Stored } from './reaction.ts';
import { sagaOf, type ReactionDeps, type Saga } from './runner.ts';

/** The settlement with its payments from the read model, which the event names by its own id. */
const published: Step<Stored<'BalanceSettled'>, PresentedSettlement | null> = {
  reads: event => readSettlement(event.data.merchantId, event.metadata.eventId),
  decide(event, settlement) {
    // projected from this very event; not there yet: the runner tries the event again
    if (!settlement) throw new Error(`settlement ${event.metadata.eventId} is not in the read model yet`);
    return [
      publishWebhook({
        ownerId: event.data.merchantId,
        eventId: deterministicUuid(`webhook:${event.metadata.eventId}:gateway.settled`),
        type: 'gateway.settled',
        createdAt: event.data.settledAt,
        data: settlement,
      }),
    ];
  },
};

/**
 * `gateway.settled` for every endpoint of the merchant, once per settlement: the webhook event id is derived from the
 * BalanceSettled's id. The payload is the settlement as `GET /api/v1/gateway/settlements/{id}` shows it.
 */
export const settlementWebhooks = reaction('settlement-webhooks', { BalanceSettled: published });

/** The reaction as the runner runs it (tests hand it events directly). */
export const settlementWebhooksSaga = (deps: ReactionDeps): Saga => sagaOf(settlementWebhooks, deps);
