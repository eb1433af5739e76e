import { fc } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayLedger, gatewayLedgerStream, merchantBalance } from '../../src/domain/gateway-ledger.ts';
import { creditGatewayPayment, settleDue } from '../../src/commands/gateway-ledger.ts';
import { payWithdrawal, rejectWithdrawal, requestWithdrawal } from '../../src/commands/gateway-withdrawals.ts';
import { load, toNewEvents } from '../../src/store/commands/handle.ts';
import { paymentStream } from '../../src/domain/payments.ts';
import { query } from '../../src/db/pool.ts';
import { DomainError } from '../../src/errors.ts';
import { parseRecorded, type StoredEvent } from '../../src/events/event.ts';
import type { AnyEvent } from '../../src/events/all.ts';
import { PaymentCompleted } from '../../src/events/payments.ts';
import {
  findGatewayBalance,
  gatewayLedgerProjection,
  richestHoldingAccount,
} from '../../src/projections/gateway-ledger.ts';
import { rebuildProjection, verifyProjection } from '../../src/projections/runner.ts';
import { gatewayLedgerSaga } from '../../src/sagas/gateway-ledger.ts';
import { nextUuid } from '../support/ids.ts';
import { eventually } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.close();
});

/**
 * The read models first: a reaction that needs one (a settlement's webhook names its credits) retries its event until
 * it is there, a second, then twice as long each time, so on a loaded machine it may take most of a minute. Meanwhile
 * its subscriber is stuck at that event and answers a wait false at once: the wait is asked again until it is through.
 */
const caughtUp = async () => {
  for (let head = await service.store.headPosition(); ;) {
    expect(await service.projections.waitFor(head, 20_000)).toBe(true);
    await eventually(() => service.sagas.waitFor(head, 1_000), 60_000);
    const after = await service.store.headPosition();
    if (after.commit === head.commit && after.prepare === head.prepare) return;
    head = after;
  }
};

/** Every row of the ledger's tables, in a fixed order. */
async function ledgerTables(): Promise<Record<string, unknown[]>> {
  const tables: Record<string, unknown[]> = {};
  for (const table of gatewayLedgerProjection.tables)
    tables[table] = (await query(service.pool, 'LedgerRows', `select * from ${table} t order by t::text`)).rows;
  return tables;
}

/** The read model says what each merchant's stream says: balances, unsettled credits, withdrawals and every posting. */
async function expectReadModelIsTheFold(merchants: string[]) {
  for (const m of merchants) {
    const { state } = await load({ store: service.store }, gatewayLedgerStream(m), gatewayLedger);
    expect(await findGatewayBalance(service.pool, m)).toEqual(merchantBalance(state, m));
    const unsettled = await query<{ payment_id: string; net: number; completed_at: Date }>(
      service.pool,
      'T',
      'select * from gateway_unsettled where merchant_id = $1 order by payment_id',
      [m],
    );
    expect(
      unsettled.rows.map(r => ({ paymentId: r.payment_id, net: r.net, completedAt: r.completed_at.toISOString() })),
    ).toEqual(state.credits.unsettled().sort((a, b) => a.paymentId.localeCompare(b.paymentId)));
    const withdrawals = await query<{ id: string; amount: number; status: string }>(
      service.pool,
      'T',
      'select id, amount, status from gateway_withdrawals where merchant_id = $1',
      [m],
    );
    expect(Object.fromEntries(withdrawals.rows.map(w => [w.id, { amount: w.amount, status: w.status }]))).toEqual(
      Object.fromEntries(
        Object.entries(state.withdrawals).map(([id, w]) => [id, { amount: w.amount, status: w.status }]),
      ),
    );
    const sums = await query<{ account: string; total: number }>(
      service.pool,
      'T',
      'select account, sum(amount)::bigint as total from gateway_postings where merchant_id = $1 group by account',
      [m],
    );
    expect(Object.fromEntries(sums.rows.map(r => [r.account, r.total]))).toEqual(state.balances);
  }
  // the trial balance: every day's postings sum to zero
  const days = await query<{ total: number }>(
    service.pool,
    'T',
    `select sum(amount)::bigint as total from gateway_postings group by date(occurred_at at time zone 'Asia/Jakarta')`,
  );
  for (const day of days.rows) expect(day.total).toBe(0);
}

type Step =
  | { kind: 'credit'; merchant: number; total: number; fee: number; hoursAgo: number }
  | { kind: 'settle'; merchant: number; hoursAgo: number }
  | { kind: 'request'; merchant: number; amount: number }
  | { kind: 'pay' | 'reject'; which: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('credit' as const),
      merchant: fc.nat(2),
      total: fc.integer({ min: 10_000, max: 500_000 }),
      fee: fc.integer({ min: 0, max: 5_000 }),
      hoursAgo: fc.nat(48),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('settle' as const), merchant: fc.nat(2), hoursAgo: fc.nat(24) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('request' as const),
      merchant: fc.nat(2),
      amount: fc.integer({ min: 40_000, max: 400_000 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('pay' as const, 'reject' as const), which: fc.nat(30) }) },
);

describe('gateway ledger read model', () => {
  it('equals the fold of the ledger after any sequence of commands, and a rebuild reproduces it', async () => {
    const admin = nextUuid();
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 25 }), async steps => {
        const merchants = [nextUuid(), nextUuid(), nextUuid()];
        const withdrawals: string[] = [];
        for (const s of steps) {
          service.clock.advance(3_600_000);
          const now = service.clock.now();
          const context = { actor: 'test', now };
          try {
            if (s.kind === 'credit') {
              const completedAt = new Date(now.getTime() - s.hoursAgo * 3_600_000);
              await creditGatewayPayment(
                service.deps,
                {
                  merchantId: merchants[s.merchant]!,
                  paymentId: nextUuid(),
                  holdingAccountId: merchants[(s.merchant + 1) % 3]!,
                  totalAmount: s.total,
                  fee: s.fee,
                  completedAt,
                },
                context,
              );
            } else if (s.kind === 'settle')
              await settleDue(
                service.deps,
                merchants[s.merchant]!,
                new Date(now.getTime() - s.hoursAgo * 3_600_000),
                context,
              );
            else if (s.kind === 'request') {
              const { id, handled } = await requestWithdrawal(
                service.deps,
                merchants[s.merchant]!,
                { amount: s.amount, bankCode: 'BCA', accountNumber: '1234567890', accountHolderName: 'Toko' },
                50_000,
              );
              if (handled.events.length > 0) withdrawals.push(id);
            } else if (withdrawals.length > 0) {
              // the admin routes find the withdrawal's stream in the read model
              await service.projections.waitFor(await service.store.headPosition(), 10_000);
              const id = withdrawals[s.which % withdrawals.length]!;
              // paid from the account with the most cash, as an admin would choose
              const from = { holdingAccountId: (await richestHoldingAccount(service.pool)) ?? merchants[0]! };
              if (s.kind === 'pay') await payWithdrawal({ ...service.deps }, admin, id, `TRF-${id}`, from);
              else await rejectWithdrawal({ ...service.deps }, admin, id, 'no');
            }
          } catch (err) {
            if (!(err instanceof DomainError)) throw err;
            expect(['INSUFFICIENT_BALANCE', 'WITHDRAWAL_BELOW_MINIMUM', 'WITHDRAWAL_NOT_REQUESTED']).toContain(
              err.code,
            );
          }
        }
        await caughtUp();
        await expectReadModelIsTheFold(merchants);
      }),
      { numRuns: 4, endOnFailure: true },
    );

    const live = await ledgerTables();
    expect(live.gateway_postings!.length).toBeGreaterThan(0);
    await service.projections.stop(); // verifying and rebuilding wait for the live projections to let go
    expect(await verifyProjection(service, gatewayLedgerProjection)).toEqual([]);
    await rebuildProjection(service, gatewayLedgerProjection);
    expect(await ledgerTables()).toEqual(live);
    await service.projections.start();
  }, 240_000);

  it('credits a completed gateway payment once, whatever the redeliveries; an ordinary payment not at all', async () => {
    const merchantId = nextUuid();
    const holdingAccountId = nextUuid();
    const completed = (paymentId: string, gateway: { fee: number } | null) =>
      PaymentCompleted({
        paymentId,
        ownerId: merchantId,
        orderId: 'INV-1',
        type: 'QRIS-DYNAMIC',
        amount: 100_000,
        totalAmount: 100_123,
        receivingAccountId: holdingAccountId,
        mutationId: nextUuid(),
        paidAt: service.clock.now().toISOString(),
        completedAt: service.clock.now().toISOString(),
        gateway,
      });
    const gatewayPayment = nextUuid();
    for (const [id, gateway] of [
      [gatewayPayment, { fee: 900 }],
      [nextUuid(), null],
    ] as const)
      await service.store.append(
        paymentStream(id),
        toNewEvents([completed(id, gateway)], { actor: 'test', now: service.clock.now() }),
        'any',
      );
    await caughtUp();
    // 100,000 less its fee of 900; the unique code of 123 is the platform's
    expect(await findGatewayBalance(service.pool, merchantId)).toEqual({
      settled: 0,
      pending: 99_100,
      onHold: 0,
      available: 0,
    });

    // the saga handles the completion again (a redelivery after a crash): nothing more is booked
    const [recorded] = await service.store.readStream(paymentStream(gatewayPayment));
    const saga = gatewayLedgerSaga({ ...service.deps, log: service.deps.log });
    await saga.handle(parseRecorded(recorded!) as StoredEvent<AnyEvent>);
    await caughtUp();
    const { state, revision } = await load({ store: service.store }, gatewayLedgerStream(merchantId), gatewayLedger);
    expect(revision).toBe(0);
    expect(state.balances).toEqual({
      [`holding:${holdingAccountId}`]: 100_123,
      [`merchant:${merchantId}:pending`]: -99_100,
      'platform:fees': -900,
      'platform:unique-codes': -123,
    });
  }, 150_000);
});
