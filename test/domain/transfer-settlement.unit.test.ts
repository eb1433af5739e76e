import { describe, it } from 'vitest';
import { account, mutationIdOf } from '../../src/domain/account.ts';
import { transfer } from '../../src/domain/transfer.ts';
import { decideSettlement, type TransferOutcome } from '../../src/domain/transfer-settlement.ts';
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
  TransferCompleted,
  TransferFailed,
  TransferSubmitted,
  TransferUnconfirmed,
} from '../../src/events/transfer.ts';
import { streamsSpecification } from '../support/decider.ts';

const given = streamsSpecification({ transfer, account }, decideSettlement);

const t0 = new Date('2026-03-02T03:00:00.000Z');
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();
const transferId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
const accountId = '3c1d2b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const ownerId = '6a0c1d2e-3f40-4152-8364-758697a8b9c0';
const amount = 50_000;
const wording = { description: 'Pembayaran QRIS ke Warung Budi', counterparty: 'Warung Budi' };

const ours = { transferId, accountId, ownerId };
const submitted = TransferSubmitted({
  ...ours,
  kind: 'qris',
  amount,
  qris: { merchantName: 'Warung Budi', payload: '000201', tip: 0 },
  requestHash: null,
  submittedAt: iso(0),
});
const unconfirmedId = mutationIdOf(accountId, `transfer:${transferId}`);
const unconfirmed = TransferUnconfirmed({
  ...ours,
  reason: 'timeout',
  mutationId: unconfirmedId,
  unconfirmedAt: iso(1),
});
const refused = TransferFailed({ ...ours, reason: 'refused', reversalMutationId: null, failedAt: iso(1) });

const wallet = [
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
    linkedAt: iso(-10),
  }),
  AccountSynced({ accountId, balance: 80_000, syncedAt: iso(-5), slot: null, cursor: null, trigger: 'refresh' }),
  BalanceHeld({ accountId, transferId, amount, heldAt: iso(0) }),
];
const transferMutation = (
  type: 'DEBIT' | 'CREDIT',
  mutationId: string,
  providerTransactionId: string,
  minutes: number,
  words = wording,
) =>
  MutationRecorded({
    accountId,
    mutationId,
    providerTransactionId,
    type,
    amount,
    description: words.description,
    senderName: words.counterparty,
    reference: transferId,
    occurredAt: iso(minutes),
    recordedAt: iso(minutes),
  });
const debitedUnconfirmed = [
  BalanceDebited({ accountId, transferId, amount, debitedAt: iso(1) }),
  transferMutation('DEBIT', unconfirmedId, `transfer:${transferId}`, 1),
];

const settle = (outcome: TransferOutcome, minutes = 2) => ({ transferId, accountId, outcome, now: at(minutes) });
const done = settle({ outcome: 'done', transactionId: 'TX1', amount, ...wording });
const unknown = settle({ outcome: 'unknown', reason: 'timeout', amount, ...wording });
const refusal = settle({ outcome: 'refused', reason: 'refused' });
const failedAfterDebit = settle({ outcome: 'failed-after-debit', reason: 'not found', amount });

describe('settling a transfer: done', () => {
  it('completes a submitted transfer and turns its hold into the debit, its DEBIT under the provider transaction', () => {
    const mutationId = mutationIdOf(accountId, 'TX1');
    given({ transfer: [submitted], account: wallet })
      .when(done)
      .then({
        transfer: [TransferCompleted({ ...ours, transactionId: 'TX1', mutationId, completedAt: iso(2) })],
        account: [
          BalanceDebited({ accountId, transferId, amount, debitedAt: iso(2) }),
          transferMutation('DEBIT', mutationId, 'TX1', 2),
        ],
      });
  });

  it('completes an unconfirmed transfer under the mutation it was debited with, debiting nothing again', () => {
    given({ transfer: [submitted, unconfirmed], account: [...wallet, ...debitedUnconfirmed] })
      .when(done)
      .then({
        transfer: [
          TransferCompleted({ ...ours, transactionId: 'TX1', mutationId: unconfirmedId, completedAt: iso(2) }),
        ],
        account: [],
      });
  });

  it('changes nothing on a transfer completed already', () => {
    const mutationId = mutationIdOf(accountId, 'TX1');
    given({
      transfer: [submitted, TransferCompleted({ ...ours, transactionId: 'TX1', mutationId, completedAt: iso(1) })],
      account: [
        ...wallet,
        BalanceDebited({ accountId, transferId, amount, debitedAt: iso(1) }),
        transferMutation('DEBIT', mutationId, 'TX1', 1),
      ],
    })
      .when(done)
      .then({ transfer: [], account: [] });
  });
});

describe('settling a transfer: unknown', () => {
  it('marks a submitted transfer unconfirmed and debits it under our own transaction id', () => {
    given({ transfer: [submitted], account: wallet })
      .when(unknown)
      .then({
        transfer: [
          TransferUnconfirmed({ ...ours, reason: 'timeout', mutationId: unconfirmedId, unconfirmedAt: iso(2) }),
        ],
        account: [
          BalanceDebited({ accountId, transferId, amount, debitedAt: iso(2) }),
          transferMutation('DEBIT', unconfirmedId, `transfer:${transferId}`, 2),
        ],
      });
  });

  it('debits nothing for a transfer refused already (its hold was released)', () => {
    given({
      transfer: [submitted, refused],
      account: [...wallet, BalanceReleased({ accountId, transferId, releasedAt: iso(1) })],
    })
      .when(unknown)
      .then({ transfer: [], account: [] });
  });
});

describe('settling a transfer: refused', () => {
  it('fails a submitted transfer and releases its hold', () => {
    given({ transfer: [submitted], account: wallet })
      .when(refusal)
      .then({
        transfer: [TransferFailed({ ...ours, reason: 'refused', reversalMutationId: null, failedAt: iso(2) })],
        account: [BalanceReleased({ accountId, transferId, releasedAt: iso(2) })],
      });
  });

  it('changes nothing on a transfer refused already', () => {
    given({
      transfer: [submitted, refused],
      account: [...wallet, BalanceReleased({ accountId, transferId, releasedAt: iso(1) })],
    })
      .when(refusal)
      .then({ transfer: [], account: [] });
  });
});

describe('settling a transfer: failed after its debit', () => {
  it('fails an unconfirmed transfer and gives its debit back as a CREDIT', () => {
    const reversalId = mutationIdOf(accountId, `transfer-reversal:${transferId}`);
    given({ transfer: [submitted, unconfirmed], account: [...wallet, ...debitedUnconfirmed] })
      .when(failedAfterDebit)
      .then({
        transfer: [TransferFailed({ ...ours, reason: 'not found', reversalMutationId: reversalId, failedAt: iso(2) })],
        account: [
          BalanceCredited({ accountId, transferId, amount, reason: 'transfer-failed', creditedAt: iso(2) }),
          transferMutation('CREDIT', reversalId, `transfer-reversal:${transferId}`, 2, {
            description: 'Pengembalian transfer gagal: not found',
            counterparty: 'WALLET-A',
          }),
        ],
      });
  });
});
