import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { ledgerAccount } from '../../src/domain/gateway-ledger.ts';
import { createPool, query } from '../../src/db/pool.ts';
import type { AnyEvent } from '../../src/events/all.ts';
import type { StoredEvent } from '../../src/events/event.ts';
import {
  BalanceSettled,
  GatewayPaymentCredited,
  WithdrawalPaid,
  WithdrawalRequested,
  type GatewayLedgerEvent,
} from '../../src/events/gateway.ts';
import { applyEvents } from '../../src/projections/projection.ts';
import { projections } from '../../src/projections/all.ts';
import {
  gatewayStatementProjection,
  listStatement,
  statementTypes,
  type StatementFilter,
} from '../../src/projections/gateway-statement.ts';
import { createReadModels } from '../../src/projections/runner.ts';
import { freshDatabaseUrl } from '../support/database.ts';
import { nextUuid } from '../support/ids.ts';

let pool: pg.Pool;
beforeAll(async () => {
  pool = createPool(await freshDatabaseUrl(), 4);
  await createReadModels(pool, projections);
});
afterAll(async () => pool?.end());

const t0 = Date.parse('2026-06-01T00:00:00+07:00');
const hour = 3_600_000;
const holding = nextUuid();

/** A merchant's ledger events: every `n`-th hour a payment, a settlement every 5th entry, a withdrawal requested and paid every 7th. */
function ledger(merchantId: string, count: number, lateAt?: number): StoredEvent<GatewayLedgerEvent>[] {
  const events: GatewayLedgerEvent[] = [];
  for (let n = 0; n < count; n++) {
    // the entry `lateAt` carries a time before the one it follows: recorded late (a credit appended after a settlement)
    const at = new Date(t0 + (n === lateAt ? n - 3 : n) * hour).toISOString();
    if (n % 5 === 4) {
      events.push(
        BalanceSettled({
          merchantId,
          paymentIds: [nextUuid()],
          amount: 1_000,
          cutoff: at,
          settledAt: at,
          postings: [
            { account: ledgerAccount.pending(merchantId), amount: 1_000 },
            { account: ledgerAccount.settled(merchantId), amount: -1_000 },
          ],
        }),
      );
    } else if (n % 7 === 5) {
      const withdrawalId = nextUuid();
      const hold = [
        { account: ledgerAccount.settled(merchantId), amount: 500 },
        { account: ledgerAccount.onHold(merchantId), amount: -500 },
      ];
      events.push(
        WithdrawalRequested({
          merchantId,
          withdrawalId,
          amount: 500,
          bankCode: 'BCA',
          accountNumber: '1',
          accountHolderName: 'A',
          requestedBy: merchantId,
          requestedAt: at,
          postings: hold,
        }),
      );
      n++;
      const paidAt = new Date(t0 + n * hour).toISOString();
      events.push(
        WithdrawalPaid({
          merchantId,
          withdrawalId,
          amount: 500,
          reference: `TRF-${n}`,
          paidBy: holding,
          paidAt,
          postings: [
            { account: ledgerAccount.onHold(merchantId), amount: 500 },
            { account: ledgerAccount.payouts, amount: -500 },
          ],
        }),
      );
    } else {
      events.push(
        GatewayPaymentCredited({
          merchantId,
          paymentId: nextUuid(),
          holdingAccountId: holding,
          totalAmount: 10_900,
          fee: 900,
          net: 10_000,
          completedAt: at,
          postings: [
            { account: ledgerAccount.holding(holding), amount: 10_900 },
            { account: ledgerAccount.pending(merchantId), amount: -10_000 },
            { account: ledgerAccount.fees, amount: -900 },
          ],
        }),
      );
    }
  }
  return events.map((e, revision) => ({
    ...e,
    streamId: `gateway-${merchantId}`,
    revision,
    position: { commit: 1n, prepare: BigInt(revision) },
    metadata: {
      eventId: nextUuid(),
      correlationId: nextUuid(),
      causationId: null,
      actor: 'test',
      occurredAt: new Date(t0).toISOString(),
    },
  })) as StoredEvent<GatewayLedgerEvent>[];
}

/** Projects events in batches of `batch` (runs of one type as one statement, as the live subscriber does). */
async function project(events: StoredEvent<GatewayLedgerEvent>[], batch: number) {
  const client = await pool.connect();
  try {
    for (let i = 0; i < events.length; i += batch)
      await applyEvents(client, gatewayStatementProjection, events.slice(i, i + batch) as StoredEvent<AnyEvent>[]);
  } finally {
    client.release();
  }
}

/** What the filter means, row by row: count and offset over every matching entry, newest first. */
async function reference(f: StatementFilter) {
  const rows = await query<{ id: string }>(
    pool,
    'ReferenceStatement',
    `select id from gateway_statement where merchant_id = $1
      and ($2::text is null or type = $2) and ($3::timestamptz is null or at >= $3) and ($4::timestamptz is null or at < $4) order by seq desc`,
    [f.merchantId, f.type ?? null, f.from ?? null, f.to ?? null],
  );
  return { ids: rows.rows.slice((f.page - 1) * f.limit, f.page * f.limit).map(r => r.id), total: rows.rows.length };
}

const filters = (merchantId: string): StatementFilter[] => {
  const out: StatementFilter[] = [];
  const times = [
    undefined,
    new Date(t0 - hour),
    new Date(t0 + 10 * hour),
    new Date(t0 + 10.5 * hour),
    new Date(t0 + 37 * hour),
    new Date(t0 + 500 * hour),
  ];
  for (const type of [undefined, ...statementTypes])
    for (const from of times)
      for (const to of times) {
        if (from && to && from >= to) continue;
        for (const [page, limit] of [
          [1, 7],
          [2, 7],
          [4, 5],
          [30, 3],
        ] as const)
          out.push({ merchantId, type, from, to, page, limit });
      }
  return out;
};

describe('a page of the statement is a range of seq or of type_seq', () => {
  it('numbers each merchant and type densely, whatever the batches, and keeps the latest time seen', async () => {
    const merchantId = nextUuid();
    await project(ledger(merchantId, 40), 3);
    const rows = await query<{ type: string; type_seq: number; at: Date; at_max: Date }>(
      pool,
      'T',
      'select type, type_seq::int, at, at_max from gateway_statement where merchant_id = $1 order by seq',
      [merchantId],
    );
    const counted = new Map<string, number>();
    for (const r of rows.rows) {
      counted.set(r.type, (counted.get(r.type) ?? 0) + 1);
      expect(r.type_seq).toBe(counted.get(r.type));
      expect(r.at_max).toEqual(r.at);
    }
  });

  it.each([
    ['in time order', undefined],
    ['with an entry recorded late', 23],
  ])('answers every filter and page as counting row by row would, %s', async (_, lateAt) => {
    const merchantId = nextUuid();
    const other = nextUuid();
    await project([...ledger(merchantId, 60, lateAt), ...ledger(other, 30)], 4);
    for (const f of filters(merchantId)) {
      const { rows, total } = await listStatement(pool, f);
      expect({ ids: rows.map(r => r.id), total }, JSON.stringify(f)).toEqual(await reference(f));
    }
  });

  it('numbers a table made before type_seq and at_max from its rows', async () => {
    const client = await pool.connect();
    try {
      await client.query('create schema old_statement; set search_path to old_statement, public');
      await client.query(`create table gateway_statement (merchant_id uuid not null, seq bigint not null, stream_revision bigint not null, id uuid not null,
        type text not null, at timestamptz not null, amount bigint not null, gross bigint, fee bigint, net bigint, payment_id uuid, withdrawal_id uuid,
        pending bigint not null, available bigint not null, on_hold bigint not null, primary key (merchant_id, seq), unique (merchant_id, stream_revision))`);
      await client.query(
        `insert into gateway_statement (merchant_id, seq, stream_revision, id, type, at, amount, pending, available, on_hold)
        select $1, n, n - 1, gen_random_uuid(), case when n % 3 = 0 then 'SETTLEMENT' else 'PAYMENT' end, $2::timestamptz + make_interval(hours => case when n = 5 then 1 else n end), 1, 0, 0, 0
        from generate_series(1, 9) n`,
        [nextUuid(), new Date(t0)],
      );
      for (const step of gatewayStatementProjection.schema) await client.query(step);
      const rows = await client.query<{ type_seq: string; late: boolean }>(
        'select type_seq, at < at_max as late from gateway_statement order by seq',
      );
      expect(rows.rows.map(r => Number(r.type_seq))).toEqual([1, 2, 1, 3, 4, 2, 5, 6, 3]);
      expect(rows.rows.map(r => r.late)).toEqual([false, false, false, false, true, false, false, false, false]);
    } finally {
      await client.query('set search_path to default; drop schema old_statement cascade');
      client.release();
    }
  });
});
