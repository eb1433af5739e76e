import { refuse } from '../errors.ts';
import {
  BankTransferValidated,
  TransferCompleted,
  TransferFailed,
  TransferSubmitted,
  TransferUnconfirmed,
  type TransferEvent,
} from '../events/transfer.ts';
import type { EventOf } from '../events/event.ts';
import type { Decider } from './decider.ts';

export const transferStream = (transferId: string) => `transfer-${transferId}`;

export type BankDestinationChecked = EventOf<typeof BankTransferValidated>['data']['destination'];
type Submitted = Omit<EventOf<typeof TransferSubmitted>['data'], 'submittedAt'>;

/**
 * An outbound transfer: validated (a bank transfer's bankAccountIndexNo, alive 15 minutes), sent (the index used),
 * then completed, unconfirmed (no answer: the amount stays debited) or failed; an unconfirmed one ends completed or
 * failed once the provider says which.
 */
export type Transfer =
  | { status: 'NONE' }
  | {
      status: 'VALIDATED';
      transferId: string;
      accountId: string;
      ownerId: string;
      destination: BankDestinationChecked;
      amount: number;
      expiresAt: string;
    }
  | (Submitted & {
      status: 'SUBMITTED' | 'COMPLETED' | 'UNCONFIRMED' | 'FAILED';
      destination: BankDestinationChecked | null;
      submittedAt: string;
      transactionId: string | null;
      mutationId: string | null;
      reason: string | null;
    });

export type TransferCommand =
  | {
      type: 'ValidateBankTransfer';
      transferId: string;
      accountId: string;
      ownerId: string;
      destination: BankDestinationChecked;
      amount: number;
      expiresAt: Date;
      now: Date;
    }
  | ({ type: 'SubmitTransfer'; now: Date } & Submitted)
  | { type: 'CompleteTransfer'; transactionId: string; mutationId: string; now: Date }
  | { type: 'MarkTransferUnconfirmed'; reason: string; mutationId: string; now: Date }
  | { type: 'FailTransfer'; reason: string; reversalMutationId: string | null; now: Date };

const indexInvalid = (why: string) =>
  refuse('BANK_ACCOUNT_INDEX_INVALID', {
    message: `bankAccountIndexNo missing or expired: ${why}`,
    errors: [{ path: 'body.bankAccountIndexNo', message: why }],
  });

function evolve(state: Transfer, event: TransferEvent): Transfer {
  switch (event.type) {
    case 'BankTransferValidated': {
      const { transferId, accountId, ownerId, destination, amount, expiresAt } = event.data;
      return { status: 'VALIDATED', transferId, accountId, ownerId, destination, amount, expiresAt };
    }
    case 'TransferSubmitted':
      return {
        ...event.data,
        status: 'SUBMITTED',
        destination: state.status === 'VALIDATED' ? state.destination : null,
        transactionId: null,
        mutationId: null,
        reason: null,
      };
    case 'TransferCompleted':
      return state.status === 'NONE' || state.status === 'VALIDATED'
        ? state
        : { ...state, status: 'COMPLETED', transactionId: event.data.transactionId, mutationId: event.data.mutationId };
    case 'TransferUnconfirmed':
      return state.status === 'NONE' || state.status === 'VALIDATED'
        ? state
        : { ...state, status: 'UNCONFIRMED', mutationId: event.data.mutationId, reason: event.data.reason };
    case 'TransferFailed':
      return state.status === 'NONE' || state.status === 'VALIDATED'
        ? state
        : { ...state, status: 'FAILED', reason: event.data.reason };
    default: {
      const never: never = event;
      return never;
    }
  }
}

type Command<T extends TransferCommand['type']> = Extract<TransferCommand, { type: T }>;

/** A bank destination checked once: its index lives until expiresAt. */
function validate(state: Transfer, command: Command<'ValidateBankTransfer'>): TransferEvent[] {
  if (state.status !== 'NONE') return [];
  const { transferId, accountId, ownerId, destination, amount } = command;
  return [
    BankTransferValidated({
      transferId,
      accountId,
      ownerId,
      destination,
      amount,
      validatedAt: command.now.toISOString(),
      expiresAt: command.expiresAt.toISOString(),
    }),
  ];
}

/** Sent once: a bank transfer on its live index for the validated amount, a QR transfer on a fresh stream. */
function submit(state: Transfer, command: Command<'SubmitTransfer'>): TransferEvent[] {
  const at = command.now.toISOString();
  const { type: _type, now: _now, ...submitted } = command;
  if (state.status !== 'NONE' && state.status !== 'VALIDATED') {
    // the same request again (same Idempotency-Key and body) answers what became of it; anything else is refused
    if (submitted.requestHash !== null && state.requestHash === submitted.requestHash) return [];
    if (command.kind === 'qris') throw refuse('IDEMPOTENCY_KEY_REUSED');
    throw indexInvalid('it was used already');
  }
  if (command.kind === 'bank') {
    if (state.status !== 'VALIDATED' || state.accountId !== command.accountId || state.ownerId !== command.ownerId)
      throw indexInvalid('unknown for this account');
    if (at >= state.expiresAt) throw indexInvalid('it expired; validate the destination again (bank-init)');
    if (command.amount !== state.amount)
      throw refuse('TRANSFER_AMOUNT_MISMATCH', {
        message: `The amount must equal the validated amount, ${state.amount}`,
        errors: [{ path: 'body.amount', message: `must be ${state.amount}` }],
      });
  } else if (state.status !== 'NONE') throw indexInvalid('not a QR transfer');
  return [TransferSubmitted({ ...submitted, submittedAt: at })];
}

function decide(state: Transfer, command: TransferCommand): TransferEvent[] {
  const at = command.now.toISOString();
  switch (command.type) {
    case 'ValidateBankTransfer':
      return validate(state, command);
    case 'SubmitTransfer':
      return submit(state, command);
    case 'CompleteTransfer':
      if (state.status !== 'SUBMITTED' && state.status !== 'UNCONFIRMED') return [];
      return [
        TransferCompleted({
          transferId: state.transferId,
          accountId: state.accountId,
          ownerId: state.ownerId,
          transactionId: command.transactionId,
          mutationId: command.mutationId,
          completedAt: at,
        }),
      ];
    case 'MarkTransferUnconfirmed':
      if (state.status !== 'SUBMITTED') return [];
      return [
        TransferUnconfirmed({
          transferId: state.transferId,
          accountId: state.accountId,
          ownerId: state.ownerId,
          reason: command.reason,
          mutationId: command.mutationId,
          unconfirmedAt: at,
        }),
      ];
    case 'FailTransfer':
      if (state.status !== 'SUBMITTED' && state.status !== 'UNCONFIRMED') return [];
      return [
        TransferFailed({
          transferId: state.transferId,
          accountId: state.accountId,
          ownerId: state.ownerId,
          reason: command.reason,
          reversalMutationId: command.reversalMutationId,
          failedAt: at,
        }),
      ];
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const transfer: Decider<Transfer, TransferCommand, TransferEvent> = {
  cached: true,
  initialState: () => ({ status: 'NONE' }),
  evolve,
  decide,
};
