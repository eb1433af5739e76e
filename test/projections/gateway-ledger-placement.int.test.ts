import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { inTransaction, query } from '../../src/db/pool.ts';
import { monthAfter, monthBounds } from '../../src/domain/gateway-periods.ts';
import type { AnyEvent } from '../../src/events/all.ts';
import type { StoredEvent } from '../../src/events/event.ts';
import { gatewayLedgerProjection } from '../../src/projections/gateway-ledger.ts';
import { gatewayPeriodsProjection, movedToSql } from '../../src/projections/gateway-periods.ts';
import { applyEvents, type Projection } from '../../src/projections/projection.ts';
import { createReadModels } from '../../src/projections/runner.ts';
import { freshPool } from '../support/database.ts';

/**
 * Where the ledger read model places each posting (gateway_postings.reported_at), kept as it projects the postings and
 * the closes, against the placement rule computed from scratch over every close (movedToSql over the closes' read
 * model), over random histories: entries recorded late into months closed meanwhile or dated ahead, months closed
 * counting the log as far as a few events before the close (postings recorded while its report was computed), some
 * reopened and closed again; the events projected in batches of random sizes. A rebuild gives the same rows.
 */

const day = 86_400_000;
const firstDay = Date.parse('2026-01-01T00:00:00+07:00');
const account = randomUUID();

type Step =
  | { advance: number; lag: number; amount: number }
  | { advance: number; close: true; behind: number }
  | { advance: number; reopen: true };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      advance: fc.integer({ min: 0, max: 3 * day }),
      // recorded now, taking effect up to 45 days earlier (late) or 20 days later (dated ahead), or a month or two
      // earlier (into a month before the latest closed: sent on to its first day, then on again when that one closes)
      lag: fc.oneof(
        fc.constant(0),
        fc.integer({ min: -20 * day, max: 45 * day }),
        fc.integer({ min: 28 * day, max: 62 * day }),
      ),
      amount: fc.integer({ min: 1, max: 900_000 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      advance: fc.integer({ min: 0, max: 2 * day }),
      close: fc.constant(true),
      behind: fc.nat(3),
    }),
  },
  { weight: 1, arbitrary: fc.record({ advance: fc.constant(0), reopen: fc.constant(true) }) },
);

const iso = (ms: number) => new Date(ms).toISOString();

/** The events of a history as the log would hold them: positions in order, closes as the close command makes them. */
function history(steps: Step[]): StoredEvent<AnyEvent>[] {
  const events: StoredEvent<AnyEvent>[] = [];
  const closed: string[] = [];
  let now = firstDay;
  const push = (streamId: string, revision: number, type: string, data: Record<string, unknown>) => {
    const eventId = randomUUID();
    const metadata = { eventId, correlationId: eventId, causationId: null, actor: 'test', occurredAt: iso(now) };
    const position = { commit: BigInt(events.length + 1), prepare: BigInt(events.length + 1) };
    events.push({ type, version: 1, data, metadata, streamId, revision, position } as unknown as StoredEvent<AnyEvent>);
  };
  let revision = 0;
  for (const s of steps) {
    now += s.advance;
    if ('amount' in s) {
      const postings = [
        { account: `holding:${account}`, amount: s.amount },
        { account: 'platform:equity', amount: -s.amount },
      ];
      const entry = { entryId: randomUUID(), accountId: account, amount: s.amount, effectiveAt: iso(now - s.lag) };
      const booked = { ...entry, reason: 'test', bookedBy: account, bookedAt: iso(now), postings };
      push('gateway-ledger-adjustments', revision++, 'LedgerAdjustmentBooked', booked);
    } else if ('close' in s) {
      const latest = closed.at(-1);
      const month = latest ? monthAfter(latest) : '2026-01';
      const through = events.at(-1 - s.behind)?.position;
      if (monthBounds(month).endsAt.getTime() > now || !through) continue;
      push('gateway-periods', 0, 'GatewayPeriodClosed', {
        period: month,
        reportHash: '0'.repeat(64),
        report: {},
        through: { commit: String(through.commit), prepare: String(through.prepare) },
        closedBy: account,
        closedAt: iso(now),
      });
      closed.push(month);
    } else {
      const month = closed.pop();
      if (month)
        push('gateway-periods', 0, 'GatewayPeriodReopened', {
          period: month,
          reason: 'test',
          reopenedBy: account,
          reopenedAt: iso(now),
        });
    }
  }
  return events;
}

/** The events projected by the read models, in batches of the given sizes (the rest in one). */
async function project(pool: pg.Pool, events: StoredEvent<AnyEvent>[], sizes: number[], readModels: Projection[]) {
  for (let start = 0, i = 0; start < events.length; i++) {
    const end = i < sizes.length ? start + sizes[i]! : events.length;
    const batch = events.slice(start, end);
    await inTransaction(pool, async tx => {
      for (const readModel of readModels) await applyEvents(tx, readModel, batch);
    });
    start = end;
  }
}

const placed = async (pool: pg.Pool) =>
  (
    await query<{ row: string }>(
      pool,
      'TestPlacedPostings',
      `select stream_revision || ' ' || account || ' ' || reported_at::text as row from gateway_postings order by 1`,
    )
  ).rows.map(r => r.row);

describe('where the ledger read model places each posting', () => {
  it('is the placement rule over every close, computed from scratch, after any closes and reopenings; a rebuild agrees', async () => {
    let moved = 0;
    const pool = await freshPool(4);
    try {
      await createReadModels(pool, [gatewayLedgerProjection, gatewayPeriodsProjection]);
      await fc.assert(
        fc.asyncProperty(
          fc.array(step, { minLength: 30, maxLength: 90 }),
          fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 30 }),
          async (steps, sizes) => {
            await query(
              pool,
              'TestEmptyReadModels',
              'truncate gateway_postings, gateway_ledger_closes, gateway_period_closures, gateway_cash',
            );
            const events = history(steps);
            await project(pool, events, sizes, [gatewayLedgerProjection, gatewayPeriodsProjection]);
            const differing = await query(
              pool,
              'TestPlacementFromScratch',
              `select g.stream_revision, g.effective_at, g.reported_at, ${movedToSql('g')} as rule from gateway_postings g
               where g.reported_at is distinct from coalesce(${movedToSql('g')}, g.effective_at)`,
            );
            expect(differing.rows).toEqual([]);
            const kept = await placed(pool);
            moved += (
              await query<{ n: number }>(
                pool,
                'TestMovedPostings',
                'select count(*)::int as n from gateway_postings where reported_at <> effective_at',
              )
            ).rows[0]!.n;
            await query(pool, 'TestEmptyLedger', 'truncate gateway_postings, gateway_ledger_closes, gateway_cash');
            await project(pool, events, [], [gatewayLedgerProjection]);
            expect(await placed(pool)).toEqual(kept);
          },
        ),
        { numRuns: 60 },
      );
    } finally {
      await pool.end();
    }
    // the histories did move postings: prior-period items, some sent on by a close after they were projected
    expect(moved).toBeGreaterThan(20);
  }, 300_000);

  it('is given to the postings of a read model from before it by its migration step, from the closes projected', async () => {
    let moved = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 40, maxLength: 90 }), async steps => {
        const pool = await freshPool(4);
        try {
          const before = { ...gatewayLedgerProjection, schema: gatewayLedgerProjection.schema.slice(0, 6) };
          await createReadModels(pool, [before, gatewayPeriodsProjection]);
          const events = history(steps);
          await project(pool, events, [], [gatewayPeriodsProjection]);
          // the postings as the read model had them: its columns of step 6
          const postings = events.filter(e => e.type === 'LedgerAdjustmentBooked');
          await query(
            pool,
            'TestOldPostings',
            `insert into gateway_postings (position_commit, position_prepare, stream_revision, merchant_id, event_type, reference_id,
               account, amount, occurred_at, effective_at, recorded_at)
             select p.commit, p.commit, p.revision, $2, 'LedgerAdjustmentBooked', 'x', a.account, 1, p.at, p.at, p.at
             from jsonb_to_recordset($1::jsonb) as p(commit bigint, revision bigint, at timestamptz)
               cross join (values ('holding:x'), ('platform:equity')) as a(account)`,
            [
              JSON.stringify(
                postings.map(e => ({
                  commit: String(e.position.commit),
                  revision: e.revision,
                  at: (e.data as { effectiveAt: string }).effectiveAt,
                })),
              ),
              account,
            ],
          );
          await createReadModels(pool, [gatewayLedgerProjection]);
          const differing = await query(
            pool,
            'TestMigratedPlacement',
            `select g.stream_revision from gateway_postings g
             where g.reported_at is distinct from coalesce(${movedToSql('g')}, g.effective_at)`,
          );
          expect(differing.rows).toEqual([]);
          moved += (
            await query<{ n: number }>(
              pool,
              'TestMigratedMoved',
              'select count(*)::int as n from gateway_postings where reported_at <> effective_at',
            )
          ).rows[0]!.n;
        } finally {
          await pool.end();
        }
      }),
      { numRuns: 8 },
    );
    expect(moved).toBeGreaterThan(0);
  }, 300_000);
});
