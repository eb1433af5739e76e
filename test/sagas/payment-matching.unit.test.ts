import { describe, it } from 'vitest';
import { accountStream } from '../../src/domain/account.ts';
import { suspense, suspenseStream } from '../../src/domain/gateway-suspense.ts';
import { holdingAccounts, holdingAccountsStream } from '../../src/domain/holding-accounts.ts';
import { payment, paymentStream } from '../../src/domain/payments.ts';
import { MutationRecorded } from '../../src/events/account.ts';
import { HoldingAccountMarked } from '../../src/events/holding-accounts.ts';
import { PaymentCreated, PaymentExpired, type PaymentEvent } from '../../src/events/payments.ts';
import {
  completion,
  credited,
  paymentMatching,
  transferCredit,
  transferDebit,
  unclaimed,
} from '../../src/sagas/payment-matching.ts';
import { holdingTransfers, holdingTransfersStream } from '../../src/domain/holding-transfers.ts';
import { HoldingTransferRecorded } from '../../src/events/holding-transfers.ts';
import { command, followUp, next } from '../../src/sagas/reaction.ts';
import { payableClaim, payableClaimStream } from '../../src/domain/payments-payable-claims.ts';
import { receiving, receivingStream, type Payable } from '../../src/domain/payments-receiving.ts';
import { readPayable, readStream } from '../../src/sagas/reads.ts';
import { reactionSpecification, stepSpecification, stored, t0 } from './reaction-specification.ts';
import {
  accountId,
  mutationId,
  ownerId,
  paymentCompleted,
  paymentDetails,
  paymentId,
} from '../support/payment-fixtures.ts';

const otherMutationId = '8c2e3f40-5162-4374-a586-97a8b9c0d1e2';
const adminId = '9d3f4051-6273-4485-b697-a8b9c0d1e2f3';
const occurredAt = '2026-03-02T03:10:00.000Z';
const mutation = (fields: { type?: 'CREDIT' | 'DEBIT'; providerTransactionId?: string; occurredAt?: string } = {}) =>
  MutationRecorded({
    accountId,
    mutationId,
    providerTransactionId: fields.providerTransactionId ?? 'TX1',
    type: fields.type ?? 'CREDIT',
    amount: 50_007,
    description: 'QRIS',
    senderName: 'Budi Santoso',
    reference: null,
    occurredAt: fields.occurredAt ?? occurredAt,
    recordedAt: '2026-03-02T03:11:00.000Z',
  });
const cause = `${accountStream(accountId)}@4`;
const credit = mutation().data;
const at = { streamId: accountStream(accountId), revision: 4 };

const details = paymentDetails();
const matched: Payable = {
  paymentId,
  uniqueCode: 7,
  totalAmount: 50_007,
  vaNumber: null,
  expiresAt: details.expiresAt,
};
const completedBy = (id: string) => paymentCompleted({ paidAt: occurredAt, completedAt: t0.toISOString() }, id);
/** What handleCommand answers after CompletePayment: the payment as its stream holds it then. */
const outcome = (history: PaymentEvent[]) => ({
  state: history.reduce(payment.evolve, payment.initialState()),
  events: [],
  position: null,
  revision: history.length - 1,
});
const marked = (markedAt: string) =>
  HoldingAccountMarked({ accountId, providerCode: 'WALLET-D', methods: ['QRIS-DYNAMIC'], markedBy: adminId, markedAt });

describe('payment matching reaction', () => {
  const { given } = reactionSpecification(paymentMatching);

  it('looks for the payable of a customer credit', () =>
    given([])
      .when(stored(mutation(), at))
      .then([next(credited, { credit, cause })]));

  it("looks for the hand transfer a debit is the source side of; passes the service's own transfers and a failed one given back by", () => {
    const debit = mutation({ type: 'DEBIT' });
    given([])
      .when(stored(debit, at))
      .then([next(transferDebit, { credit: debit.data, cause })]);
    given([])
      .when(stored(MutationRecorded({ ...debit.data, reference: otherMutationId }), at))
      .then([]);
    given([])
      .when(stored(mutation({ providerTransactionId: 'transfer-reversal:abc' }), at))
      .then([]);
  });
});

describe('a credit looking for its payable', () => {
  const { givenState } = stepSpecification(credited);

  it('reads the payable the credit pays on its account', () =>
    givenState(null).when({ credit, cause }).reads(readPayable(accountId, credit)));

  it('completes the payment of the payable it pays, with event ids derived from the credit, then looks at the outcome', () =>
    givenState(matched)
      .when({ credit, cause })
      .then([
        command(
          paymentStream(paymentId),
          payment,
          { type: 'CompletePayment', mutationId, paidAt: new Date(occurredAt), now: t0 },
          {
            actor: 'system:payment-matching',
            now: t0,
            causationId: cause,
            correlationId: paymentId,
            eventIds: { saga: 'payment-matching', cause },
          },
          followUp(completion, { credit, cause, matched }),
        ),
      ]));

  it('is unclaimed when it pays no payable', () =>
    givenState(null)
      .when({ credit, cause })
      .then([next(unclaimed, { credit, cause })]));
});

describe('the payment a credit completed', () => {
  const { given } = stepSpecification(completion);

  const releasedBy = { actor: 'system:payment-matching', now: t0, causationId: cause, correlationId: paymentId };

  it('completed by this credit: frees the claim on its total of a unique-code bill, without derived event ids', () =>
    given([])
      .when({ credit, cause, matched, outcome: outcome([PaymentCreated(details), completedBy(mutationId)]) })
      .then([
        command(
          payableClaimStream(accountId, 50_007),
          payableClaim,
          { type: 'ReleaseTotal', accountId, paymentId, reason: 'completed', now: t0 },
          releasedBy,
        ),
      ]));

  it("completed by this credit: frees a virtual account's number on the receiving stream", () => {
    const va = { ...matched, uniqueCode: 0, totalAmount: 50_007, vaNumber: '8881000000000001' };
    given([])
      .when({ credit, cause, matched: va, outcome: outcome([PaymentCreated(details), completedBy(mutationId)]) })
      .then([
        command(
          receivingStream(accountId),
          receiving,
          { type: 'ReleasePayable', paymentId, reason: 'completed', now: t0 },
          releasedBy,
        ),
      ]);
  });

  it('expired or paid by another credit meanwhile: the credit is unclaimed', () => {
    given([])
      .when({ credit, cause, matched, outcome: outcome([PaymentCreated(details), completedBy(otherMutationId)]) })
      .then([next(unclaimed, { credit, cause })]);
    const expired = PaymentExpired({ paymentId, ownerId, receivingAccountId: accountId, expiredAt: details.expiresAt });
    given([])
      .when({ credit, cause, matched, outcome: outcome([PaymentCreated(details), expired]) })
      .then([next(unclaimed, { credit, cause })]);
  });
});

describe('an unclaimed credit', () => {
  const { given } = stepSpecification(unclaimed);

  it('reads the holding accounts', () =>
    given([]).when({ credit, cause }).reads(readStream(holdingAccountsStream, holdingAccounts)));

  it('looks for a hand transfer waiting for it, knowing whether it came into a holding account since it was marked', () => {
    const holding = {
      accountId,
      providerCode: 'WALLET-D',
      methods: ['QRIS-DYNAMIC' as const],
      markedAt: '2026-03-01T00:00:00.000Z',
    };
    given([marked(holding.markedAt)])
      .when({ credit, cause })
      .then([next(transferCredit, { credit, cause, holding })]);
    given([])
      .when({ credit, cause })
      .then([next(transferCredit, { credit, cause, holding: null })]);
    given([marked('2026-03-02T03:10:00.001Z')])
      .when({ credit, cause })
      .then([next(transferCredit, { credit, cause, holding: null })]);
  });
});

describe('a credit no payment claimed', () => {
  const { given } = stepSpecification(transferCredit);
  const holding = {
    accountId,
    providerCode: 'WALLET-D',
    methods: ['QRIS-DYNAMIC' as const],
    markedAt: '2026-03-01T00:00:00.000Z',
  };
  const transferId = '7b1d2e3f-4051-4263-9475-a6b7c8d9e0f1';
  const recorded = (toAccountId: string, amount: number) =>
    HoldingTransferRecorded({
      transferId,
      fromAccountId: otherMutationId,
      toAccountId,
      amount,
      reference: 'HAND-1',
      note: null,
      recordedBy: adminId,
      recordedAt: '2026-03-02T03:00:00.000Z',
      postings: [
        { account: `holding:${toAccountId}`, amount },
        { account: `holding:${otherMutationId}`, amount: -amount },
      ],
    });

  it('reads the hand transfers', () =>
    given([]).when({ credit, cause, holding }).reads(readStream(holdingTransfersStream, holdingTransfers)));

  it('is the CREDIT side of a hand transfer of its amount into its account: matched, not suspense', () =>
    given([recorded(accountId, 50_007)])
      .when({ credit, cause, holding })
      .then([
        command(
          holdingTransfersStream,
          holdingTransfers,
          {
            type: 'MatchHoldingTransferMutation',
            mutation: { mutationId, accountId, side: 'CREDIT', amount: 50_007, occurredAt },
          },
          {
            actor: 'system:payment-matching',
            now: t0,
            causationId: cause,
            correlationId: mutationId,
            eventIds: { saga: 'payment-matching-transfer', cause },
          },
        ),
      ]));

  it('into a holding account otherwise goes to suspense, once per mutation (event ids derived from the credit)', () =>
    given([recorded(accountId, 50_000)])
      .when({ credit, cause, holding })
      .then([
        command(
          suspenseStream,
          suspense,
          {
            type: 'ReceiveSuspenseCredit',
            mutationId,
            accountId,
            providerCode: 'WALLET-D',
            amount: 50_007,
            senderName: 'Budi Santoso',
            reference: null,
            receivedAt: new Date(occurredAt),
          },
          {
            actor: 'system:payment-matching',
            now: t0,
            causationId: cause,
            correlationId: mutationId,
            eventIds: { saga: 'payment-matching-suspense', cause },
          },
        ),
      ]));

  it("stays the owner's own: an account that holds no gateway money, or a credit from before it was marked", () =>
    given([]).when({ credit, cause, holding: null }).then([]));
});
