import { describe, it } from 'vitest';
import { PaymentCreated, PaymentExpired, PaymentMethodChosen } from '../../src/events/payments.ts';
import { accountsWithPendingPayments, listPayments, paymentsProjection } from '../../src/projections/payments.ts';
import {
  accountId,
  mutationId,
  ownerId,
  paymentCompleted,
  paymentDetails,
  paymentId,
} from '../support/payment-fixtures.ts';
import { projectionSpec } from '../support/projection-spec.ts';

const created = PaymentCreated(paymentDetails());
const expired = PaymentExpired({
  paymentId,
  ownerId,
  receivingAccountId: accountId,
  expiredAt: '2026-03-02T04:00:00.000Z',
});
const completed = paymentCompleted({ paidAt: '2026-03-02T03:10:00.000Z', completedAt: '2026-03-02T03:10:05.000Z' });
/** A payment whose payer chooses the method: no bill yet. */
const open = PaymentCreated(
  paymentDetails({ type: null, methodSelection: 'payer', uniqueCode: null, totalAmount: null, qrisPayload: null }),
);

const status = `select id, status, mutation_id, paid_at, completed_at, expired_at from payments`;
const bill = `select type, method_selection, unique_code, total_amount, account_number, qris_payload from payments`;

describe('payments read model', () => {
  const spec = projectionSpec(paymentsProjection);

  it('holds a created payment pending, with its bill', () =>
    spec
      .given([])
      .when([created])
      .then(`select status, amount, unique_code, total_amount, expires_at, gateway from payments`, [
        {
          status: 'PENDING',
          amount: 50_000,
          unique_code: 7,
          total_amount: 50_007,
          expires_at: new Date('2026-03-02T04:00:00.000Z'),
          gateway: false,
        },
      ]));

  it('marks a pending payment completed with the credit that paid it and when', () =>
    spec
      .given([created])
      .when([completed])
      .then(status, [
        {
          id: paymentId,
          status: 'COMPLETED',
          mutation_id: mutationId,
          paid_at: new Date('2026-03-02T03:10:00.000Z'),
          completed_at: new Date('2026-03-02T03:10:05.000Z'),
          expired_at: null,
        },
      ]));

  it('marks a pending payment expired when it expired', () =>
    spec
      .given([created])
      .when([expired])
      .then(status, [
        {
          id: paymentId,
          status: 'EXPIRED',
          mutation_id: null,
          paid_at: null,
          completed_at: null,
          expired_at: new Date('2026-03-02T04:00:00.000Z'),
        },
      ]));

  it('keeps an expired payment expired when a completion follows', () =>
    spec
      .given([created, expired])
      .when([completed])
      .then(`select status, mutation_id from payments`, [{ status: 'EXPIRED', mutation_id: null }]));

  it('keeps a completed payment completed when an expiry follows', () =>
    spec
      .given([created, completed])
      .when([expired])
      .then(`select status, expired_at from payments`, [{ status: 'COMPLETED', expired_at: null }]));

  it('bills a payment created without a type once the payer chose the method', () =>
    spec
      .given([open])
      .when([
        PaymentMethodChosen({
          paymentId,
          type: 'VA-BANK1',
          uniqueCode: 0,
          totalAmount: 50_000,
          accountNumber: '8881000000000001',
          qrisPayload: null,
          chosenAt: '2026-03-02T03:01:00.000Z',
          gateway: null,
        }),
      ])
      .then(bill, [
        {
          type: 'VA-BANK1',
          method_selection: 'payer',
          unique_code: 0,
          total_amount: 50_000,
          account_number: '8881000000000001',
          qris_payload: null,
        },
      ]));

  it('holds one row for a creation delivered twice', () =>
    spec
      .given([{ ...created, metadata: { eventId: '00000000-0000-4000-8000-00000000000a' } }])
      .when([{ ...created, metadata: { eventId: '00000000-0000-4000-8000-00000000000a' } }])
      .then(`select id, status from payments`, [{ id: paymentId, status: 'PENDING' }]));

  it("lists a run of creations (one statement) as the owner's payments, newest first", () => {
    const later = PaymentCreated(
      paymentDetails({
        paymentId: '6a0c1d2e-3f40-4152-8364-758697a8b9c1',
        orderId: 'INV-2',
        createdAt: '2026-03-02T03:05:00.000Z',
      }),
    );
    return spec
      .given([])
      .when([created, later])
      .then(
        async db => {
          const { rows, total } = await listPayments(db, { ownerId, page: 1, limit: 10 });
          return { orders: rows.map(r => r.order_id), total };
        },
        { orders: ['INV-2', 'INV-1'], total: 2 },
      );
  });

  it('gives the payment checks the accounts with a billed payment pending, not those only with an unbilled one', () =>
    spec
      .given([
        PaymentCreated(
          paymentDetails({
            ...open.data,
            paymentId: '6a0c1d2e-3f40-4152-8364-758697a8b9c2',
            receivingAccountId: '3c1d2b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5e',
          }),
        ),
      ])
      .when([created])
      .then(
        db => accountsWithPendingPayments(db, new Date('2026-03-02T03:30:00.000Z')),
        [{ id: accountId, newest: new Date('2026-03-02T03:00:00.000Z') }],
      ));

  it('gives the payment checks no account once its pending payment expired by the clock', () =>
    spec
      .given([])
      .when([created])
      .then(db => accountsWithPendingPayments(db, new Date('2026-03-02T04:00:00.000Z')), []));
});
