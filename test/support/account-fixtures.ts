import {
  AccountLinked,
  AccountSynced,
  BalanceCredited,
  BalanceDebited,
  BalanceHeld,
  BalanceReleased,
  MutationRecorded,
} from '../../src/events/account.ts';
import type { EventOf } from '../../src/events/event.ts';
import {
  BankTransferValidated,
  TransferCompleted,
  TransferFailed,
  TransferSubmitted,
  TransferUnconfirmed,
} from '../../src/events/transfer.ts';

/**
 * One WALLET-A e-wallet account and one transfer of 50,000 out of it: the account, transfer and settlement deciders'
 * and the transfer sagas' tests give these events, each at the time a test names and with `fields` it changes.
 */
export const accountId = '3c1d2b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
export const ownerId = '6a0c1d2e-3f40-4152-8364-758697a8b9c0';
export const transferId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
export const mutationId = '7b1d2e3f-4051-4263-9475-8697a8b9c0d1';
export const amount = 50_000;
/** The ids every transfer event carries. */
export const ours = { transferId, accountId, ownerId };

type Data<D> = EventOf<D>['data'];

/** The account linked: an e-wallet syncing hourly, no credentials or session kept. */
export const accountLinked = (linkedAt: string, fields: Partial<Data<typeof AccountLinked>> = {}) =>
  AccountLinked({
    accountId,
    ownerId,
    type: 'ewallet',
    providerCode: 'WALLET-A',
    accountName: 'A',
    accountNumber: null,
    phoneNumber: '0812',
    holderName: null,
    intervalMinutes: 60,
    credentials: null,
    session: null,
    isActive: true,
    linkedAt,
    ...fields,
  });

/** A refresh of the account that found a balance of 80,000 (no slot served, no cursor). */
export const accountSynced = (syncedAt: string, fields: Partial<Data<typeof AccountSynced>> = {}) =>
  AccountSynced({ accountId, balance: 80_000, syncedAt, slot: null, cursor: null, trigger: 'refresh', ...fields });

/** The transfer's amount held on the account, debited, its hold released, or its debit given back. */
export const transferHeld = (heldAt: string) => BalanceHeld({ accountId, transferId, amount, heldAt });
export const transferDebited = (debitedAt: string) => BalanceDebited({ accountId, transferId, amount, debitedAt });
export const holdReleased = (releasedAt: string) => BalanceReleased({ accountId, transferId, releasedAt });
export const debitGivenBack = (creditedAt: string) =>
  BalanceCredited({ accountId, transferId, amount, reason: 'transfer-failed', creditedAt });

/** The transfer's mutation on the account (its DEBIT, or the CREDIT giving it back), its reference the transfer. */
export type TransferMutation = {
  mutationId: string;
  providerTransactionId: string;
  description: string;
  counterparty: string;
};
export const transferMutation = (type: 'DEBIT' | 'CREDIT', m: TransferMutation, at: string) =>
  MutationRecorded({
    accountId,
    mutationId: m.mutationId,
    providerTransactionId: m.providerTransactionId,
    type,
    amount,
    description: m.description,
    senderName: m.counterparty,
    reference: transferId,
    occurredAt: at,
    recordedAt: at,
  });

/** A BCA account the transfer is validated to, and its validation (an index valid until `expiresAt`). */
export const destination = {
  instId: 'BCA',
  instLocalName: 'BCA',
  payMethod: 'BANK',
  payOption: 'TRANSFER',
  accountNumber: '1234567890',
  accountName: 'Budi Santoso',
};
export const bankTransferValidated = (validatedAt: string, expiresAt: string) =>
  BankTransferValidated({ ...ours, destination, amount, validatedAt, expiresAt });

/** The transfer sent: a bank transfer unless `fields` make it a QRIS one. */
export const transferSubmitted = (submittedAt: string, fields: Partial<Data<typeof TransferSubmitted>> = {}) =>
  TransferSubmitted({ ...ours, kind: 'bank', amount, qris: null, requestHash: null, submittedAt, ...fields });

/** Its outcomes: completed under a provider transaction, unconfirmed, or failed (its debit given back or not). */
export const transferCompleted = (transactionId: string, debit: string, completedAt: string) =>
  TransferCompleted({ ...ours, transactionId, mutationId: debit, completedAt });
export const transferUnconfirmed = (debit: string, unconfirmedAt: string) =>
  TransferUnconfirmed({ ...ours, reason: 'timeout', mutationId: debit, unconfirmedAt });
export const transferFailed = (reason: string, reversalMutationId: string | null, failedAt: string) =>
  TransferFailed({ ...ours, reason, reversalMutationId, failedAt });
