import { describe, it } from 'vitest';
import { account, mutationIdOf } from '../../src/domain/account.ts';
import { transfer } from '../../src/domain/transfer.ts';
import { decideSettlement, type TransferOutcome } from '../../src/domain/transfer-settlement.ts';
import {
  accountId,
  accountLinked,
  accountSynced,
  amount,
  debitGivenBack,
  holdReleased,
  transferCompleted,
  transferDebited,
  transferFailed,
  transferHeld,
  transferId,
  transferMutation,
  transferSubmitted,
  transferUnconfirmed,
} from '../support/account-fixtures.ts';
import { streamsSpecification } from '../support/decider.ts';

const given = streamsSpecification({ transfer, account }, decideSettlement);

const t0 = new Date('2026-03-02T03:00:00.000Z');
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();
const wording = { description: 'Pembayaran QRIS ke Warung Budi', counterparty: 'Warung Budi' };

const submitted = transferSubmitted(iso(0), {
  kind: 'qris',
  qris: { merchantName: 'Warung Budi', payload: '000201', tip: 0 },
});
const unconfirmedId = mutationIdOf(accountId, `transfer:${transferId}`);
const unconfirmed = transferUnconfirmed(unconfirmedId, iso(1));
const refused = transferFailed('refused', null, iso(1));

const wallet = [accountLinked(iso(-10)), accountSynced(iso(-5)), transferHeld(iso(0))];
/** The transfer's mutation of this QRIS payment's wording (or of `words`), `minutes` after it was sent. */
const debitOrCredit = (
  type: 'DEBIT' | 'CREDIT',
  mutationId: string,
  providerTransactionId: string,
  minutes: number,
  words = wording,
) => transferMutation(type, { mutationId, providerTransactionId, ...words }, iso(minutes));
const debitedUnconfirmed = [
  transferDebited(iso(1)),
  debitOrCredit('DEBIT', unconfirmedId, `transfer:${transferId}`, 1),
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
        transfer: [transferCompleted('TX1', mutationId, iso(2))],
        account: [transferDebited(iso(2)), debitOrCredit('DEBIT', mutationId, 'TX1', 2)],
      });
  });

  it('completes an unconfirmed transfer under the mutation it was debited with, debiting nothing again', () => {
    given({ transfer: [submitted, unconfirmed], account: [...wallet, ...debitedUnconfirmed] })
      .when(done)
      .then({
        transfer: [transferCompleted('TX1', unconfirmedId, iso(2))],
        account: [],
      });
  });

  it('changes nothing on a transfer completed already', () => {
    const mutationId = mutationIdOf(accountId, 'TX1');
    given({
      transfer: [submitted, transferCompleted('TX1', mutationId, iso(1))],
      account: [...wallet, transferDebited(iso(1)), debitOrCredit('DEBIT', mutationId, 'TX1', 1)],
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
        transfer: [transferUnconfirmed(unconfirmedId, iso(2))],
        account: [transferDebited(iso(2)), debitOrCredit('DEBIT', unconfirmedId, `transfer:${transferId}`, 2)],
      });
  });

  it('debits nothing for a transfer refused already (its hold was released)', () => {
    given({
      transfer: [submitted, refused],
      account: [...wallet, holdReleased(iso(1))],
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
        transfer: [transferFailed('refused', null, iso(2))],
        account: [holdReleased(iso(2))],
      });
  });

  it('changes nothing on a transfer refused already', () => {
    given({
      transfer: [submitted, refused],
      account: [...wallet, holdReleased(iso(1))],
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
        transfer: [transferFailed('not found', reversalId, iso(2))],
        account: [
          debitGivenBack(iso(2)),
          debitOrCredit('CREDIT', reversalId, `transfer-reversal:${transferId}`, 2, {
            description: 'Pengembalian transfer gagal: not found',
            counterparty: 'WALLET-A',
          }),
        ],
      });
  });
});
