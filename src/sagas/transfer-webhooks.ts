import type pg from 'pg';
import { load } from '../commands/handle.ts';
import { transfer, transferStream } from '../commands/transfer.ts';
import { deterministicUuid } from '../ids.ts';
import { enqueueWebhookEvent } from '../webhooks/outbox.ts';
import type { SagaDeps } from './all.ts';
import type { Saga } from './runner.ts';

/** `transfer.completed` and `transfer.failed` for every endpoint of the wallet's owner (DESIGN section 10), once each. */
export function transferWebhooksSaga(deps: SagaDeps & { pool: pg.Pool }): Saga {
  return {
    name: 'transfer-webhooks',
    handles: ['TransferCompleted', 'TransferFailed'],
    async handle(event) {
      if (event.type !== 'TransferCompleted' && event.type !== 'TransferFailed') return;
      const type = event.type === 'TransferCompleted' ? 'transfer.completed' : 'transfer.failed';
      const { state } = await load(deps, transferStream(event.data.transferId), transfer);
      if (state.status === 'NONE' || state.status === 'VALIDATED') return;
      await enqueueWebhookEvent(deps, {
        ownerId: state.ownerId,
        eventId: deterministicUuid(`webhook:${state.transferId}:${type}`),
        type,
        createdAt: event.type === 'TransferCompleted' ? event.data.completedAt : event.data.failedAt,
        data: {
          id: state.transferId,
          accountId: state.accountId,
          kind: state.kind,
          amount: state.amount,
          status: state.status,
          ...(state.destination ? { destination: { instId: state.destination.instId, instLocalName: state.destination.instLocalName, accountNumber: state.destination.accountNumber, accountName: state.destination.accountName } } : {}),
          ...(state.qris ? { merchantName: state.qris.merchantName, tip: state.qris.tip } : {}),
          ...(state.reason && state.status === 'FAILED' ? { reason: state.reason } : {}),
          submittedAt: state.submittedAt,
        },
      });
    },
  };
}
