import { describe, expect, it } from 'vitest';
import { account, availableBalance, type LinkedAccount } from '../../src/domain/account.ts';
import {
  AccountLinked,
  AccountSynced,
  BalanceCredited,
  BalanceDebited,
  BalanceHeld,
  BalanceReleased,
  MutationRecorded,
  type AccountEvent,
} from '../../src/events/account.ts';
import { specification } from '../support/decider.ts';

const given = specification(account);
const now = new Date('2026-03-02T03:00:00.000Z');
const at = now.toISOString();
const transferId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
const otherTransferId = '22222222-2222-4222-8222-222222222222';
const accountId = '3c1d2b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const ownerId = '6a0c1d2e-3f40-4152-8364-758697a8b9c0';
const mutationId = '7b1d2e3f-4051-4263-9475-8697a8b9c0d1';
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
  linkedAt: at,
});
const synced = AccountSynced({
  accountId,
  balance: 80_000,
  syncedAt: at,
  slot: null,
  cursor: null,
  trigger: 'refresh',
});
const held = BalanceHeld({ accountId, transferId, amount: 50_000, heldAt: at });
const debited = BalanceDebited({ accountId, transferId, amount: 50_000, debitedAt: at });
const released = BalanceReleased({ accountId, transferId, releasedAt: at });
const mutation = {
  mutationId,
  providerTransactionId: 'TX1',
  description: 'Transfer ke BCA 1234567890',
  counterparty: 'Budi Santoso',
};
const reversal = { ...mutation, providerTransactionId: `transfer-reversal:${transferId}` };
const recorded = (type: 'DEBIT' | 'CREDIT', m: typeof mutation) =>
  MutationRecorded({
    accountId,
    mutationId: m.mutationId,
    providerTransactionId: m.providerTransactionId,
    type,
    amount: 50_000,
    description: m.description,
    senderName: m.counterparty,
    reference: transferId,
    occurredAt: at,
    recordedAt: at,
  });
const credited = BalanceCredited({ accountId, transferId, amount: 50_000, reason: 'transfer-failed', creditedAt: at });
const stateOf = (events: AccountEvent[]) => events.reduce(account.evolve, account.initialState()) as LinkedAccount;

describe('a wallet account: holding for a transfer', () => {
  it('holds a transfer within the balance', () => {
    given([linked, synced]).when({ type: 'HoldForTransfer', transferId, ownerId, amount: 50_000, now }).then([held]);
  });

  it('refuses a hold beyond what the balance and the other holds leave', () => {
    given([linked, synced, held])
      .when({ type: 'HoldForTransfer', transferId: otherTransferId, ownerId, amount: 30_001, now })
      .thenThrows('BALANCE_INSUFFICIENT');
  });

  it('holds a transfer once', () => {
    given([linked, synced, held]).when({ type: 'HoldForTransfer', transferId, ownerId, amount: 50_000, now }).then([]);
  });

  it('holds nothing for a transfer debited already', () => {
    given([linked, synced, held, debited])
      .when({ type: 'HoldForTransfer', transferId, ownerId, amount: 50_000, now })
      .then([]);
  });

  it("answers not-found to another owner's transfer", () => {
    given([linked, synced])
      .when({ type: 'HoldForTransfer', transferId, ownerId: accountId, amount: 1, now })
      .thenThrows('ACCOUNT_NOT_FOUND');
  });

  it('leaves available the balance less what transfers hold', () => {
    expect(availableBalance(stateOf([linked, synced, held]))).toBe(30_000);
  });
});

describe('a wallet account: debiting a transfer', () => {
  it('turns the hold into a debit with its DEBIT mutation', () => {
    given([linked, synced, held])
      .when({ type: 'DebitForTransfer', transferId, amount: 50_000, mutation, now })
      .then([debited, recorded('DEBIT', mutation)]);
  });

  it('debits a transfer once', () => {
    given([linked, synced, held, debited])
      .when({ type: 'DebitForTransfer', transferId, amount: 50_000, mutation, now })
      .then([]);
  });

  it('lowers the balance by the debit and holds nothing more for it', () => {
    expect(stateOf([linked, synced, held, debited])).toMatchObject({ balance: 30_000, held: {} });
  });
});

describe('a wallet account: releasing a hold', () => {
  it('releases the hold of a transfer refused', () => {
    given([linked, synced, held]).when({ type: 'ReleaseTransferHold', transferId, now }).then([released]);
  });

  it('releases nothing that is not held', () => {
    given([linked, synced, held, released]).when({ type: 'ReleaseTransferHold', transferId, now }).then([]);
  });

  it('makes the released amount available again', () => {
    expect(availableBalance(stateOf([linked, synced, held, released]))).toBe(80_000);
  });
});

describe('a wallet account: giving back a failed transfer', () => {
  it('gives a debited transfer back as a CREDIT', () => {
    given([linked, synced, held, debited])
      .when({ type: 'ReverseTransferDebit', transferId, amount: 50_000, mutation: reversal, now })
      .then([credited, recorded('CREDIT', reversal)]);
  });

  it('gives it back once', () => {
    given([linked, synced, held, debited, credited, recorded('CREDIT', reversal)])
      .when({ type: 'ReverseTransferDebit', transferId, amount: 50_000, mutation: reversal, now })
      .then([]);
  });

  it('gives nothing back for a transfer never debited', () => {
    given([linked, synced, held])
      .when({ type: 'ReverseTransferDebit', transferId, amount: 50_000, mutation: reversal, now })
      .then([]);
  });
});

describe('a wallet account: the provider copy of a transfer', () => {
  it("records the provider's copy of a transfer's DEBIT once: a sync skips the transaction carrying its reference", () => {
    const copy = {
      id: 'TX-PROVIDER',
      type: 'DEBIT' as const,
      amount: 50_000,
      description: 'transfer',
      senderName: '',
      reference: transferId,
      occurredAt: at,
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
