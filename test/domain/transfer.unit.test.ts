import { describe, expect, it } from 'vitest';
import { account, availableBalance, type LinkedAccount } from '../../src/domain/account.ts';
import { transfer } from '../../src/domain/transfer.ts';
import {
  AccountLinked,
  AccountSynced,
  BalanceCredited,
  BalanceDebited,
  BalanceHeld,
  BalanceReleased,
  MutationRecorded,
} from '../../src/events/account.ts';
import {
  BankTransferValidated,
  TransferCompleted,
  TransferFailed,
  TransferSubmitted,
  TransferUnconfirmed,
} from '../../src/events/transfer.ts';
import { specification } from '../support/decider.ts';

const now = new Date('2026-03-02T03:00:00.000Z');
const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
const transferId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
const accountId = '3c1d2b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const ownerId = '6a0c1d2e-3f40-4152-8364-758697a8b9c0';
const mutationId = '7b1d2e3f-4051-4263-9475-8697a8b9c0d1';
const destination = {
  instId: 'BCA',
  instLocalName: 'BCA',
  payMethod: 'BANK',
  payOption: 'TRANSFER',
  accountNumber: '1234567890',
  accountName: 'Budi Santoso',
};
const validated = BankTransferValidated({
  transferId,
  accountId,
  ownerId,
  destination,
  amount: 50_000,
  validatedAt: now.toISOString(),
  expiresAt: at(15).toISOString(),
});
const submit = {
  type: 'SubmitTransfer' as const,
  transferId,
  accountId,
  ownerId,
  kind: 'bank' as const,
  amount: 50_000,
  qris: null,
  requestHash: null,
};
const submitted = TransferSubmitted({
  transferId,
  accountId,
  ownerId,
  kind: 'bank',
  amount: 50_000,
  qris: null,
  requestHash: null,
  submittedAt: at(1).toISOString(),
});

describe('transfer decider', () => {
  const given = specification(transfer);

  it('sends a validated bank transfer of the validated amount', () => {
    given([validated])
      .when({ ...submit, now: at(1) })
      .then([submitted]);
  });

  it('refuses to send a validated transfer twice: its index is used', () => {
    given([validated, submitted])
      .when({ ...submit, now: at(2) })
      .thenThrows('BANK_ACCOUNT_INDEX_INVALID');
  });

  it('refuses an index that expired', () => {
    given([validated])
      .when({ ...submit, now: at(15) })
      .thenThrows('BANK_ACCOUNT_INDEX_INVALID');
  });

  it('refuses an index never validated', () => {
    given([])
      .when({ ...submit, now: at(1) })
      .thenThrows('BANK_ACCOUNT_INDEX_INVALID');
  });

  it('refuses an index validated for another account', () => {
    given([validated])
      .when({ ...submit, accountId: ownerId, now: at(1) })
      .thenThrows('BANK_ACCOUNT_INDEX_INVALID');
  });

  it('refuses an amount other than the validated one', () => {
    given([validated])
      .when({ ...submit, amount: 50_001, now: at(1) })
      .thenThrows('TRANSFER_AMOUNT_MISMATCH');
  });

  describe('sent with an Idempotency-Key', () => {
    const keyed = TransferSubmitted({ ...submitted.data, requestHash: 'h' });

    it('answers the same request again by changing nothing', () => {
      given([validated, keyed])
        .when({ ...submit, requestHash: 'h', now: at(2) })
        .then([]);
    });

    it('refuses another request under the same index', () => {
      given([validated, keyed])
        .when({ ...submit, requestHash: 'other', now: at(2) })
        .thenThrows('BANK_ACCOUNT_INDEX_INVALID');
    });
  });

  describe('once sent', () => {
    const completed = TransferCompleted({
      transferId,
      accountId,
      ownerId,
      transactionId: 'TX1',
      mutationId,
      completedAt: at(2).toISOString(),
    });
    const unconfirmed = TransferUnconfirmed({
      transferId,
      accountId,
      ownerId,
      reason: 'timeout',
      mutationId,
      unconfirmedAt: at(2).toISOString(),
    });

    it('completes with the provider transaction and its mutation', () => {
      given([validated, submitted])
        .when({ type: 'CompleteTransfer', transactionId: 'TX1', mutationId, now: at(2) })
        .then([completed]);
    });

    it('is unconfirmed when the provider does not say', () => {
      given([validated, submitted])
        .when({ type: 'MarkTransferUnconfirmed', reason: 'timeout', mutationId, now: at(2) })
        .then([unconfirmed]);
    });

    it('fails from unconfirmed, with the reversal of its debit', () => {
      given([validated, submitted, unconfirmed])
        .when({ type: 'FailTransfer', reason: 'failed', reversalMutationId: mutationId, now: at(3) })
        .then([
          TransferFailed({
            transferId,
            accountId,
            ownerId,
            reason: 'failed',
            reversalMutationId: mutationId,
            failedAt: at(3).toISOString(),
          }),
        ]);
    });

    it('does not fail once completed', () => {
      given([validated, submitted, completed])
        .when({ type: 'FailTransfer', reason: 'late', reversalMutationId: null, now: at(3) })
        .then([]);
    });

    it('does not complete again once completed', () => {
      given([validated, submitted, completed])
        .when({ type: 'CompleteTransfer', transactionId: 'TX2', mutationId, now: at(3) })
        .then([]);
    });
  });
});

describe('a wallet account and its transfers', () => {
  const given = specification(account);
  const linked = AccountLinked({
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
    linkedAt: now.toISOString(),
  });
  const synced = AccountSynced({
    accountId,
    balance: 80_000,
    syncedAt: now.toISOString(),
    slot: null,
    cursor: null,
    trigger: 'refresh',
  });
  const held = BalanceHeld({ accountId, transferId, amount: 50_000, heldAt: now.toISOString() });
  const mutation = {
    mutationId,
    providerTransactionId: 'TX1',
    description: 'Transfer ke BCA 1234567890',
    counterparty: 'Budi Santoso',
  };
  const stateOf = (events: Parameters<typeof account.evolve>[1][]) =>
    events.reduce(account.evolve, account.initialState()) as LinkedAccount;

  it('holds a transfer within what the balance leaves', () => {
    given([linked, synced]).when({ type: 'HoldForTransfer', transferId, ownerId, amount: 50_000, now }).then([held]);
  });

  it('leaves the balance less the hold available', () => {
    expect(availableBalance(stateOf([linked, synced, held]))).toBe(30_000);
  });

  it('refuses a hold beyond what the balance and the other holds leave', () => {
    given([linked, synced, held])
      .when({ type: 'HoldForTransfer', transferId: mutationId, ownerId, amount: 30_001, now })
      .thenThrows('BALANCE_INSUFFICIENT');
  });

  it('holds a transfer once: holding it again changes nothing', () => {
    given([linked, synced, held]).when({ type: 'HoldForTransfer', transferId, ownerId, amount: 50_000, now }).then([]);
  });

  it("refuses a hold for someone other than the account's owner, as for an unknown account", () => {
    given([linked, synced])
      .when({ type: 'HoldForTransfer', transferId, ownerId: accountId, amount: 1, now })
      .thenThrows('ACCOUNT_NOT_FOUND');
  });

  describe('a held transfer', () => {
    const debited = BalanceDebited({ accountId, transferId, amount: 50_000, debitedAt: now.toISOString() });
    const released = BalanceReleased({ accountId, transferId, releasedAt: now.toISOString() });

    it('becomes a debit with its DEBIT mutation', () => {
      given([linked, synced, held])
        .when({ type: 'DebitForTransfer', transferId, amount: 50_000, mutation, now })
        .then([
          debited,
          MutationRecorded({
            accountId,
            mutationId,
            providerTransactionId: 'TX1',
            type: 'DEBIT',
            amount: 50_000,
            description: mutation.description,
            senderName: 'Budi Santoso',
            reference: transferId,
            occurredAt: now.toISOString(),
            recordedAt: now.toISOString(),
          }),
        ]);
    });

    it('is debited once: debiting it again changes nothing', () => {
      given([linked, synced, held, debited])
        .when({ type: 'DebitForTransfer', transferId, amount: 50_000, mutation, now })
        .then([]);
    });

    it('once debited, leaves the balance less the amount and no hold', () => {
      expect(stateOf([linked, synced, held, debited])).toMatchObject({ balance: 30_000, held: {} });
    });

    it('is released', () => {
      given([linked, synced, held]).when({ type: 'ReleaseTransferHold', transferId, now }).then([released]);
    });

    it('once released, leaves the whole balance available', () => {
      expect(availableBalance(stateOf([linked, synced, held, released]))).toBe(80_000);
    });
  });

  it('gives a failed transfer back once, as a CREDIT', () => {
    const debited = BalanceDebited({ accountId, transferId, amount: 50_000, debitedAt: now.toISOString() });
    const reversal = { ...mutation, providerTransactionId: `transfer-reversal:${transferId}` };
    const events = given([linked, synced, held, debited]);
    events.when({ type: 'ReverseTransferDebit', transferId, amount: 50_000, mutation: reversal, now }).then([
      BalanceCredited({
        accountId,
        transferId,
        amount: 50_000,
        reason: 'transfer-failed',
        creditedAt: now.toISOString(),
      }),
      MutationRecorded({
        accountId,
        mutationId,
        providerTransactionId: reversal.providerTransactionId,
        type: 'CREDIT',
        amount: 50_000,
        description: mutation.description,
        senderName: 'Budi Santoso',
        reference: transferId,
        occurredAt: now.toISOString(),
        recordedAt: now.toISOString(),
      }),
    ]);
    const credited = [
      BalanceCredited({
        accountId,
        transferId,
        amount: 50_000,
        reason: 'transfer-failed',
        creditedAt: now.toISOString(),
      }),
      MutationRecorded({
        accountId,
        mutationId,
        providerTransactionId: reversal.providerTransactionId,
        type: 'CREDIT',
        amount: 50_000,
        description: '',
        senderName: '',
        reference: transferId,
        occurredAt: now.toISOString(),
        recordedAt: now.toISOString(),
      }),
    ];
    given([linked, synced, held, debited, ...credited])
      .when({ type: 'ReverseTransferDebit', transferId, amount: 50_000, mutation: reversal, now })
      .then([]);
  });

  it("records the provider's copy of a transfer's DEBIT once: a sync skips the transaction carrying its reference", () => {
    const debited = BalanceDebited({ accountId, transferId, amount: 50_000, debitedAt: now.toISOString() });
    const copy = {
      id: 'TX-PROVIDER',
      type: 'DEBIT' as const,
      amount: 50_000,
      description: 'transfer',
      senderName: '',
      reference: transferId,
      occurredAt: now.toISOString(),
      mutationId,
    };
    const other = { ...copy, id: 'TX-OTHER', reference: null, mutationId: ownerId };
    const events = account.decide(stateOf([linked, synced, held, debited]), {
      type: 'RecordSync',
      slot: null,
      trigger: 'refresh',
      balance: 30_000,
      transactions: [copy, other],
      now,
    });
    expect(events.filter(e => e.type === 'MutationRecorded').map(e => e.data.providerTransactionId)).toEqual([
      'TX-OTHER',
    ]);
  });
});
