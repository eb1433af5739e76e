import { describe, it } from 'vitest';
import { gatewayLedgerStream, ledgerAccount } from '../../src/domain/gateway-ledger.ts';
import { WithdrawalPaid, WithdrawalRejected } from '../../src/events/gateway.ts';
import { deterministicUuid } from '../../src/ids.ts';
import type { GatewayWithdrawalRow } from '../../src/projections/gateway-ledger.ts';
import { publishWebhook } from '../../src/sagas/reaction.ts';
import { readWithdrawal } from '../../src/sagas/reads.ts';
import { withdrawalWebhooks } from '../../src/sagas/withdrawal-webhooks.ts';
import { reactionSpecification, stored } from './reaction-specification.ts';

const merchantId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
const withdrawalId = '3c1d2b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const adminId = '6a0c1d2e-3f40-4152-8364-758697a8b9c0';
const holdingAccountId = '7b1d2e3f-4051-4263-9475-8697a8b9c0d1';
const onHold = ledgerAccount.onHold(merchantId);
const at = { streamId: gatewayLedgerStream(merchantId), revision: 5 };
const paid = stored(
  WithdrawalPaid({
    merchantId,
    withdrawalId,
    amount: 60_000,
    reference: 'BCA-TRF-1',
    holdingAccountId,
    paidBy: adminId,
    paidAt: '2026-03-02T05:00:00.000Z',
    postings: [
      { account: onHold, amount: 60_000 },
      { account: ledgerAccount.holding(holdingAccountId), amount: -60_000 },
    ],
  }),
  at,
);
const rejected = stored(
  WithdrawalRejected({
    merchantId,
    withdrawalId,
    amount: 60_000,
    note: 'rekening salah',
    rejectedBy: adminId,
    rejectedAt: '2026-03-02T05:00:00.000Z',
    postings: [
      { account: onHold, amount: 60_000 },
      { account: ledgerAccount.settled(merchantId), amount: -60_000 },
    ],
  }),
  at,
);
/** The request as the read model holds it before its outcome is projected. */
const requested: GatewayWithdrawalRow = {
  id: withdrawalId,
  merchant_id: merchantId,
  amount: 60_000,
  bank_code: 'BCA',
  account_number: '1234567890',
  account_holder_name: 'Budi Santoso',
  status: 'REQUESTED',
  requested_by: merchantId,
  requested_at: new Date('2026-03-02T03:00:00.000Z'),
  processed_by: null,
  processed_at: null,
  reference: null,
  note: null,
  checked_holder_name: 'BUDI SANTOSO',
  paid_holder_name: null,
  holder_override: null,
};
const shown = {
  id: withdrawalId,
  amount: 60_000,
  bankCode: 'BCA',
  accountNumber: '1234567890',
  accountHolderName: 'Budi Santoso',
  requestedAt: '2026-03-02T03:00:00.000Z',
  holderName: 'BUDI SANTOSO',
  holderMatches: true,
};

describe('withdrawal webhooks reaction', () => {
  const { givenState } = reactionSpecification(withdrawalWebhooks);

  it('reads the withdrawal from the read model', () => givenState(null).when(paid).reads(readWithdrawal(withdrawalId)));

  it('publishes withdrawal.paid: the request from the read model, the outcome from the event, under an id derived from the withdrawal', () =>
    givenState(requested)
      .when(paid)
      .then([
        publishWebhook({
          ownerId: merchantId,
          eventId: deterministicUuid(`webhook:${withdrawalId}:withdrawal.paid`),
          type: 'withdrawal.paid',
          createdAt: '2026-03-02T05:00:00.000Z',
          data: {
            ...shown,
            status: 'PAID',
            processedAt: '2026-03-02T05:00:00.000Z',
            reference: 'BCA-TRF-1',
            note: null,
          },
        }),
      ]));

  it('publishes withdrawal.rejected with the note', () =>
    givenState(requested)
      .when(rejected)
      .then([
        publishWebhook({
          ownerId: merchantId,
          eventId: deterministicUuid(`webhook:${withdrawalId}:withdrawal.rejected`),
          type: 'withdrawal.rejected',
          createdAt: '2026-03-02T05:00:00.000Z',
          data: {
            ...shown,
            status: 'REJECTED',
            processedAt: '2026-03-02T05:00:00.000Z',
            reference: null,
            note: 'rekening salah',
          },
        }),
      ]));

  it('cannot decide before the read model holds the request: the runner tries the event again', () =>
    givenState(null).when(paid).thenThrows(`withdrawal ${withdrawalId} is not in the read model yet`));
});
