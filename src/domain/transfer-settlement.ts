import type { AccountEvent } from '../events/account.ts';
import type { TransferEvent } from '../events/transfer.ts';
import { account, mutationIdOf, type Account, type TransferMutation } from './account.ts';
import { transfer, type Transfer } from './transfer.ts';

/** What the provider said of a submitted transfer (or what its silence means), with what the wallet's mutation reads. */
export type TransferOutcome =
  | { outcome: 'done'; transactionId: string; description: string; counterparty: string; amount: number }
  | { outcome: 'unknown'; reason: string; description: string; counterparty: string; amount: number }
  | { outcome: 'refused'; reason: string }
  | { outcome: 'failed-after-debit'; reason: string; amount: number };

export type SettleTransfer = { transferId: string; accountId: string; outcome: TransferOutcome; now: Date };

/** The two streams a settlement reads and writes: the transfer's and its wallet's. */
export type Settling = { transfer: Transfer; account: Account };
export type Settled = { transfer: TransferEvent[]; account: AccountEvent[] };

/**
 * What becomes of a submitted transfer, on the transfer and its wallet together: done (the hold becomes the debit, its
 * DEBIT mutation under the provider's transaction id), unknown (debited under our own id), refused (the hold released),
 * failed after its debit (the amount given back as a CREDIT). Pure: the ids are derived, the time is the command's.
 */
export function decideSettlement(state: Settling, command: SettleTransfer): Settled {
  const o = command.outcome;
  switch (o.outcome) {
    case 'done':
      return done(state, command, o);
    case 'unknown':
      return unknown(state, command, o);
    case 'refused':
      return {
        transfer: transfer.decide(state.transfer, {
          type: 'FailTransfer',
          reason: o.reason,
          reversalMutationId: null,
          now: command.now,
        }),
        account: account.decide(state.account, {
          type: 'ReleaseTransferHold',
          transferId: command.transferId,
          now: command.now,
        }),
      };
    case 'failed-after-debit':
      return failedAfterDebit(state, command, o);
    default: {
      const never: never = o;
      return never;
    }
  }
}

type OutcomeOf<K extends TransferOutcome['outcome']> = Extract<TransferOutcome, { outcome: K }>;

function done(state: Settling, { transferId, accountId, now }: SettleTransfer, o: OutcomeOf<'done'>): Settled {
  // debited already when it was unconfirmed: its mutation stays, under our id (the provider's copy is skipped by reference)
  const debitedAs = state.transfer.status === 'UNCONFIRMED' ? state.transfer.mutationId : null;
  const mutationId = debitedAs ?? mutationIdOf(accountId, o.transactionId);
  const mutation: TransferMutation = {
    mutationId,
    providerTransactionId: o.transactionId,
    description: o.description,
    counterparty: o.counterparty,
  };
  return {
    transfer: transfer.decide(state.transfer, {
      type: 'CompleteTransfer',
      transactionId: o.transactionId,
      mutationId,
      now,
    }),
    account: debitedAs
      ? []
      : account.decide(state.account, { type: 'DebitForTransfer', transferId, amount: o.amount, mutation, now }),
  };
}

function unknown(state: Settling, { transferId, accountId, now }: SettleTransfer, o: OutcomeOf<'unknown'>): Settled {
  const providerTransactionId = `transfer:${transferId}`;
  const mutationId = mutationIdOf(accountId, providerTransactionId);
  const mutation = { mutationId, providerTransactionId, description: o.description, counterparty: o.counterparty };
  return {
    transfer: transfer.decide(state.transfer, { type: 'MarkTransferUnconfirmed', reason: o.reason, mutationId, now }),
    // only a transfer still waiting for its answer is debited: a refused one's hold was released, nothing to debit
    account:
      state.transfer.status === 'SUBMITTED'
        ? account.decide(state.account, { type: 'DebitForTransfer', transferId, amount: o.amount, mutation, now })
        : [],
  };
}

function failedAfterDebit(
  state: Settling,
  { transferId, accountId, now }: SettleTransfer,
  o: OutcomeOf<'failed-after-debit'>,
): Settled {
  const providerTransactionId = `transfer-reversal:${transferId}`;
  const mutationId = mutationIdOf(accountId, providerTransactionId);
  const mutation = {
    mutationId,
    providerTransactionId,
    description: `Pengembalian transfer gagal: ${o.reason}`,
    counterparty: 'WALLET-A',
  };
  return {
    transfer: transfer.decide(state.transfer, {
      type: 'FailTransfer',
      reason: o.reason,
      reversalMutationId: mutationId,
      now,
    }),
    account: account.decide(state.account, {
      type: 'ReverseTransferDebit',
      transferId,
      amount: o.amount,
      mutation,
      now,
    }),
  };
}
