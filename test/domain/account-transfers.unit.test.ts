import { describe, expect, it } from 'vitest';
import { account, availableBalance, type LinkedAccount } from '../../src/domain/account.ts';
import type { AccountEvent } from '../../src/events/account.ts';
import {
  accountId,
  accountLinked,
  accountSynced,
  debitGivenBack,
  holdReleased,
  mutationId,
  ownerId,
  transferDebited,
  transferHeld,
  transferId,
  transferMutation,
} from '../support/account-fixtures.ts';
import { specification } from '../support/decider.ts';

const given = specification(account);
const now = new Date('2026-03-02T03:00:00.000Z');
const at = now.toISOString();
const otherTransferId = '22222222-2222-4222-8222-222222222222';
const linked = accountLinked(at);
const synced = accountSynced(at);
const held = transferHeld(at);
const debited = transferDebited(at);
const released = holdReleased(at);
const mutation = {
  mutationId,
  providerTransactionId: 'TX1',
  description: 'Transfer ke BCA 1234567890',
  counterparty: 'Budi Santoso',
};
const reversal = { ...mutation, providerTransactionId: `transfer-reversal:${transferId}` };
const recorded = (type: 'DEBIT' | 'CREDIT', m: typeof mutation) => transferMutation(type, m, at);
const credited = debitGivenBack(at);
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
