import type pg from 'pg';
import { deterministicUuid } from '../ids.ts';
import { findGatewayWithdrawal } from '../projections/gateway-ledger.ts';
import { presentWithdrawal, rowDecided } from '../projections/withdrawal-presenter.ts';
import { enqueueWebhookEvent } from '../webhooks/outbox.ts';
import type { SagaDeps } from './all.ts';
import type { Saga } from './runner.ts';

/**
 * `withdrawal.paid` and `withdrawal.rejected` for every endpoint of the merchant (issue 25), once each: the webhook
 * event id is derived from the withdrawal and the kind. The payload is the withdrawal as the dashboard shows it: the
 * request from the read model, the outcome from the event.
 */
export function withdrawalWebhooksSaga(deps: SagaDeps & { pool: pg.Pool }): Saga {
  return {
    name: 'withdrawal-webhooks',
    handles: ['WithdrawalPaid', 'WithdrawalRejected'],
    async handle(event) {
      if (event.type !== 'WithdrawalPaid' && event.type !== 'WithdrawalRejected') return;
      const type = event.type === 'WithdrawalPaid' ? 'withdrawal.paid' : 'withdrawal.rejected';
      const row = await findGatewayWithdrawal(deps.pool, event.data.withdrawalId);
      // the request is projected long before its outcome is decided; not there yet: the runner tries the event again
      if (!row) throw new Error(`withdrawal ${event.data.withdrawalId} is not in the read model yet`);
      await enqueueWebhookEvent(deps, {
        ownerId: event.data.merchantId,
        eventId: deterministicUuid(`webhook:${event.data.withdrawalId}:${type}`),
        type,
        createdAt: event.type === 'WithdrawalPaid' ? event.data.paidAt : event.data.rejectedAt,
        data: presentWithdrawal(rowDecided(row, event)),
      });
    },
  };
}
