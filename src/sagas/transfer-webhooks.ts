import { transfer, transferStream, type Transfer } from '../domain/transfer.ts';
import { deterministicUuid } from '../ids.ts';
import { publishWebhook, reaction, type Step, type Stored } from './reaction.ts';
import { readStream } from './reads.ts';
import { sagaOf, type ReactionDeps, type Saga } from './runner.ts';

type Ended = Stored<'TransferCompleted'> | Stored<'TransferFailed'>;

/** The transfer as its stream holds it now, published once per kind. */
const published: Step<Ended, Transfer> = {
  reads: event => readStream(transferStream(event.data.transferId), transfer),
  decide(event, state) {
    if (state.status === 'NONE' || state.status === 'VALIDATED') return [];
    const type = event.type === 'TransferCompleted' ? 'transfer.completed' : 'transfer.failed';
    return [
      publishWebhook({
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
          ...(state.destination
            ? {
                destination: {
                  instId: state.destination.instId,
                  instLocalName: state.destination.instLocalName,
                  accountNumber: state.destination.accountNumber,
                  accountName: state.destination.accountName,
                },
              }
            : {}),
          ...(state.qris ? { merchantName: state.qris.merchantName, tip: state.qris.tip } : {}),
          ...(state.reason && state.status === 'FAILED' ? { reason: state.reason } : {}),
          submittedAt: state.submittedAt,
        },
      }),
    ];
  },
};

/** `transfer.completed` and `transfer.failed` for every endpoint of the wallet's owner, once each. */
export const transferWebhooks = reaction('transfer-webhooks', {
  TransferCompleted: published,
  TransferFailed: published,
});

/** The reaction as the runner runs it. */
export const transferWebhooksSaga = (deps: ReactionDeps): Saga => sagaOf(transferWebhooks, deps);
