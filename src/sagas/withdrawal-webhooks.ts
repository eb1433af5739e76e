import { deterministicUuid } from '../ids.ts';
import type { GatewayWithdrawalRow } from '../projections/gateway-ledger.ts';
import { presentWithdrawal, rowDecided } from '../projections/withdrawal-presenter.ts';
import { publishWebhook, reaction, type Step, type Stored } from './reaction.ts';
import { readWithdrawal } from './reads.ts';
import { sagaOf, type ReactionDeps, type Saga } from './runner.ts';

type Decided = Stored<'WithdrawalPaid'> | Stored<'WithdrawalRejected'>;

/** The request from the read model, the outcome from the event. */
const published: Step<Decided, GatewayWithdrawalRow | null> = {
  reads: event => readWithdrawal(event.data.withdrawalId),
  decide(event, row) {
    // the request is projected long before its outcome is decided; not there yet: the runner tries the event again
    if (!row) throw new Error(`withdrawal ${event.data.withdrawalId} is not in the read model yet`);
    const type = event.type === 'WithdrawalPaid' ? 'withdrawal.paid' : 'withdrawal.rejected';
    return [
      publishWebhook({
        ownerId: event.data.merchantId,
        eventId: deterministicUuid(`webhook:${event.data.withdrawalId}:${type}`),
        type,
        createdAt: event.type === 'WithdrawalPaid' ? event.data.paidAt : event.data.rejectedAt,
        data: presentWithdrawal(rowDecided(row, event)),
      }),
    ];
  },
};

/**
 * `withdrawal.paid` and `withdrawal.rejected` for every endpoint of the merchant, once each: the webhook
 * event id is derived from the withdrawal and the kind. The payload is the withdrawal as the dashboard shows it.
 */
export const withdrawalWebhooks = reaction('withdrawal-webhooks', {
  WithdrawalPaid: published,
  WithdrawalRejected: published,
});

/** The reaction as the runner runs it (tests hand it events directly). */
export const withdrawalWebhooksSaga = (deps: ReactionDeps): Saga => sagaOf(withdrawalWebhooks, deps);
