import { describe, it } from 'vitest';
import { AccountLinked, MutationRecorded } from '../../src/events/account.ts';
import { AccountDeleted } from '../../src/events/user.ts';
import { listMutations, mutationsProjection } from '../../src/projections/mutations.ts';
import { accountId, mutationId, ownerId, paymentCompleted, paymentId } from '../support/payment-fixtures.ts';
import { projectionSpec } from '../support/projection-spec.ts';

const sealed = { iv: 'i', tag: 't', data: 'd' };
const linked = AccountLinked({
  accountId,
  ownerId,
  type: 'ewallet',
  providerCode: 'WALLET-D',
  accountName: 'Shop',
  accountNumber: null,
  phoneNumber: '081234567890',
  holderName: 'BUDI',
  intervalMinutes: 5,
  credentials: sealed,
  session: sealed,
  isActive: true,
  linkedAt: '2026-03-02T02:00:00.000Z',
});
const credit = (id: string, amount: number, occurredAt: string, providerTransactionId = id.slice(-4)) =>
  MutationRecorded({
    accountId,
    mutationId: id,
    providerTransactionId,
    type: 'CREDIT',
    amount,
    description: 'QRIS payment',
    senderName: 'SITI',
    reference: null,
    occurredAt,
    recordedAt: '2026-03-02T03:11:00.000Z',
  });
const paid = credit(mutationId, 50_007, '2026-03-02T03:10:00.000Z');
const secondId = '7b1d2e3f-4051-4263-9475-8697a8b9c0d2';

const mutations = `select id, account_type, owner_id, type, amount, sender_name, status, created_at from mutations`;

describe('mutations read model', () => {
  const spec = projectionSpec(mutationsProjection);

  it('records a credit of a linked account with its owner and account type', () =>
    spec
      .given([linked])
      .when([paid])
      .then(mutations, [
        {
          id: mutationId,
          account_type: 'ewallet',
          owner_id: ownerId,
          type: 'CREDIT',
          amount: 50_007,
          sender_name: 'SITI',
          status: 'SUCCESS',
          created_at: new Date('2026-03-02T03:10:00.000Z'),
        },
      ]));

  it('records nothing of an account it was not told of', () => spec.given([]).when([paid]).then(mutations, []));

  it('records a provider transaction once, whatever id a second recording gives it', () =>
    spec
      .given([linked, paid])
      .when([credit(secondId, 50_007, '2026-03-02T03:10:00.000Z', paid.data.providerTransactionId)])
      .then(`select id from mutations`, [{ id: mutationId }]));

  it('names the payment a credit completed on it', () =>
    spec
      .given([linked, paid])
      .when([paymentCompleted({ paidAt: '2026-03-02T03:10:00.000Z', completedAt: '2026-03-02T03:10:05.000Z' })])
      .then(`select payment from mutations`, [
        {
          payment: {
            id: paymentId,
            orderId: 'INV-1',
            type: 'QRIS-DYNAMIC',
            amount: 50_000,
            totalAmount: 50_007,
            status: 'COMPLETED',
            completedAt: '2026-03-02T03:10:05.000Z',
          },
        },
      ]));

  it('forgets a deleted account and its mutations', () =>
    spec
      .given([linked, paid])
      .when([AccountDeleted({ userId: ownerId, accountId, deletedAt: '2026-03-02T05:00:00.000Z' })])
      .then(
        `select (select count(*) from mutations) as mutations, (select count(*) from mutation_accounts) as accounts`,
        [{ mutations: 0, accounts: 0 }],
      ));

  it("lists the owner's credits newest first, filtered by amount", () =>
    spec
      .given([linked, paid])
      .when([credit(secondId, 10_000, '2026-03-02T03:20:00.000Z')])
      .then(
        async db => {
          const all = await listMutations(db, { ownerId, page: 1, limit: 10 });
          const small = await listMutations(db, { ownerId, maxAmount: 20_000, page: 1, limit: 10 });
          return { all: all.rows.map(r => r.id), small: small.rows.map(r => r.id), total: all.total };
        },
        { all: [secondId, mutationId], small: [secondId], total: 2 },
      ));
});
