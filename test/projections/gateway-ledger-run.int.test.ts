import { fc } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { gatewayLedger, type GatewayLedger } from '../../src/domain/gateway-ledger.ts';
import { inTransaction, type Queryable } from '../../src/db/pool.ts';
import type { AnyEvent } from '../../src/events/all.ts';
import type { StoredEvent } from '../../src/events/event.ts';
import type { GatewayLedgerEvent } from '../../src/events/gateway.ts';
import { gatewayLedgerProjection } from '../../src/projections/gateway-ledger.ts';
import { asOneStatement } from '../../src/projections/projection.ts';
import { checkpointSchema, readCheckpoint, saveCheckpointWith } from '../../src/store/checkpoints.ts';
import { freshPool } from '../support/database.ts';
import { nextUuid } from '../support/ids.ts';

const thursday = Date.parse('2026-11-26T03:00:00.000Z');

/** Each merchant's credits (nets from `nets`, a minute apart), then its settlement at the cutoff, as the decider makes them. */
function ledgerEvents(merchants: number[][], cutoffMinutes: number) {
  const credited: StoredEvent<AnyEvent>[] = [];
  const settled: StoredEvent<AnyEvent>[] = [];
  let commit = 1n;
  const stored = (e: GatewayLedgerEvent, merchantId: string, revision: number): StoredEvent<AnyEvent> =>
    ({
      ...e,
      metadata: {
        eventId: nextUuid(),
        correlationId: nextUuid(),
        causationId: null,
        actor: 'test',
        occurredAt: new Date(thursday).toISOString(),
      },
      streamId: `gateway-${merchantId}`,
      revision,
      position: { commit: commit++, prepare: 1n },
    }) as StoredEvent<AnyEvent>;
  for (const nets of merchants) {
    const merchantId = nextUuid();
    let state: GatewayLedger = gatewayLedger.initialState();
    let revision = 0;
    const decide = (command: Parameters<typeof gatewayLedger.decide>[1], into: StoredEvent<AnyEvent>[]) => {
      for (const e of gatewayLedger.decide(state, command)) {
        state = gatewayLedger.evolve(state, e);
        into.push(stored(e, merchantId, revision++));
      }
    };
    nets.forEach((net, i) => {
      const completedAt = new Date(thursday + i * 60_000);
      decide(
        {
          type: 'CreditGatewayPayment',
          merchantId,
          paymentId: nextUuid(),
          holdingAccountId: 'h1',
          totalAmount: net + 550,
          fee: 550,
          uniqueCode: 0,
          completedAt,
          now: completedAt,
        },
        credited,
      );
    });
    decide(
      {
        type: 'SettleDue',
        merchantId,
        cutoff: new Date(thursday + cutoffMinutes * 60_000),
        now: new Date(thursday + 86_400_000),
      },
      settled,
    );
  }
  return { credited, settled };
}

const tables = async (db: Queryable) => {
  const rows: Record<string, string[]> = {};
  for (const t of gatewayLedgerProjection.tables)
    rows[t] = (await db.query<{ row: string }>(`select t::text as row from ${t} t order by 1`)).rows.map(r => r.row);
  return rows;
};

describe('gateway ledger read model, a run of one event type and its checkpoint in one statement', () => {
  it('leaves the rows that applying the events one by one leaves (credits, then settlements)', async () => {
    const pool = await freshPool();
    for (const step of gatewayLedgerProjection.schema) await pool.query(step);
    await pool.query(checkpointSchema);
    const clear = (db: Queryable) => db.query(gatewayLedgerProjection.tables.map(t => `delete from ${t};`).join(''));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.integer({ min: 1, max: 10_000_000 }), { minLength: 1, maxLength: 6 }), {
          minLength: 1,
          maxLength: 5,
        }),
        fc.integer({ min: 0, max: 7 }),
        async (merchants, cutoffMinutes) => {
          const { credited, settled } = ledgerEvents(merchants, cutoffMinutes);
          await clear(pool);
          for (const run of [credited, settled].filter(r => r.length > 0)) {
            const statement = asOneStatement(gatewayLedgerProjection, run);
            expect(statement).not.toBeNull();
            await saveCheckpointWith(pool, statement!, 'projection:test-ledger', run.at(-1)!.position);
          }
          const together = await tables(pool);
          expect(await readCheckpoint(pool, 'projection:test-ledger')).toEqual(
            [...credited, ...settled].at(-1)!.position,
          );
          const oneByOne = await inTransaction(pool, async tx => {
            await clear(tx);
            for (const e of [...credited, ...settled]) await gatewayLedgerProjection.apply(tx, e);
            return tables(tx);
          });
          expect(together).toEqual(oneByOne);
          expect(together.gateway_unsettled).toHaveLength(
            merchants.flat().length - merchants.reduce((n, nets) => n + Math.min(nets.length, cutoffMinutes), 0),
          );
        },
      ),
      { numRuns: 15 },
    );
    await pool.end();
  });
});
