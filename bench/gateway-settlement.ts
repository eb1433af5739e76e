/**
 * `npm run bench -- gateway-settlement`: the midnight settlement of 100,000 pending gateway credits across 1,000
 * merchants. The service (createService, its own settlement timer and projections, on a test clock) runs on an embedded
 * PostgreSQL of the benchmark; the credits are appended as the ledger decider makes them (100 per merchant stream),
 * and the read model catches up before anything is timed. Then the clock moves past 00:00 WIB of the next working day
 * and the settlement is timed until the read model shows no credit pending. Ceiling, same PostgreSQL, same run: one
 * bare SQL UPDATE marking the same 100,000 rows settled in a copy of the table. Goals (issue 18): within 60 s, and
 * within 3x the bare UPDATE.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { TestClock } from '../src/clock.ts';
import { gatewayLedger, gatewayLedgerStream, type GatewayLedger } from '../src/commands/gateway-ledger.ts';
import { toNewEvents } from '../src/commands/handle.ts';
import { loadConfig } from '../src/config.ts';
import { query } from '../src/db/pool.ts';
import { createLogger } from '../src/logger.ts';
import { createService } from '../src/service.ts';
import { fmtRatio, markdownTable, startBenchPostgres, textTable, writeResults, type BenchContext } from './harness.ts';

export async function run(ctx: BenchContext): Promise<void> {
  const merchants = ctx.quick ? 100 : 1000;
  const perMerchant = 100;
  const pg = await startBenchPostgres('bench-settlement');
  const clock = new TestClock('2026-11-26T03:00:00.000Z'); // Thursday 10:00 WIB: credits complete on a working day
  const config = loadConfig({ DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'bench-settlement-data-')), DATABASE_URL: await pg.createDatabase('service'), PORT: '0', SANDBOX_PORT: '0', LOG_LEVEL: 'warn' });
  const service = await createService(config, { clock, log: createLogger('warn'), schedulerTickMs: 3_600_000 });
  try {
    // seeding: each merchant's 100 credits as the decider makes them, appended in one write per merchant
    const seedStarted = performance.now();
    const ids = Array.from({ length: merchants }, () => randomUUID());
    const holding = randomUUID();
    for (let start = 0; start < ids.length; start += 50) {
      await Promise.all(ids.slice(start, start + 50).map(async merchantId => {
        let state: GatewayLedger = gatewayLedger.initialState();
        const events = [];
        for (let i = 0; i < perMerchant; i++) {
          const made = gatewayLedger.decide(state, { type: 'CreditGatewayPayment', merchantId, paymentId: randomUUID(), holdingAccountId: holding, totalAmount: 50_000 + i, fee: 550, completedAt: clock.now(), now: clock.now() });
          state = made.reduce(gatewayLedger.evolve, state);
          events.push(...made);
        }
        await service.store.append(gatewayLedgerStream(merchantId), toNewEvents(events, { actor: 'bench', now: clock.now() }), 'no_stream');
      }));
    }
    await service.projections.waitFor(await service.store.headPosition(), 600_000);
    const pending = Number((await query(service.pool, 'BenchCountUnsettled', 'select count(*) as n from gateway_unsettled')).rows[0]!.n);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    console.log(`  seeded ${pending} pending credits of ${merchants} merchants in ${seedSeconds.toFixed(1)} s`);

    // the ceiling: the same rows marked settled by one UPDATE, in a copy
    await query(service.pool, 'BenchCopy', 'create table bench_unsettled as select *, false as settled from gateway_unsettled');
    await query(service.pool, 'BenchAnalyze', 'analyze bench_unsettled');
    const bareStarted = performance.now();
    const updated = await query(service.pool, 'BenchBareUpdate', `update bench_unsettled set settled = true where completed_at < $1`, ['2026-11-26T17:00:00.000Z']);
    const bareSeconds = (performance.now() - bareStarted) / 1000;
    console.log(`  bare UPDATE of ${updated.rowCount} rows: ${bareSeconds.toFixed(2)} s`);

    // midnight: 00:00 WIB Friday, the first working day after Thursday
    clock.set('2026-11-26T17:00:01.000Z');
    const started = performance.now();
    const settledMerchants = await service.gatewaySettlement.tick();
    await service.projections.waitFor(await service.store.headPosition(), 600_000);
    const seconds = (performance.now() - started) / 1000;
    const left = Number((await query(service.pool, 'BenchCountUnsettled', 'select count(*) as n from gateway_unsettled')).rows[0]!.n);
    console.log(`  settled ${settledMerchants} merchants in ${seconds.toFixed(2)} s; ${left} credits left pending`);

    const header = ['measure', 'figure', 'ceiling (bare UPDATE)', 'ratio', 'goal'];
    const rows = [
      [`settle ${pending.toLocaleString('en')} pending credits of ${merchants.toLocaleString('en')} merchants`, `${seconds.toFixed(2)} s`, `${bareSeconds.toFixed(2)} s`, fmtRatio(seconds / bareSeconds), `< 60 s: ${seconds < 60 ? 'PASS' : 'FAIL'}; < 3x: ${seconds / bareSeconds <= 3 ? 'PASS' : 'FAIL'}`],
      ['credits still pending after it', String(left), '0', '', left === 0 ? 'PASS' : 'FAIL'],
    ];
    console.log(textTable(header, rows));
    writeResults(
      'gateway-settlement',
      { merchants, perMerchant, pending, seedSeconds, seconds, bareSeconds, left, settledMerchants },
      `# Midnight settlement of pending gateway credits\n\n${ctx.quick ? 'Quick run (100 merchants): not a measurement.\n\n' : ''}The service's own settlement (createService on a test clock, its projections applying BalanceSettled) on an embedded PostgreSQL; seeded through the ledger decider, 100 credits per merchant stream; timed from the clock passing 00:00 WIB until the read model shows nothing pending. The ceiling: one bare UPDATE of the same rows in a copy.\n\n${markdownTable(header, rows)}\n`,
    );
  } finally {
    await service.close();
    await pg.stop();
  }
}
