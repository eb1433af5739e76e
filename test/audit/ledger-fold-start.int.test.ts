import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ledgerClosingOf, periodBalances, type PeriodSources } from '../../src/audit/gateway-period-balances.ts';
import { monthPeriod } from '../../src/audit/gateway-closed-periods.ts';
import { reconciliationPeriod } from '../../src/audit/gateway-reconciliation.ts';
import { query } from '../../src/db/pool.ts';
import { gatewayLedgerStream } from '../../src/domain/gateway-ledger.ts';
import { monthAfter, monthBounds } from '../../src/domain/gateway-periods.ts';
import { ledgerAdjustmentsStream } from '../../src/domain/ledger-adjustments.ts';
import { suspenseStream } from '../../src/domain/gateway-suspense.ts';
import { gatewayLedgerProjection } from '../../src/projections/gateway-ledger.ts';
import { gatewayPeriodsProjection } from '../../src/projections/gateway-periods.ts';
import { createReadModels } from '../../src/projections/runner.ts';
import type { Position } from '../../src/store/event-store.ts';
import { freshEventLog } from '../support/database.ts';

/**
 * The fold from a closed month's ledger closing (ledger-fold-start.ts) against the fold of the whole log, over random
 * histories written to the event log: entries recorded late (into months closed meanwhile: prior-period items) or
 * dated ahead (recorded before a close, placed after its month), months closed with the closing each close records,
 * some reopened and closed again. For days, months and longer periods, the balances and movements are the same as the
 * whole log's fold in SQL (the closings set aside) and as the fold of each stream read (another event store).
 */

const day = 86_400_000;
const firstDay = Date.parse('2026-01-01T00:00:00+07:00');
const months = ['2026-01', '2026-02', '2026-03', '2026-04', '2026-05'];
const merchants = [randomUUID(), randomUUID()];
const holdings = [randomUUID(), randomUUID()];

type Entry = { kind: 'credit' | 'settle' | 'payout' | 'suspense' | 'opening'; who: number; amount: number };
type Step =
  | { advance: number; entry: Entry; lag: number }
  | { advance: number; close: true; lagging: boolean; behind: number }
  | { advance: number; reopen: true };

const entry = fc.record({
  kind: fc.constantFrom('credit', 'credit', 'settle', 'payout', 'suspense', 'opening'),
  who: fc.nat(1),
  amount: fc.integer({ min: 1, max: 900_000 }),
});
// recorded now, taking effect up to 45 days earlier (late) or 20 days later (dated ahead)
const lag = fc.oneof(fc.constant(0), fc.integer({ min: -20 * day, max: 45 * day }));
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ advance: fc.integer({ min: 0, max: 4 * day }), entry, lag }) },
  {
    weight: 2,
    arbitrary: fc.record({
      advance: fc.integer({ min: 0, max: 2 * day }),
      close: fc.constant(true),
      lagging: fc.boolean(),
      behind: fc.nat(2),
    }),
  },
  { weight: 1, arbitrary: fc.record({ advance: fc.constant(0), reopen: fc.constant(true) }) },
);

const iso = (ms: number) => new Date(ms).toISOString();

/** An entry's event as the deciders would append it: its stream, type and data with balanced postings. */
function ledgerEvent(e: Entry, effectiveAt: number, recordedAt: number) {
  const m = merchants[e.who]!;
  const h = `holding:${holdings[e.who]!}`;
  const a = e.amount;
  const fee = Math.floor(a / 100);
  const line = (account: string, amount: number) => ({ account, amount });
  switch (e.kind) {
    case 'credit':
      return {
        stream: gatewayLedgerStream(m),
        type: 'GatewayPaymentCredited',
        data: {
          merchantId: m,
          paymentId: randomUUID(),
          holdingAccountId: holdings[e.who],
          totalAmount: a,
          fee,
          net: a - fee,
          completedAt: iso(recordedAt),
          paidAt: iso(effectiveAt),
          postings: [line(h, a), line(`merchant:${m}:pending`, fee - a), line('platform:fees', -fee)],
        },
      };
    case 'settle':
      return {
        stream: gatewayLedgerStream(m),
        type: 'BalanceSettled',
        data: {
          merchantId: m,
          amount: a,
          cutoff: iso(effectiveAt),
          calendarMissingYears: a % 7 === 0 ? [2027] : [],
          postings: [line(`merchant:${m}:pending`, a), line(`merchant:${m}:settled`, -a)],
        },
      };
    case 'payout':
      return {
        stream: gatewayLedgerStream(m),
        type: 'WithdrawalPaid',
        data: {
          merchantId: m,
          withdrawalId: randomUUID(),
          amount: a,
          reference: `TRF-${a}`,
          paidAt: iso(recordedAt),
          transferredAt: iso(effectiveAt),
          postings: [line(`merchant:${m}:onHold`, a), line('bank:payouts', -a)],
        },
      };
    case 'suspense':
      return {
        stream: suspenseStream,
        type: 'SuspenseCreditReceived',
        data: { receivedAt: iso(effectiveAt), postings: [line(h, a), line('platform:suspense', -a)] },
      };
    case 'opening':
      return {
        stream: ledgerAdjustmentsStream,
        type: 'LedgerAdjustmentBooked',
        data: { effectiveAt: iso(effectiveAt), postings: [line(h, a), line('platform:equity', -a)] },
      };
  }
}

type World = { pool: pg.Pool; sources: PeriodSources; appended: Position[]; now: number; closed: string[] };

async function append(w: World, stream: string, type: string, data: Record<string, unknown>) {
  const eventId = randomUUID();
  const metadata = { eventId, correlationId: eventId, causationId: null, actor: 'test', occurredAt: iso(w.now) };
  const done = await w.sources.store.append(stream, [{ type, version: 1, data, metadata }], 'any');
  w.appended.push(done.position);
}

/**
 * A month closed as the close does it: the log counted as far as the ledger's checkpoint, the head or a few events
 * before it (appended, not yet projected), a marker appended after it as the close event is.
 */
async function close(w: World, lagging: boolean, behind: number) {
  const latest = w.closed.at(-1);
  const ended = months.filter(m => monthBounds(m).endsAt.getTime() <= w.now);
  const month = latest ? monthAfter(latest) : ended[lagging ? 0 : ended.length - 1];
  const through = w.appended.at(-1 - behind);
  if (!month || !ended.includes(month) || !through) return;
  const ledger = await ledgerClosingOf(w.sources, monthBounds(month), through);
  await append(w, 'test-periods', 'Closed', { month });
  const { startsAt, endsAt } = monthBounds(month);
  await query(
    w.pool,
    'TestInsertClosure',
    `insert into gateway_period_closures (event_id, period, starts_at, ends_at, report_hash, report, through_commit, through_prepare,
       closed_by, closed_at, ledger) values ($1, $2, $3, $4, 'x', '{}', $5, $6, $7, $8, $9)`,
    [
      randomUUID(),
      month,
      startsAt,
      endsAt,
      String(through.commit),
      String(through.prepare),
      randomUUID(),
      iso(w.now),
      ledger,
    ],
  );
  w.closed.push(month);
}

async function reopen(w: World) {
  const month = w.closed.pop();
  if (!month) return;
  await append(w, 'test-periods', 'Reopened', { month });
  await query(
    w.pool,
    'TestReopenClosure',
    `update gateway_period_closures set reopened_commit = $2, reopened_prepare = $3, reopened_by = $4, reopened_at = $5
     where period = $1 and reopened_at is null`,
    [month, String(w.appended.at(-1)!.commit), String(w.appended.at(-1)!.prepare), randomUUID(), iso(w.now)],
  );
}

/** The fold of the whole log in SQL: the closings set aside for the while (the fold start needs one recorded). */
async function wholeLogFold(w: World, period: ReturnType<typeof reconciliationPeriod>) {
  await query(w.pool, 'TestSetAsideLedgers', `update gateway_period_closures set reason = ledger::text, ledger = null`);
  try {
    return await periodBalances(w.sources, period);
  } finally {
    await query(
      w.pool,
      'TestRestoreLedgers',
      `update gateway_period_closures set ledger = reason::json, reason = null`,
    );
  }
}

let startsUsed = 0;

describe('the fold from a closed month’s ledger closing', () => {
  it('equals the fold of the whole log for every period, with late and early entries, closes and reopenings', async () => {
    const periods = fc.array(
      fc.oneof(
        fc.integer({ min: 0, max: 150 }).map(d => [d, d] as const),
        fc.integer({ min: 0, max: 120 }).chain(d => fc.integer({ min: d, max: d + 60 }).map(e => [d, e] as const)),
      ),
      { minLength: 3, maxLength: 6 },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 40, maxLength: 90 }), periods, async (steps, asked) => {
        const ending: (() => Promise<void>)[] = [];
        const { pool, store } = await freshEventLog(ending);
        try {
          await createReadModels(pool, [gatewayPeriodsProjection, gatewayLedgerProjection]);
          // another event store lists the merchants from the read model's balances
          await query(
            pool,
            'TestMerchantBalances',
            `insert into gateway_balances (merchant_id, pending, settled, on_hold) select unnest($1::uuid[]), 0, 0, 0`,
            [merchants],
          );
          const w: World = {
            pool,
            sources: { pool, store, clock: { now: () => new Date('2030-01-01') } },
            appended: [],
            now: firstDay,
            closed: [],
          };
          for (const s of steps) {
            w.now += s.advance;
            if ('entry' in s) {
              const e = ledgerEvent(s.entry, w.now - s.lag, w.now);
              await append(w, e.stream, e.type, e.data);
            } else if ('close' in s) await close(w, s.lagging, s.behind);
            else await reopen(w);
          }
          const dateOf = (d: number) => iso(firstDay + d * day + 7 * 3_600_000).slice(0, 10);
          const all = [
            ...asked.map(([from, to]) => reconciliationPeriod(dateOf(from), dateOf(to))),
            ...months.map(monthPeriod),
          ];
          const elsewhere = Object.create(store, { kind: { value: 'eventstoredb' } }) as typeof store;
          for (const period of all) {
            const fromClose = await periodBalances(w.sources, period);
            const started = await query<{ n: number }>(
              pool,
              'TestFoldStarts',
              `select count(*)::int as n from gateway_period_closures where ledger is not null and reopened_at is null and ends_at <= $1`,
              [period.startsAt],
            );
            startsUsed += started.rows[0]!.n > 0 ? 1 : 0;
            expect(fromClose).toEqual(await wholeLogFold(w, period));
            expect(fromClose).toEqual(await periodBalances({ ...w.sources, store: elsewhere }, period));
          }
        } finally {
          for (const end of ending.reverse()) await end();
        }
      }),
      { numRuns: 25, endOnFailure: true }, // each run is a database of its own: a failure is reported as found, not shrunk
    );
    expect(startsUsed).toBeGreaterThan(40);
  }, 300_000);
});
