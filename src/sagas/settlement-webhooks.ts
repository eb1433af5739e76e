import { deterministicUuid } from '../ids.ts';
import type { CreditsNamed } from '../projections/gateway-settlements.ts';
import { paymentsInline, presentSettlement } from '../projections/settlement-presenter.ts';
import { publishWebhook, reaction, type Step, type Stored } from './reaction.ts';
import { readCredits } from './reads.ts';
import { sagaOf, type ReactionDeps, type Saga } from './runner.ts';

/**
 * The settlement from the event itself, its payments from the read model: they were credited by earlier events, so
 * the saga need not wait for the projection to see the settlement.
 */
const published: Step<Stored<'BalanceSettled'>, CreditsNamed> = {
  reads: event => readCredits(event.data.merchantId, event.data.paymentIds, paymentsInline),
  decide(event, credits) {
    const d = event.data;
    // credited long before they settle; not all projected yet: the runner tries the event again
    if (credits.found < d.paymentIds.length)
      throw new Error(`credits of settlement ${event.metadata.eventId} are not in the read model yet`);
    // each payment's due day from the event, as the read model will have it once it has seen the settlement
    const dueDates = new Map(d.dueDates?.map((day, i) => [d.paymentIds[i]!, day]));
    const first = credits.first.map(c => ({ ...c, due_date: dueDates.get(c.credit_id) ?? null }));
    const settlement = presentSettlement(
      {
        id: event.metadata.eventId,
        merchant_id: d.merchantId,
        cutoff: new Date(d.cutoff),
        settled_at: new Date(d.settledAt),
        payment_count: d.paymentIds.length,
        gross: credits.gross,
        fee: credits.fee,
        net: d.amount,
      },
      first,
    );
    return [
      publishWebhook({
        ownerId: d.merchantId,
        eventId: deterministicUuid(`webhook:${event.metadata.eventId}:gateway.settled`),
        type: 'gateway.settled',
        createdAt: d.settledAt,
        data: settlement,
      }),
    ];
  },
};

/**
 * `gateway.settled` for every endpoint of the merchant, once per settlement: the webhook event id is derived from the
 * BalanceSettled's id, which is the settlement's. The payload is the settlement as
 * `GET /api/v1/gateway/settlements/{id}` shows it (its first 1,000 payments).
 */
export const settlementWebhooks = reaction('settlement-webhooks', { BalanceSettled: published });

/** The reaction as the runner runs it (tests hand it events directly). */
export const settlementWebhooksSaga = (deps: ReactionDeps): Saga => sagaOf(settlementWebhooks, deps);
