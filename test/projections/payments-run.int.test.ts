import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/db/pool.ts';
import type { AnyEvent } from '../../src/events/all.ts';
import type { StoredEvent } from '../../src/events/event.ts';
import { PaymentCreated } from '../../src/events/payments.ts';
import { applyEvents, asOneStatement } from '../../src/projections/projection.ts';
import { checkpointSchema, readCheckpoint, saveCheckpointWith } from '../../src/store/checkpoints.ts';
import { paymentsProjection } from '../../src/projections/payments.ts';
import { freshPool } from '../support/database.ts';
import { nextUuid } from '../support/ids.ts';

const at = (minutes: number) => new Date(Date.UTC(2026, 10, 2, 3, minutes)).toISOString();

const created = fc
  .record({
    amount: fc.integer({ min: 1, max: 100_000_000 }),
    uniqueCode: fc.option(fc.integer({ min: 0, max: 999 })),
    qr: fc.boolean(),
    orderId: fc.string({ minLength: 1, maxLength: 20 }),
    minutes: fc.integer({ min: 0, max: 59 }),
  })
  .map(({ amount, uniqueCode, qr, orderId, minutes }): StoredEvent<AnyEvent> => {
    const e = PaymentCreated({
      paymentId: nextUuid(),
      ownerId: nextUuid(),
      orderId,
      receivingAccountId: nextUuid(),
      providerCode: qr ? 'WALLET-D' : 'WALLET-A',
      type: uniqueCode === null ? null : qr ? 'QRIS-DYNAMIC' : 'DIRECT',
      methodSelection: uniqueCode === null ? 'payer' : 'fixed',
      amount,
      uniqueCode,
      totalAmount: uniqueCode === null ? null : amount + uniqueCode,
      accountNumber: qr ? null : '081234567890',
      qrisPayload: qr && uniqueCode !== null ? '000201010212...' : null,
      redirectUrl: 'https://shop.example/done?a=1&b="x"',
      expiresAt: at(minutes + 60),
      createdAt: at(minutes),
      requestHash: 'h',
      gateway: null,
    });
    return {
      ...e,
      metadata: {
        eventId: nextUuid(),
        correlationId: nextUuid(),
        causationId: null,
        actor: 'test',
        occurredAt: at(minutes),
      },
      streamId: `payment-${e.data.paymentId}`,
      revision: 0,
      position: { commit: 1n, prepare: 1n },
    };
  });

describe('payments read model, a run of PaymentCreated in one statement', () => {
  it('leaves exactly the rows that applying the events one by one leaves', async () => {
    const pool = await freshPool();
    for (const step of paymentsProjection.schema) await pool.query(step);
    const rows = async (events: StoredEvent<AnyEvent>[], together: boolean) =>
      inTransaction(pool, async tx => {
        await tx.query('delete from payments');
        if (together) await applyEvents(tx, paymentsProjection, events);
        else for (const e of events) await paymentsProjection.apply(tx, e);
        return (await tx.query<{ row: string }>('select p::text as row from payments p order by id')).rows.map(
          r => r.row,
        );
      });
    await fc.assert(
      fc.asyncProperty(fc.array(created, { minLength: 2, maxLength: 30 }), async events => {
        const withReplay = [...events, events[0]!]; // a re-delivered event changes nothing
        expect(await rows(withReplay, true)).toEqual(await rows(withReplay, false));
      }),
      { numRuns: 20 },
    );
    await pool.end();
  });

  it('writes a batch that is one run and its checkpoint in one statement, with the rows of one-by-one apply', async () => {
    const pool = await freshPool();
    for (const step of paymentsProjection.schema) await pool.query(step);
    await pool.query(checkpointSchema);
    await fc.assert(
      fc.asyncProperty(
        fc.array(created, { minLength: 1, maxLength: 30 }),
        fc.bigInt({ min: 1n, max: 1n << 40n }),
        async (events, commit) => {
          await pool.query('delete from payments');
          const statement = asOneStatement(paymentsProjection, events);
          expect(statement).not.toBeNull();
          await saveCheckpointWith(pool, statement!, 'projection:test', { commit, prepare: 7n });
          const together = (
            await pool.query<{ row: string }>('select p::text as row from payments p order by id')
          ).rows.map(r => r.row);
          const oneByOne = await inTransaction(pool, async tx => {
            await tx.query('delete from payments');
            for (const e of events) await paymentsProjection.apply(tx, e);
            return (await tx.query<{ row: string }>('select p::text as row from payments p order by id')).rows.map(
              r => r.row,
            );
          });
          expect(together).toEqual(oneByOne);
          expect(await readCheckpoint(pool, 'projection:test')).toEqual({ commit, prepare: 7n });
        },
      ),
      { numRuns: 15 },
    );
    expect(asOneStatement(paymentsProjection, [])).toBeNull();
    await pool.end();
  });
});
