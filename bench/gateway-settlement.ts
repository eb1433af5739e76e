/**
 * `npm run bench -- gateway-settlement`: the midnight settlement of 100,000 pending gateway credits across 1,000
 * merchants. The service (createService, its own settlement timer and projections, on a test clock) runs on an embedded
 * PostgreSQL of the benchmark; the credits are booked through the ledger's command, as the ledger saga books completed
 * payments (100 per merchant stream, one append each), and the read model catches up before anything is timed. Then
 * the clock moves past 00:00 WIB of the next working day and the settlement is timed until the read model shows no
 * credit pending. Twice: by the service that booked Thursday's credits (its state cache holds every merchant's ledger,
 * the usual midnight), and, for Friday's credits, by a service restarted just before midnight (every ledger read from
 * the store, or from its snapshot). Ceiling, same PostgreSQL, same run: one bare SQL UPDATE marking the same 100,000
 * rows settled in a fresh copy of the table (the median of three). Goals: within 60 s, and within 3x the bare UPDATE.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { TestClock } from '../src/clock.ts';
import { creditGatewayPayment } from '../src/commands/gateway-ledger.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { query } from '../src/db/pool.ts';
import { createLogger } from '../src/logger.ts';
import { createService } from '../src/service.ts';
import { fmtRatio, markdownTable, startBenchPostgres, textTable, writeResults, type BenchContext } from './harness.ts';
import { benchSigningKey } from './signing-key.ts';

type Service = Awaited<ReturnType<typeof createService>>;

const start = (config: Config, clock: TestClock) =>
  createService(config, { clock, log: createLogger('warn'), schedulerTickMs: 3_600_000 });
const pendingCredits = async (service: Service) =>
  Number((await query(service.pool, 'BenchCountUnsettled', 'select count(*) as n from gateway_unsettled')).rows[0]!.n);

/** Books `perMerchant` credits for each merchant through the ledger's command (one append each), 50 merchants at once. */
async function bookCredits(service: Service, clock: TestClock, merchants: string[], perMerchant: number) {
  const holdingAccountId = randomUUID();
  for (let first = 0; first < merchants.length; first += 50) {
    await Promise.all(
      merchants.slice(first, first + 50).map(async merchantId => {
        for (let i = 0; i < perMerchant; i++) {
          const credit = {
            merchantId,
            paymentId: randomUUID(),
            holdingAccountId,
            totalAmount: 50_000 + i,
            fee: 550,
            completedAt: clock.now(),
          };
          await creditGatewayPayment(service.deps, credit, { actor: 'bench', now: clock.now() });
        }
      }),
    );
  }
  await service.projections.waitFor(await service.store.headPosition(), 600_000);
}

/** The bare UPDATE of the rows pending now, each time in a fresh copy of the table: the median of three. */
async function bareUpdate(service: Service, table: string, cutoff: string) {
  const runs: { seconds: number; rows: number }[] = [];
  for (let i = 0; i < 3; i++) {
    const copy = `${table}_${i}`;
    await query(service.pool, 'BenchCopy', `create table ${copy} as select *, false as settled from gateway_unsettled`);
    await query(service.pool, 'BenchAnalyze', `analyze ${copy}`);
    const started = performance.now();
    const updated = await query(
      service.pool,
      'BenchBareUpdate',
      `update ${copy} set settled = true where completed_at < $1`,
      [cutoff],
    );
    runs.push({ seconds: (performance.now() - started) / 1000, rows: updated.rowCount ?? 0 });
    await query(service.pool, 'BenchDropCopy', `drop table ${copy}`);
  }
  return runs.sort((a, b) => a.seconds - b.seconds)[1]!;
}

/** Moves the clock to `midnight` and times the settlement until the read model shows nothing pending. */
async function settleAt(service: Service, clock: TestClock, midnight: string) {
  clock.set(midnight);
  const started = performance.now();
  const settledMerchants = await service.gatewaySettlement.tick();
  await service.projections.waitFor(await service.store.headPosition(), 600_000);
  return { seconds: (performance.now() - started) / 1000, settledMerchants, left: await pendingCredits(service) };
}

export async function run(ctx: BenchContext): Promise<void> {
  const merchantCount = ctx.quick ? 100 : 1000;
  const perMerchant = 100;
  const pg = await startBenchPostgres('bench-settlement');
  const clock = new TestClock('2026-11-26T03:00:00.000Z'); // Thursday 10:00 WIB: credits complete on a working day
  const config = loadConfig({
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'bench-settlement-data-')),
    DATABASE_URL: await pg.createDatabase('service'),
    DIGEST_SIGNING_KEY: benchSigningKey(),
    PORT: '0',
    SANDBOX_PORT: '0',
    LOG_LEVEL: 'warn',
  });
  let service = await start(config, clock);
  try {
    const merchants = Array.from({ length: merchantCount }, () => randomUUID());
    const rounds: {
      name: string;
      pending: number;
      seedSeconds: number;
      seconds: number;
      bareSeconds: number;
      left: number;
      settledMerchants: number;
    }[] = [];
    const day = async (name: string, midnight: string, restart: boolean) => {
      const seedStarted = performance.now();
      await bookCredits(service, clock, merchants, perMerchant);
      const pending = await pendingCredits(service);
      const seedSeconds = (performance.now() - seedStarted) / 1000;
      const bare = await bareUpdate(service, `bench_unsettled_${rounds.length}`, midnight);
      console.log(
        `  ${name}: booked ${pending} pending credits of ${merchantCount} merchants in ${seedSeconds.toFixed(1)} s; bare UPDATE of ${bare.rows} rows (median of 3): ${bare.seconds.toFixed(2)} s`,
      );
      if (restart) {
        await service.close();
        service = await start(config, clock);
      }
      const settled = await settleAt(service, clock, midnight);
      console.log(
        `  ${name}: settled ${settled.settledMerchants} merchants in ${settled.seconds.toFixed(2)} s; ${settled.left} credits left pending`,
      );
      rounds.push({ name, pending, seedSeconds, bareSeconds: bare.seconds, ...settled });
    };
    // Thursday's credits settle at 00:00 WIB Friday; Friday's at 00:00 WIB Monday
    await day('running service', '2026-11-26T17:00:01.000Z', false);
    clock.set('2026-11-27T03:00:00.000Z');
    await day('restarted before midnight', '2026-11-29T17:00:01.000Z', true);

    const header = [
      'settlement at midnight',
      'credits',
      'figure',
      'ceiling (bare UPDATE)',
      'ratio',
      'left pending',
      'goal',
    ];
    const rows = rounds.map(r => [
      `${r.name}: ${merchantCount.toLocaleString('en')} merchants`,
      r.pending.toLocaleString('en'),
      `${r.seconds.toFixed(2)} s`,
      `${r.bareSeconds.toFixed(2)} s`,
      fmtRatio(r.seconds / r.bareSeconds),
      String(r.left),
      `< 60 s: ${r.seconds < 60 ? 'PASS' : 'FAIL'}; < 3x: ${r.seconds / r.bareSeconds <= 3 ? 'PASS' : 'FAIL'}${r.left === 0 ? '' : '; credits left: FAIL'}`,
    ]);
    console.log(textTable(header, rows));
    writeResults(
      'gateway-settlement',
      { merchants: merchantCount, perMerchant, rounds },
      `# Midnight settlement of pending gateway credits\n\n${ctx.quick ? 'Quick run (100 merchants): not a measurement.\n\n' : ''}The service's own settlement (createService on a test clock, its projections applying BalanceSettled) on an embedded PostgreSQL; credits booked through the ledger's command as the ledger saga books them, 100 per merchant stream; timed from the clock passing 00:00 WIB until the read model shows nothing pending. "running service": the service that booked the day's credits (their ledgers in its state cache); "restarted before midnight": a new service, every ledger read from the store or its snapshot. The ceiling: one bare UPDATE of the same rows in a fresh copy of the table, the median of three.\n\n${markdownTable(header, rows)}\n`,
    );
  } finally {
    await service.close();
    await pg.stop();
  }
}
