/**
 * The gateway's reconciliation report (src/projections/gateway-reconciliation.ts) over 1,000,000 ledger postings:
 * 1,000 merchants, 10 holding accounts, 60 WIB days of completed gateway payments (3 postings each), a settlement per
 * merchant and day (2), and a withdrawal requested and paid every fifth day (2 + 2). The report reads read models only,
 * so they are seeded with SQL (generate_series), balanced, together with the payments and their paying mutations, some
 * expired payments and unmatched credits; nothing goes through the event store. The database is an embedded PostgreSQL
 * started as the service starts it (openDatabase, the service's DDL). Timed: the whole report over the whole period,
 * against a bare `select day, sum(amount) ... group by day` over the same postings in the same run (the ceiling: one
 * scan of the table). Goal: the report in under 10 s.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { createPool, query } from '../src/db/pool.ts';
import { createLogger } from '../src/logger.ts';
import { projections } from '../src/projections/all.ts';
import { gatewayReconciliation, reconciliationPeriod } from '../src/projections/gateway-reconciliation.ts';
import { createReadModels } from '../src/projections/runner.ts';
import { openDatabase } from '../src/service.ts';
import { fmtInt, fmtRatio, markdownTable, textTable, writeResults, type BenchContext } from './harness.ts';

const NAME = 'gateway-reconciliation';
const GOAL_SECONDS = 10;
const firstDay = '2026-09-01';

export type Scale = { merchants: number; holdings: number; days: number; credits: number; expired: number; unmatched: number };

/** Gateway payments, their paying credits, a few expired payments and unmatched credits; then the ledger's postings and balances. */
export async function seed(pool: pg.Pool, s: Scale) {
  const start = new Date(`${firstDay}T00:00:00+07:00`);
  const params = [start, s.merchants, s.holdings, s.days, s.credits];
  await query(pool, 'SeedPayments', `
    insert into payments (id, owner_id, order_id, receiving_account_id, provider_code, type, amount, unique_code, total_amount, redirect_url, status,
      expires_at, created_at, mutation_id, paid_at, completed_at, method_selection, gateway, base_amount, fee_to_customer, gateway_fee)
    select md5('p' || i)::uuid, md5('m' || i % $2)::uuid, 'order-' || i, md5('h' || i % $3)::uuid, 'WALLET-D', 'QRIS-DYNAMIC', total - i % 1000, i % 1000,
      total, 'https://shop.example/thanks', 'COMPLETED', at + interval '1 hour', at - interval '2 minutes', md5('t' || i)::uuid, at, at, 'fixed', true,
      total - i % 1000, false, (total * 70 + 5000) / 10000 + 200
    from (select i, $1::timestamptz + (i::float8 / $5) * $4 * interval '1 day' as at, 10000 + (i::bigint * 7919) % 990000 as total
          from generate_series(0, $5 - 1) i) g`, params);
  await query(pool, 'SeedPayingCredits', `
    insert into mutations (id, account_id, owner_id, account_type, provider_transaction_id, type, amount, description, sender_name, reference, status, created_at, recorded_at, payment)
    select mutation_id, receiving_account_id, md5('admin')::uuid, 'ewallet', 'tx-' || id, 'CREDIT', total_amount, 'QRIS', 'PEMBELI', null, 'SUCCESS', completed_at, completed_at,
      jsonb_build_object('id', id, 'totalAmount', total_amount, 'status', 'COMPLETED')
    from payments where gateway and status = 'COMPLETED'`);
  await query(pool, 'SeedExpiredPayments', `
    insert into payments (id, owner_id, order_id, receiving_account_id, provider_code, type, amount, unique_code, total_amount, redirect_url, status,
      expires_at, created_at, expired_at, method_selection, gateway, base_amount, fee_to_customer, gateway_fee)
    select md5('x' || i)::uuid, md5('m' || i % $2)::uuid, 'late-' || i, md5('h' || i % $3)::uuid, 'WALLET-D', 'QRIS-DYNAMIC', 50000, i % 1000, 50000 + i % 1000,
      'https://shop.example/thanks', 'EXPIRED', at + interval '1 hour', at, at + interval '1 hour', 'fixed', true, 50000, false, 550
    from (select i, $1::timestamptz + (i::float8 / $4) * $5 * interval '1 day' as at from generate_series(0, $4 - 1) i) g`,
    [start, s.merchants, s.holdings, s.expired, s.days]);
  // every other unmatched credit pays an expired payment's total after it expired (paid late); the rest are odd amounts
  await query(pool, 'SeedUnmatchedCredits', `
    insert into mutations (id, account_id, owner_id, account_type, provider_transaction_id, type, amount, description, sender_name, reference, status, created_at, recorded_at)
    select md5('u' || i)::uuid, md5('h' || i % $2)::uuid, md5('admin')::uuid, 'ewallet', 'unmatched-' || i, 'CREDIT',
      case when i % 2 = 0 then 50000 + i % 1000 else 12345 + i end, 'QRIS', 'SALAH KIRIM', null, 'SUCCESS', at, at
    from (select i, $1::timestamptz + (i::float8 / $3) * $4 * interval '1 day' + interval '2 hours' as at from generate_series(0, $3 - 1) i) g`,
    [start, s.holdings, s.unmatched, s.days]);
  // the ledger's entries as the deciders make them: credits, a settlement per merchant and WIB day (00:01 WIB the day after),
  // a withdrawal of half of it requested an hour later and paid an hour after that, every fifth day
  await query(pool, 'SeedLedgerEntries', `
    create temp table seed_entries as
    with credits as (
      select owner_id as merchant_id, completed_at as at, 'GatewayPaymentCredited' as event_type, id::text as reference_id, total_amount, gateway_fee,
        receiving_account_id, (completed_at at time zone 'Asia/Jakarta')::date as day
      from payments where gateway and status = 'COMPLETED'
    ), settlements as (
      select merchant_id, day, sum(total_amount - gateway_fee)::bigint as amount,
        ((day + 1)::timestamp at time zone 'Asia/Jakarta') + interval '1 minute' as at
      from credits group by merchant_id, day
    )
    select merchant_id, at, event_type, reference_id,
      array['holding:' || receiving_account_id, 'merchant:' || merchant_id || ':pending', 'platform:fees'] as accounts,
      array[total_amount, gateway_fee - total_amount, -gateway_fee] as amounts
    from credits
    union all
    select merchant_id, at, 'BalanceSettled', md5('s' || merchant_id || day)::text,
      array['merchant:' || merchant_id || ':pending', 'merchant:' || merchant_id || ':settled'], array[amount, -amount]
    from settlements
    union all
    select merchant_id, at + interval '1 hour', 'WithdrawalRequested', md5('w' || merchant_id || day)::text,
      array['merchant:' || merchant_id || ':settled', 'merchant:' || merchant_id || ':onHold'], array[amount / 2, -(amount / 2)]
    from settlements where (day - date '2026-01-01') % 5 = 0
    union all
    select merchant_id, at + interval '2 hours', 'WithdrawalPaid', md5('w' || merchant_id || day)::text,
      array['merchant:' || merchant_id || ':onHold', 'bank:payouts'], array[amount / 2, -(amount / 2)]
    from settlements where (day - date '2026-01-01') % 5 = 0`);
  await query(pool, 'SeedPostings', `
    insert into gateway_postings (position_commit, position_prepare, stream_revision, merchant_id, event_type, reference_id, account, amount, occurred_at)
    select row_number() over (order by at, merchant_id, n), 0, revision, merchant_id, event_type, reference_id, account, amount, at
    from (select e.*, row_number() over (partition by merchant_id order by at, reference_id) - 1 as revision from seed_entries e) e
      cross join lateral unnest(accounts, amounts) with ordinality as l(account, amount, n)
    order by at`);
  await query(pool, 'SeedBalances', `
    insert into gateway_balances (merchant_id, pending, settled, on_hold)
    select merchant_id, -coalesce(sum(amount) filter (where account like '%:pending'), 0), -coalesce(sum(amount) filter (where account like '%:settled'), 0),
      -coalesce(sum(amount) filter (where account like '%:onHold'), 0)
    from gateway_postings where account like 'merchant:%' group by merchant_id`);
  await query(pool, 'SeedHoldingAccounts', `
    insert into gateway_holding_accounts (account_id, provider_code, methods, marked_by, marked_at)
    select md5('h' || i)::uuid, 'WALLET-D', array['QRIS-DYNAMIC'], md5('admin')::uuid, $1 from generate_series(0, $2 - 1) i`, [start, s.holdings]);
  await query(pool, 'DropSeedEntries', 'drop table seed_entries');
  await query(pool, 'VacuumAnalyze', 'vacuum analyze');
  const counts = await query<{ postings: number; payments: number; mutations: number; last: string }>(pool, 'CountSeeded', `select
    (select count(*) from gateway_postings)::bigint as postings, (select count(*) from payments)::bigint as payments,
    (select count(*) from mutations)::bigint as mutations, (select max(occurred_at at time zone 'Asia/Jakarta')::date::text from gateway_postings) as last`);
  return counts.rows[0]!;
}

/** A pool whose report connection says how long each of its statements took (by the statement's distinctive text). */
function timedPool(pool: pg.Pool, timings: { current: Record<string, number> }): pg.Pool {
  const names: [RegExp, string][] = [
    [/group by 1, 2/, 'trial balance per day'], [/having sum\(amount\) <> 0/, 'unbalanced entries'], [/split_part\(account/, 'merchant ledgers vs balances'],
    [/credited as \(/, 'holding credits vs payments'], [/late as \(/, 'unmatched credits'],
  ];
  const timed = new WeakSet<pg.PoolClient>();
  return {
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

export async function run(ctx: BenchContext): Promise<void> {
  const scale: Scale = ctx.quick
    ? { merchants: 100, holdings: 10, days: 60, credits: 27_700, expired: 500, unmatched: 100 }
    : { merchants: 1_000, holdings: 10, days: 60, credits: 277_300, expired: 5_000, unmatched: 1_000 };
  const rounds = ctx.quick ? 2 : 3;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-reconciliation-'));
  const log = createLogger('warn');
  const { url, embedded } = await openDatabase(loadConfig({ DATA_DIR: dataDir }), log);
  const pool = createPool(url, 4);
  const loadBefore = os.loadavg();
  try {
    await createReadModels(pool, projections);
    const seedStarted = performance.now();
    const seeded = await seed(pool, scale);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    console.log(`seeded ${fmtInt(seeded.postings)} postings, ${fmtInt(seeded.payments)} payments, ${fmtInt(seeded.mutations)} mutations in ${seedSeconds.toFixed(1)} s (read models written with SQL: the report reads nothing else)`);
    const period = reconciliationPeriod(firstDay, seeded.last);

    const reportSeconds: number[] = [];
    const ceilingSeconds: number[] = [];
    const timings: Record<string, number>[] = [];
    const timing = { current: {} as Record<string, number> };
    const reportPool = timedPool(pool, timing);
    let balanced = true;
    let summary = {};
    for (let round = 0; round < rounds && !ctx.signal.aborted; round++) {
      const t: Record<string, number> = {};
      timing.current = t;
      const started = performance.now();
      const report = await gatewayReconciliation(reportPool, period);
      reportSeconds.push((performance.now() - started) / 1000);
      timings.push(t);
      balanced &&= report.balanced;
      summary = {
        balanced: report.balanced, days: report.trialBalance.days.length, postings: report.trialBalance.total.postings,
        merchantsChecked: report.merchants.checked, payments: report.holdingCredits.total.payments, unmatchedCredits: report.unmatchedCredits.length,
        lateCredits: report.unmatchedCredits.filter(c => c.latePaymentId).length, feesEarned: report.fees.total.earned,
      };
      const ceilingStarted = performance.now();
      await query(pool, 'BenchSumPerDay', `select (occurred_at at time zone 'Asia/Jakarta')::date as day, sum(amount) from gateway_postings
        where occurred_at >= $1 and occurred_at < $2 group by 1`, [period.startsAt, period.endsAt]);
      ceilingSeconds.push((performance.now() - ceilingStarted) / 1000);
    }
    if (!balanced) throw new Error('the seeded ledger did not reconcile: the seed or the report is wrong');
    const figure = median(reportSeconds);
    const ceiling = median(ceilingSeconds);
    const loadAfter = os.loadavg();
    const header = ['measure', 'seconds (median)', 'rounds', 'ceiling: bare sum per day', 'ratio', 'goal', 'result'];
    const rows = [[
      `report over ${period.days.length} days, ${fmtInt(seeded.postings)} postings`, figure.toFixed(2), reportSeconds.map(x => x.toFixed(2)).join(' / '),
      `${ceiling.toFixed(2)} s (${ceilingSeconds.map(x => x.toFixed(2)).join(' / ')})`, fmtRatio(figure / ceiling), `< ${GOAL_SECONDS} s`,
      figure < GOAL_SECONDS ? 'PASS' : 'FAIL',
    ]];
    const checks = Object.keys(timings[0] ?? {});
    const checkRows = checks.map(name => [name, median(timings.map(t => t[name] ?? 0)).toFixed(0)]);
    console.log(`\n${textTable(header, rows)}\n\n${textTable(['statement', 'ms (median)'], checkRows)}`);
    let commit = 'unknown';
    try {
      commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      // not a git checkout
    }
    const machine = `${os.cpus().length} CPU (${os.cpus()[0]?.model ?? 'unknown'}), load average ${loadBefore[0]!.toFixed(2)} before, ${loadAfter[0]!.toFixed(2)} after`;
    const markdown = [
      '# Benchmark: the gateway reconciliation report over 1,000,000 postings',
      '',
      `${new Date().toISOString()} · code ${commit} · Node ${process.version} · ${machine}${ctx.quick ? ' · **quick run** (a tenth of the data)' : ''}`,
      '',
      `The read models were **seeded with SQL** (the report reads nothing else): ${fmtInt(seeded.postings)} balanced postings of ${fmtInt(scale.merchants)} ` +
        `merchants over ${fmtInt(scale.holdings)} holding accounts and ${scale.days} WIB days from ${firstDay} (${fmtInt(scale.credits)} completed gateway ` +
        `payments credited, 3 postings each; a settlement per merchant and day; a withdrawal requested and paid every fifth day), the payments and ` +
        `their paying mutations, ${fmtInt(scale.expired)} expired payments and ${fmtInt(scale.unmatched)} unmatched credits (half of them paying an expired ` +
        `payment late), then VACUUM ANALYZE; seeding took ${seedSeconds.toFixed(0)} s. An embedded PostgreSQL started as the service starts it ` +
        `(openDatabase), with the service's DDL. Each round runs the report over the whole period (${period.from} to ${period.to}), then the ceiling: ` +
        '`select day, sum(amount) from gateway_postings ... group by day` (one scan of the postings, nothing checked).',
      '',
      markdownTable(header, rows),
      '',
      markdownTable(['statement (one snapshot, one after another)', 'ms (median)'], checkRows),
      '',
      `The report found: ${JSON.stringify(summary)}.`,
    ].join('\n');
    const written = writeResults(NAME, { scale, seeded, seedSeconds, reportSeconds, ceilingSeconds, timings, summary, loadBefore, loadAfter }, markdown);
    console.log(`\nwrote ${written.json}\nwrote ${written.md}`);
  } finally {
    await pool.end();
    await embedded?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
