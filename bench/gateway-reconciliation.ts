/**
 * The gateway's reconciliation report (src/projections/gateway-reconciliation.ts) for one WIB day out of a year of
 * 1,000,000 ledger postings: 200 merchants, 10 holding accounts, 365 WIB days of completed gateway payments (3 postings
 * each), a settlement per merchant and day (2), and a withdrawal requested and paid every fifth day (2 + 2). The report
 * reads the read models and folds each merchant's `gateway-<merchantId>` stream of the event log up to the period's
 * bounds (gateway-period-balances.ts, foldAtBounds), so both are seeded with SQL (generate_series), balanced and alike:
 * the ledger events into es_events and es_streams (valid JSON of src/events/gateway.ts, the same postings, revisions and
 * times as gateway_postings), the payments and their paying mutations, some expired payments and unmatched credits.
 * The database is an embedded PostgreSQL started as the service starts it (openDatabase, the service's DDL, its role).
 * Timed: the report for a day in the middle of the year and for the last day (today, so compared with the read model
 * too), and in the same rounds the fold alone (periodBalances) and the ceiling: the bare SQL of the same aggregate, each
 * merchant's accounts at the period's two bounds summed from gateway_postings. Goal: the report in under 2 s.
 * Each month is closed as an operator would at its end: at 01:00 WIB on the 1st of the next month its report is
 * computed over the log as far as the last event recorded by then (`through`, as the ledger's checkpoint would be),
 * with the ledger closing the close records (closeMonths), and the close stored as the projection stores it. So the
 * day in the middle of the year is in a closed month (its fold starts at June's closing) and the last day, in the open
 * month after the last close.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { createPool, query } from '../src/db/pool.ts';
import { createLogger } from '../src/logger.ts';
import { projections } from '../src/projections/all.ts';
import { placeClose } from '../src/projections/gateway-ledger-placement.ts';
import {
  gatewayReconciliation,
  reconciliationPeriod,
  type ReconciliationPeriod,
  type ReconciliationSources,
} from '../src/audit/gateway-reconciliation.ts';
import { createReadModels } from '../src/projections/runner.ts';
import { monthPeriod, reportHash } from '../src/audit/gateway-closed-periods.ts';
import { ledgerClosingOf, periodBalances } from '../src/audit/gateway-period-balances.ts';
import { monthBounds } from '../src/domain/gateway-periods.ts';
import { openDatabase } from '../src/service.ts';
import { PostgresEventStore } from '../src/store/postgres-event-store.ts';
import { fmtInt, fmtRatio, markdownTable, textTable, writeResults, type BenchContext } from './harness.ts';
import { occurredAtOfSql } from '../src/store/postgres-event-metadata.ts';

const NAME = 'gateway-reconciliation';
const GOAL_SECONDS = 2;
const firstDay = '2026-01-01';

export type Scale = {
  merchants: number;
  holdings: number;
  days: number;
  credits: number;
  expired: number;
  unmatched: number;
};

/** A uuid (version 4, variant 8, as the events' schemas accept) made of the md5 of a text expression: the same in every run. */
const uid = (text: string) =>
  `(substr(md5(${text}), 1, 12) || '4' || substr(md5(${text}), 14, 3) || '8' || substr(md5(${text}), 18, 15))::uuid`;

/** Gateway payments, their paying credits, a few expired payments and unmatched credits; then the ledger's postings and balances. */
export async function seed(pool: pg.Pool, s: Scale) {
  const start = new Date(`${firstDay}T00:00:00+07:00`);
  const params = [start, s.merchants, s.holdings, s.days, s.credits];
  await query(
    pool,
    'SeedPayments',
    `
    insert into payments (id, owner_id, order_id, receiving_account_id, provider_code, type, amount, unique_code, total_amount, redirect_url, status,
      expires_at, created_at, mutation_id, paid_at, completed_at, method_selection, gateway, base_amount, fee_to_customer, gateway_fee)
    select ${uid(`'p' || i`)}, ${uid(`'m' || i % $2`)}, 'order-' || i, ${uid(`'h' || i % $3`)}, 'WALLET-D', 'QRIS-DYNAMIC', total - i % 1000, i % 1000,
      total, 'https://shop.example/thanks', 'COMPLETED', at + interval '1 hour', at - interval '2 minutes', ${uid(`'t' || i`)}, at, at, 'fixed', true,
      total - i % 1000, false, (total * 70 + 5000) / 10000 + 200
    from (select i, $1::timestamptz + (i::float8 / $5) * $4 * interval '1 day' as at, 10000 + (i::bigint * 7919) % 990000 as total
          from generate_series(0, $5 - 1) i) g`,
    params,
  );
  await query(
    pool,
    'SeedPayingCredits',
    `
    insert into mutations (id, account_id, owner_id, account_type, provider_transaction_id, type, amount, description, sender_name, reference, status, created_at, recorded_at, payment)
    select mutation_id, receiving_account_id, ${uid(`'admin'`)}, 'ewallet', 'tx-' || id, 'CREDIT', total_amount, 'QRIS', 'PEMBELI', null, 'SUCCESS', completed_at, completed_at,
      jsonb_build_object('id', id, 'totalAmount', total_amount, 'status', 'COMPLETED')
    from payments where gateway and status = 'COMPLETED'`,
  );
  await query(
    pool,
    'SeedExpiredPayments',
    `
    insert into payments (id, owner_id, order_id, receiving_account_id, provider_code, type, amount, unique_code, total_amount, redirect_url, status,
      expires_at, created_at, expired_at, method_selection, gateway, base_amount, fee_to_customer, gateway_fee)
    select ${uid(`'x' || i`)}, ${uid(`'m' || i % $2`)}, 'late-' || i, ${uid(`'h' || i % $3`)}, 'WALLET-D', 'QRIS-DYNAMIC', 50000, i % 1000, 50000 + i % 1000,
      'https://shop.example/thanks', 'EXPIRED', at + interval '1 hour', at, at + interval '1 hour', 'fixed', true, 50000, false, 550
    from (select i, $1::timestamptz + (i::float8 / $4) * $5 * interval '1 day' as at from generate_series(0, $4 - 1) i) g`,
    [start, s.merchants, s.holdings, s.expired, s.days],
  );
  // every other unmatched credit pays an expired payment's total after it expired (paid late); the rest are odd amounts
  await query(
    pool,
    'SeedUnmatchedCredits',
    `
    insert into mutations (id, account_id, owner_id, account_type, provider_transaction_id, type, amount, description, sender_name, reference, status, created_at, recorded_at)
    select ${uid(`'u' || i`)}, ${uid(`'h' || i % $2`)}, ${uid(`'admin'`)}, 'ewallet', 'unmatched-' || i, 'CREDIT',
      case when i % 2 = 0 then 50000 + i % 1000 else 12345 + i end, 'QRIS', 'SALAH KIRIM', null, 'SUCCESS', at, at
    from (select i, $1::timestamptz + (i::float8 / $3) * $4 * interval '1 day' + interval '2 hours' as at from generate_series(0, $3 - 1) i) g`,
    [start, s.holdings, s.unmatched, s.days],
  );
  // the ledger's entries as the deciders make them: credits, a settlement per merchant and WIB day (00:01 WIB the day after),
  // a withdrawal of half of it requested an hour later and paid an hour after that, every fifth day; each with its event's data
  const iso = (at: string) => `to_char((${at}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const line = (account: string, amount: string) => `json_build_object('account', ${account}, 'amount', ${amount})`;
  await query(
    pool,
    'SeedLedgerEntries',
    `
    create temp table seed_entries as
    with credits as (
      select owner_id as merchant_id, completed_at as at, id, total_amount, gateway_fee, receiving_account_id, (completed_at at time zone 'Asia/Jakarta')::date as day
      from payments where gateway and status = 'COMPLETED'
    ), settlements as (
      select merchant_id, day, sum(total_amount - gateway_fee)::bigint as amount, array_agg(id order by at) as payment_ids,
        ((day + 1)::timestamp at time zone 'Asia/Jakarta') + interval '1 minute' as at
      from credits group by merchant_id, day
    ), withdrawals as (
      select merchant_id, day, at, amount / 2 as amount, ${uid(`'w' || merchant_id || day`)} as withdrawal_id from settlements where (day - date '2026-01-01') % 5 = 0
    )
    select merchant_id, at, 'GatewayPaymentCredited' as event_type, id::text as reference_id,
      array['holding:' || receiving_account_id, 'merchant:' || merchant_id || ':pending', 'platform:fees'] as accounts,
      array[total_amount, gateway_fee - total_amount, -gateway_fee] as amounts,
      json_build_object('merchantId', merchant_id, 'paymentId', id, 'holdingAccountId', receiving_account_id, 'totalAmount', total_amount, 'fee', gateway_fee,
        'net', total_amount - gateway_fee, 'completedAt', ${iso('at')}, 'postings', json_build_array(${line(`'holding:' || receiving_account_id`, 'total_amount')},
        ${line(`'merchant:' || merchant_id || ':pending'`, 'gateway_fee - total_amount')}, ${line(`'platform:fees'`, '-gateway_fee')})) as data
    from credits
    union all
    select merchant_id, at, 'BalanceSettled', md5('s' || merchant_id || day)::text,
      array['merchant:' || merchant_id || ':pending', 'merchant:' || merchant_id || ':settled'], array[amount, -amount],
      json_build_object('merchantId', merchant_id, 'paymentIds', payment_ids, 'amount', amount, 'cutoff', ${iso(`((day + 1)::timestamp at time zone 'Asia/Jakarta')`)},
        'settledAt', ${iso('at')}, 'postings', json_build_array(${line(`'merchant:' || merchant_id || ':pending'`, 'amount')},
        ${line(`'merchant:' || merchant_id || ':settled'`, '-amount')}), 'calendarMissingYears', json_build_array())
    from settlements
    union all
    select merchant_id, at + interval '1 hour', 'WithdrawalRequested', withdrawal_id::text,
      array['merchant:' || merchant_id || ':settled', 'merchant:' || merchant_id || ':onHold'], array[amount, -amount],
      json_build_object('merchantId', merchant_id, 'withdrawalId', withdrawal_id, 'amount', amount, 'bankCode', 'BCA', 'accountNumber', '1234567890',
        'accountHolderName', 'TOKO BENCH', 'requestedBy', merchant_id, 'requestedAt', ${iso(`at + interval '1 hour'`)}, 'postings',
        json_build_array(${line(`'merchant:' || merchant_id || ':settled'`, 'amount')}, ${line(`'merchant:' || merchant_id || ':onHold'`, '-amount')}))
    from withdrawals
    union all
    select merchant_id, at + interval '2 hours', 'WithdrawalPaid', withdrawal_id::text,
      array['merchant:' || merchant_id || ':onHold', 'bank:payouts'], array[amount, -amount],
      json_build_object('merchantId', merchant_id, 'withdrawalId', withdrawal_id, 'amount', amount, 'reference', 'TRF-' || withdrawal_id, 'paidBy', ${uid(`'admin'`)},
        'paidAt', ${iso(`at + interval '2 hours'`)}, 'postings',
        json_build_array(${line(`'merchant:' || merchant_id || ':onHold'`, 'amount')}, ${line(`'bank:payouts'`, '-amount')}))
    from withdrawals`,
  );
  await query(
    pool,
    'SeedEntryRevisions',
    `
    create temp table seed_events as
    select e.*, row_number() over (partition by merchant_id order by at, reference_id) - 1 as revision from seed_entries e`,
  );
  // the event log as the deciders append it: one event per entry in its merchant's stream, in time order across streams
  // (the postings below carry each event's log position, as the ledger's projection writes them)
  await query(
    pool,
    'SeedLedgerEvents',
    `
    insert into es_events (stream_id, revision, event_id, type, version, data, metadata)
    select 'gateway-' || merchant_id, revision, ${uid(`'e' || merchant_id || revision`)}, event_type, 1, data,
      json_build_object('eventId', ${uid(`'e' || merchant_id || revision`)}, 'correlationId', ${uid(`'c' || reference_id`)}, 'causationId', null,
        'actor', 'bench', 'occurredAt', ${iso('at')})
    from seed_events order by at, merchant_id`,
  );
  await query(
    pool,
    'SeedLedgerStreams',
    `insert into es_streams (stream_id, revision) select 'gateway-' || merchant_id, max(revision) from seed_events group by merchant_id`,
  );
  await query(
    pool,
    'SeedPostings',
    `
    insert into gateway_postings (position_commit, position_prepare, stream_revision, merchant_id, event_type, reference_id, account, amount, occurred_at, effective_at, recorded_at, reported_at)
    select l.transaction_id::text::bigint, l.position, e.revision, e.merchant_id, e.event_type, e.reference_id, p.account, p.amount, e.at, e.at, e.at, e.at
    from seed_events e
      join es_events l on l.stream_id = 'gateway-' || e.merchant_id and l.revision = e.revision
      cross join lateral unnest(e.accounts, e.amounts) with ordinality as p(account, amount, n)
    order by e.at`,
  );
  await query(
    pool,
    'SeedBalances',
    `
    insert into gateway_balances (merchant_id, pending, settled, on_hold)
    select merchant_id, -coalesce(sum(amount) filter (where account like '%:pending'), 0), -coalesce(sum(amount) filter (where account like '%:settled'), 0),
      -coalesce(sum(amount) filter (where account like '%:onHold'), 0)
    from gateway_postings where account like 'merchant:%' group by merchant_id`,
  );
  await query(
    pool,
    'SeedHoldingAccounts',
    `
    insert into gateway_holding_accounts (account_id, provider_code, methods, marked_by, marked_at)
    select ${uid(`'h' || i`)}, 'WALLET-D', array['QRIS-DYNAMIC'], ${uid(`'admin'`)}, $1 from generate_series(0, $2 - 1) i`,
    [start, s.holdings],
  );
  await query(pool, 'DropSeedEntries', 'drop table seed_entries, seed_events');
  await query(pool, 'VacuumAnalyze', 'vacuum analyze');
  const counts = await query<{ postings: number; events: number; payments: number; mutations: number; last: string }>(
    pool,
    'CountSeeded',
    `select
    (select count(*) from gateway_postings)::bigint as postings, (select count(*) from es_events)::bigint as events, (select count(*) from payments)::bigint as payments,
    (select count(*) from mutations)::bigint as mutations, (select max(occurred_at at time zone 'Asia/Jakarta')::date::text from gateway_postings) as last`,
  );
  return counts.rows[0]!;
}

/**
 * Every month of the seeded year closed at 01:00 WIB on the 1st of the next month, in order: the report and the
 * ledger closing over the log as far as the last event recorded by then, stored as the gateway-periods projection
 * stores a GatewayPeriodClosed event. Returns the seconds each close took (its report and its ledger closing).
 */
async function closeMonths(sources: ReconciliationSources, months: string[]): Promise<number[]> {
  const seconds: number[] = [];
  for (const month of months) {
    const started = performance.now();
    const { startsAt, endsAt } = monthBounds(month);
    const closedAt = new Date(endsAt.getTime() + 3_600_000);
    const head = await query<{ commit: string; prepare: string }>(
      sources.pool,
      'BenchCloseThrough',
      `select transaction_id::text as commit, position::text as prepare from es_events
       where (${occurredAtOfSql('es_events')})::timestamptz < $1 order by transaction_id desc, position desc limit 1`,
      [closedAt],
    );
    const through = { commit: BigInt(head.rows[0]!.commit), prepare: BigInt(head.rows[0]!.prepare) };
    const report = await gatewayReconciliation(sources, monthPeriod(month), { through });
    const ledger = await ledgerClosingOf(sources, { startsAt, endsAt }, through);
    const frozen = JSON.parse(JSON.stringify(report)) as Record<string, unknown>;
    const eventId = randomUUID();
    await query(
      sources.pool,
      'BenchInsertClosure',
      `insert into gateway_period_closures (event_id, period, starts_at, ends_at, report_hash, report, through_commit, through_prepare,
         closed_by, closed_at, ledger) values ($10, $1, $2, $3, $4, $5, $6, $7, ${uid(`'admin'`)}, $8, $9)`,
      [
        month,
        startsAt,
        endsAt,
        reportHash(frozen),
        JSON.stringify(frozen),
        String(through.commit),
        String(through.prepare),
        closedAt,
        ledger,
        eventId,
      ],
    );
    // as the ledger read model projects the close: its postings recorded after `through` placed again
    const placed = { commit: String(through.commit), prepare: String(through.prepare) };
    await placeClose(sources.pool, { eventId, period: month, through: placed });
    seconds.push((performance.now() - started) / 1000);
  }
  return seconds;
}

/** A pool whose report connection says how long each of its statements took (by the statement's distinctive text). */
function timedPool(pool: pg.Pool, timings: { current: Record<string, number> }): pg.Pool {
  const names: [RegExp, string][] = [
    [/group by 1, 2/, 'trial balance per day'],
    [/having sum\(amount\) <> 0/, 'unbalanced entries'],
    [/split_part\(account/, 'merchant ledgers vs balances'],
    [/credited as \(/, 'holding credits vs payments'],
    [/late as \(/, 'unmatched credits'],
    [/group by account order by account collate "C"/, 'carried balances'],
    [/moved as \(/, 'prior-period items'],
  ];
  const timed = new WeakSet<pg.PoolClient>();
  return {
    // the fold's own statements (merchants, read-model balances) go straight to the pool
    query: pool.query.bind(pool),
    connect: async () => {
      const client = await pool.connect();
      if (timed.has(client)) return client;
      timed.add(client);
      const original = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      (client as unknown as { query: unknown }).query = async (...args: unknown[]) => {
        const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text;
        const started = performance.now();
        try {
          return await original(...args);
        } finally {
          const name = names.find(([pattern]) => pattern.test(text))?.[1];
          if (name) timings.current[name] = (timings.current[name] ?? 0) + performance.now() - started;
        }
      };
      return client;
    },
  } as unknown as pg.Pool;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

type Measured = {
  label: string;
  period: ReconciliationPeriod;
  report: number[];
  fold: number[];
  ceiling: number[];
  timings: Record<string, number>[];
  summary: object;
};

/** The bare SQL of the fold's aggregate: every merchant's accounts at the period's two bounds, summed from the postings. */
const ceilingSql = `select merchant_id, account, sum(amount) filter (where occurred_at < $1) as opening, sum(amount) as closing
  from gateway_postings where occurred_at < $2 group by 1, 2`;

export async function run(ctx: BenchContext): Promise<void> {
  const scale: Scale = ctx.quick
    ? { merchants: 20, holdings: 10, days: 365, credits: 26_500, expired: 500, unmatched: 100 }
    : { merchants: 200, holdings: 10, days: 365, credits: 265_000, expired: 5_000, unmatched: 1_000 };
  const rounds = ctx.quick ? 2 : 3;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-reconciliation-'));
  const log = createLogger('warn');
  const { url, embedded } = await openDatabase(loadConfig({ DATA_DIR: dataDir }), log);
  const pool = createPool(url, 4);
  const loadBefore = os.loadavg();
  try {
    await createReadModels(pool, projections);
    const store = await PostgresEventStore.create(pool, { listen: false });
    const seedStarted = performance.now();
    const seeded = await seed(pool, scale);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    console.log(
      `seeded ${fmtInt(seeded.postings)} postings, ${fmtInt(seeded.events)} ledger events, ${fmtInt(seeded.payments)} payments, ${fmtInt(seeded.mutations)} mutations in ${seedSeconds.toFixed(1)} s`,
    );
    const lastDay = seeded.last;
    const middleDay = new Date(Date.parse(`${firstDay}T00:00:00Z`) + Math.floor(scale.days / 2) * 86_400_000)
      .toISOString()
      .slice(0, 10);
    // today is the last day: its report compares the closing balances with the read model, as an admin's would
    const clock = { now: () => new Date(`${lastDay}T12:00:00+07:00`) };
    const timing = { current: {} as Record<string, number> };
    const sources = { pool: timedPool(pool, timing), store, clock };
    const closedMonths = Array.from({ length: 12 }, (_, i) => `2026-${String(i + 1).padStart(2, '0')}`).filter(
      month => monthBounds(month).endsAt.getTime() + 3_600_000 <= clock.now().getTime(),
    );
    const closeSeconds = await closeMonths({ pool, store, clock }, closedMonths);
    console.log(`closed ${closedMonths.join(', ')} in ${closeSeconds.map(x => x.toFixed(1)).join(' / ')} s`);

    const measured: Measured[] = [];
    for (const [label, day] of [
      ['a day in the middle', middleDay],
      ['the last day (today)', lastDay],
    ] as const) {
      const m: Measured = {
        label,
        period: reconciliationPeriod(day, day),
        report: [],
        fold: [],
        ceiling: [],
        timings: [],
        summary: {},
      };
      for (let round = 0; round < rounds && !ctx.signal.aborted; round++) {
        const t: Record<string, number> = {};
        timing.current = t;
        let started = performance.now();
        const report = await gatewayReconciliation(sources, m.period);
        m.report.push((performance.now() - started) / 1000);
        m.timings.push(t);
        if (!report.balanced)
          throw new Error(`the seeded ledger did not reconcile for ${day}: the seed or the report is wrong`);
        m.summary = {
          balanced: report.balanced,
          postings: report.trialBalance.total.postings,
          merchantsChecked: report.merchants.checked,
          comparedWithReadModel: report.merchants.comparedWithReadModel,
          holdingAccounts: report.holdingAccounts.accounts.length,
          payouts: report.payouts.length,
          payments: report.holdingCredits.total.payments,
          unmatchedCredits: report.unmatchedCredits.length,
        };
        started = performance.now();
        await periodBalances({ pool, store, clock }, m.period);
        m.fold.push((performance.now() - started) / 1000);
        started = performance.now();
        await query(pool, 'BenchBalancesAtBounds', ceilingSql, [m.period.startsAt, m.period.endsAt]);
        m.ceiling.push((performance.now() - started) / 1000);
      }
      measured.push(m);
      console.log(
        `  ${label} (${day}): report ${m.report.map(x => x.toFixed(2)).join(' / ')} s, fold ${m.fold.map(x => x.toFixed(2)).join(' / ')} s, ceiling ${m.ceiling.map(x => x.toFixed(2)).join(' / ')} s`,
      );
    }
    const loadAfter = os.loadavg();
    const header = [
      'period',
      'report s (median)',
      'rounds',
      'of it: fold alone s',
      'ceiling: bare SQL s',
      'ratio',
      'goal',
      'result',
    ];
    const rows = measured.map(m => [
      `${m.label}: ${m.period.from}`,
      median(m.report).toFixed(2),
      m.report.map(x => x.toFixed(2)).join(' / '),
      median(m.fold).toFixed(2),
      `${median(m.ceiling).toFixed(2)} (${m.ceiling.map(x => x.toFixed(2)).join(' / ')})`,
      fmtRatio(median(m.report) / median(m.ceiling)),
      `< ${GOAL_SECONDS} s`,
      median(m.report) < GOAL_SECONDS ? 'PASS' : 'FAIL',
    ]);
    console.log(`\n${textTable(header, rows)}`);
    let commit = 'unknown';
    try {
      commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
    } catch {
      // not a git checkout
    }
    const machine = `${os.cpus().length} CPU (${os.cpus()[0]?.model ?? 'unknown'}), load average ${loadBefore[0]!.toFixed(2)} before, ${loadAfter[0]!.toFixed(2)} after`;
    const statementRows = measured.flatMap(m =>
      Object.keys(m.timings[0] ?? {}).map(name => [
        `${m.period.from}: ${name}`,
        median(m.timings.map(t => t[name] ?? 0)).toFixed(0),
      ]),
    );
    const markdown = [
      '# Benchmark: the gateway reconciliation for one day out of a year of 1,000,000 postings',
      '',
      `${new Date().toISOString()} · code ${commit} · Node ${process.version} · ${machine}${ctx.quick ? ' · **quick run** (a tenth of the data)' : ''}`,
      '',
      `**Seeded with SQL**, read models and event log alike: ${fmtInt(seeded.postings)} balanced postings (${fmtInt(seeded.events)} ledger events in ` +
        `${fmtInt(scale.merchants)} \`gateway-<merchantId>\` streams) of ${fmtInt(scale.merchants)} merchants over ${fmtInt(scale.holdings)} holding accounts ` +
        `and ${scale.days} WIB days from ${firstDay} (${fmtInt(scale.credits)} completed gateway payments credited, 3 postings each; a settlement per ` +
        `merchant and day; a withdrawal requested and paid every fifth day), the payments and their paying mutations, ${fmtInt(scale.expired)} expired ` +
        `payments and ${fmtInt(scale.unmatched)} unmatched credits, then VACUUM ANALYZE; seeding took ${seedSeconds.toFixed(0)} s. An embedded ` +
        "PostgreSQL started as the service starts it (openDatabase: the service's role and DDL, PostgresEventStore). " +
        `Each month closed as an operator would at its end (at 01:00 WIB on the 1st of the next month: its report and the ledger closing its close ` +
        `records, over the log as far as the last event recorded by then): ${closedMonths[0]} to ${closedMonths.at(-1)}, ` +
        `${closeSeconds.map(x => x.toFixed(1)).join(' / ')} s a close. Each round runs the whole report ` +
        "(read-model checks and the fold of every merchant's stream to the period's bounds), then the fold alone (`periodBalances`), then the ceiling: " +
        '`select merchant_id, account, sum(amount) filter (where occurred_at < from), sum(amount) ... where occurred_at < end group by 1, 2` over ' +
        'gateway_postings (the same balances at both bounds, one scan, nothing checked).',
      '',
      markdownTable(header, rows),
      '',
      markdownTable(['read-model statement (one snapshot, one after another)', 'ms (median)'], statementRows),
      '',
      ...measured.map(m => `${m.period.from}: ${JSON.stringify(m.summary)}.`),
    ].join('\n');
    const written = writeResults(
      NAME,
      { scale, seeded, seedSeconds, closedMonths, closeSeconds, measured, loadBefore, loadAfter },
      markdown,
    );
    console.log(`\nwrote ${written.json}\nwrote ${written.md}`);
  } finally {
    await pool.end();
    await embedded?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
