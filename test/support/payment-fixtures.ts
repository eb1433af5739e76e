import type { PaymentDetails } from '../../src/domain/payments.ts';
import { PaymentCompleted } from '../../src/events/payments.ts';

/** One QRIS-DYNAMIC payment of 50,000 (unique code 7) into a WALLET-D account: the deciders' and sagas' tests share it. */
export const ownerId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
export const accountId = '3c1d2b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
export const paymentId = '6a0c1d2e-3f40-4152-8364-758697a8b9c0';
export const mutationId = '7b1d2e3f-4051-4263-9475-8697a8b9c0d1';

/** The payment as created at 03:00 on 2 March 2026, pending an hour; `overrides` for what a test changes. */
export const paymentDetails = (overrides: Partial<PaymentDetails> = {}): PaymentDetails => ({
  paymentId,
  ownerId,
  orderId: 'INV-1',
  receivingAccountId: accountId,
  providerCode: 'WALLET-D',
  type: 'QRIS-DYNAMIC',
  methodSelection: 'fixed',
  amount: 50_000,
  uniqueCode: 7,
  totalAmount: 50_007,
  accountNumber: null,
  qrisPayload: 'qr',
  redirectUrl: 'https://shop.example/done',
  expiresAt: '2026-03-02T04:00:00.000Z',
  createdAt: '2026-03-02T03:00:00.000Z',
  requestHash: 'h',
  gateway: null,
  ...overrides,
});

/** Its completion by a credit (`mutationId`), paid and completed at the times given. */
export const paymentCompleted = (times: { paidAt: string; completedAt: string }, credit = mutationId) =>
  PaymentCompleted({
    paymentId,
    ownerId,
    orderId: 'INV-1',
    type: 'QRIS-DYNAMIC',
    amount: 50_000,
    totalAmount: 50_007,
    receivingAccountId: accountId,
    mutationId: credit,
    paidAt: times.paidAt,
    completedAt: times.completedAt,
    gateway: null,
  });
