import { describe, it } from 'vitest';
import { gatewayLedgerStream, ledgerAccount } from '../../src/domain/gateway-ledger.ts';
import { BalanceSettled } from '../../src/events/gateway.ts';
import { deterministicUuid } from '../../src/ids.ts';
import { publishWebhook } from '../../src/sagas/reaction.ts';
import { readCredits } from '../../src/sagas/reads.ts';
import { settlementWebhooks } from '../../src/sagas/settlement-webhooks.ts';
import { reactionSpecification, stored } from './reaction-specification.ts';

const merchantId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
const paymentId = '3c1d2b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const monday = '2026-01-11T17:00:00.000Z';
const settled = stored(
  BalanceSettled({
    merchantId,
    paymentIds: [paymentId],
    amount: 99_100,
    cutoff: monday,
    settledAt: monday,
    postings: [
      { account: ledgerAccount.pending(merchantId), amount: 99_100 },
      { account: ledgerAccount.settled(merchantId), amount: -99_100 },
    ],
  }),
  { streamId: gatewayLedgerStream(merchantId), revision: 3 },
);
// the settlement's id is its BalanceSettled's event id
const settlementId = settled.metadata.eventId;
/** The payment as the read model holds it: credited by an earlier event. */
const credit = {
  kind: 'PAYMENT' as const,
  credit_id: paymentId,
  payment_id: paymentId,
  order_id: 'INV-1',
  gross: 100_000,
  fee: 900,
  net: 99_100,
  paid_at: new Date('2026-01-09T03:00:00.000Z'),
  due_date: null,
};
const projected = { found: 1, gross: 100_000, fee: 900, first: [credit] };

describe('settlement webhooks reaction', () => {
  const { givenState } = reactionSpecification(settlementWebhooks);

  it('reads the payments the event names from the read model, the first 1,000', () =>
    givenState(projected)
      .when(settled)
      .reads(readCredits(merchantId, [paymentId], 1000)));

  it('publishes gateway.settled with the settlement from the event and its payments, under an id derived from the settlement', () =>
    givenState(projected)
      .when(settled)
      .then([
        publishWebhook({
          ownerId: merchantId,
          eventId: deterministicUuid(`webhook:${settlementId}:gateway.settled`),
          type: 'gateway.settled',
          createdAt: monday,
          data: {
            id: settlementId,
            dueDate: '2026-01-12',
            cutoff: monday,
            settledAt: monday,
            paymentCount: 1,
            gross: 100_000,
            fee: 900,
            net: 99_100,
            payments: [
              {
                type: 'PAYMENT',
                paymentId,
                suspenseId: null,
                orderId: 'INV-1',
                gross: 100_000,
                fee: 900,
                net: 99_100,
                paidAt: '2026-01-09T03:00:00.000Z',
                dueDate: '2026-01-12',
                settledAt: monday,
              },
            ],
          },
        }),
      ]));

  it('gives each payment the due day its settlement recorded: a run late after an outage, its payment due days before', () => {
    const wednesday = '2026-01-13T17:00:00.000Z';
    const late = stored(
      BalanceSettled({ ...settled.data, cutoff: wednesday, settledAt: wednesday, dueDates: ['2026-01-12'] }),
      { streamId: gatewayLedgerStream(merchantId), revision: 3 },
    );
    const payment = {
      type: 'PAYMENT' as const,
      paymentId,
      suspenseId: null,
      orderId: 'INV-1',
      gross: 100_000,
      fee: 900,
      net: 99_100,
      paidAt: '2026-01-09T03:00:00.000Z',
      settledAt: wednesday,
    };
    return givenState(projected)
      .when(late)
      .then([
        publishWebhook({
          ownerId: merchantId,
          eventId: deterministicUuid(`webhook:${late.metadata.eventId}:gateway.settled`),
          type: 'gateway.settled',
          createdAt: wednesday,
          data: {
            id: late.metadata.eventId,
            dueDate: '2026-01-14',
            cutoff: wednesday,
            settledAt: wednesday,
            paymentCount: 1,
            gross: 100_000,
            fee: 900,
            net: 99_100,
            payments: [{ ...payment, dueDate: '2026-01-12' }],
          },
        }),
      ]);
  });

  it('cannot decide before the read model holds every payment it names: the runner tries the event again', () =>
    givenState({ found: 0, gross: 0, fee: 0, first: [] })
      .when(settled)
      .thenThrows(`credits of settlement ${settlementId} are not in the read model yet`));
});
