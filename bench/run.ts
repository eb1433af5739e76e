/**
 * `npm run bench [-- [--quick] [--ref <git ref>] [--compare-ref <git ref>] [name ...]]`: runs the benchmarks of bench/
 * in order, or only those named. `--quick` shortens every measurement, for a smoke run. The benchmarks that start the
 * service as its own process (payments) run that of `--ref` (a git worktree) instead of this checkout's working tree,
 * and with `--compare-ref` also that commit's, in alternating rounds. Never part of `npm test`.
 */
import type { BenchContext } from './harness.ts';

type Benchmark = {
  name: string;
  description: string;
  runsCommits?: boolean;
  run: (ctx: BenchContext) => Promise<void>;
};

const benchmarks: Benchmark[] = [
  {
    name: 'event-store-append',
    description: 'append throughput: our PostgreSQL event store vs plain INSERT vs Emmett',
    run: async ctx => (await import('./event-store-append.ts')).run(ctx),
  },
  {
    name: 'verify-log',
    description:
      'verify-log over 1,000,000 events written by SQL: the chain built as the subscriber builds it, then recomputed and checked',
    run: async ctx => (await import('./verify-log.ts')).run(ctx),
  },
  {
    name: 'witness',
    description:
      "a witness (docs/witness.mjs) catching up 100,000 events from seq 0 over the service's auditor routes, real HTTP",
    run: async ctx => (await import('./witness.ts')).run(ctx),
  },
  {
    name: 'ledger-self-check',
    description:
      "the ledger's start-up check over a newest checkpoint of 100,000 events (a day's worth): root and pending recomputed",
    run: async ctx => (await import('./ledger-self-check.ts')).run(ctx),
  },
  {
    name: 'ledger-append',
    description:
      'event append with the ledger checkpoint subscriber running against the same appends without it, rounds alternating',
    run: async ctx => (await import('./ledger-append.ts')).run(ctx),
  },
  {
    name: 'mutations-query',
    description: 'GET /api/v1/mutations latency over 1,000,000 mutations vs the same SQL run directly',
    run: async ctx => (await import('./mutations-query.ts')).run(ctx),
  },
  {
    name: 'payments',
    description:
      'the service as npm start runs it vs a bare INSERT route, each in its own process; payment-to-webhook latency',
    runsCommits: true,
    run: async ctx => (await import('./payments.ts')).run(ctx),
  },
  {
    name: 'receiving-payables',
    description:
      "a busy receiving account's payables: reserving and completing per payment, as pending payments pile up",
    run: async ctx => (await import('./receiving-payables.ts')).run(ctx),
  },
  {
    name: 'account-sync',
    description: 'scheduled sync of 10,000 accounts at a 5-minute interval against the sandbox: lag and throughput',
    run: async ctx => (await import('./account-sync.ts')).run(ctx),
  },
  {
    name: 'gateway-payments',
    description:
      'GATEWAY payment creation (into holding accounts, with the fee) against direct payment creation, same service, rounds alternating',
    run: async ctx => (await import('./gateway-payments.ts')).run(ctx),
  },
  {
    name: 'gateway-settlement',
    description:
      'the midnight settlement of 100,000 pending gateway credits of 1,000 merchants, against a bare SQL UPDATE of the same rows',
    run: async ctx => (await import('./gateway-settlement.ts')).run(ctx),
  },
  {
    name: 'qr-decode',
    description:
      'an uploaded QR image (clean PNG, 12-megapixel photo) to a validated QRIS in the worker pool: p50/p99; /health p99 while 4 noise PNGs decode (npm start)',
    run: async ctx => (await import('./qr-decode.ts')).run(ctx),
  },
  {
    name: 'transfers',
    description: 'bank-create throughput on one WALLET-A account against as many payment creations into one account',
    run: async ctx => (await import('./transfers.ts')).run(ctx),
  },
  {
    name: 'fast-completion',
    description:
      'payment to webhook with nobody asking (checks of pending payments) at 50 and 1,000 accounts; scheduled-sync lag; checks/min',
    run: async ctx => (await import('./fast-completion.ts')).run(ctx),
  },
  {
    name: 'gateway-statement',
    description:
      "a merchant's statement (GET /api/v1/gateway/transactions) over 1,000,000 entries: page p95 per case vs the same SQL (goal < 20 ms)",
    run: async ctx => (await import('./gateway-statement.ts')).run(ctx),
  },
  {
    name: 'gateway-reconciliation',
    description:
      'the gateway reconciliation for one day out of a year of 1,000,000 ledger postings (log folded) vs the bare SQL of its balances (goal < 2 s)',
    run: async ctx => (await import('./gateway-reconciliation.ts')).run(ctx),
  },
  {
    name: 'storage',
    description:
      "database bytes per payment, table by table, over the life of 1,500 QRIS payments (a third paid, the rest expired, webhooks to an endpoint that is down) after the retention, against the bare INSERT route's row (goal 2 KB, events 1 KB)",
    run: async ctx => (await import('./storage.ts')).run(ctx),
  },
  {
    name: 'standby-wait',
    description:
      'creating and revoking an API key (each waits for the read models) on the instance applying them vs one standing by (npm start twice, one database): p50/p99',
    run: async ctx => (await import('./standby-wait.ts')).run(ctx),
  },
];

function usage(): string {
  return [
    'usage: npm run bench -- [--quick] [--ref <git ref>] [--compare-ref <git ref>] [name ...]',
    '',
    '  --quick                  short measurements, a smoke run',
    "  --ref <git ref>          run that commit's service (a temporary git worktree) instead of this working tree's",
    "  --compare-ref <git ref>  also run that commit's service (a temporary git worktree), alternating rounds",
    '',
    'benchmarks:',
    ...benchmarks.map(b => `  ${b.name.padEnd(24)} ${b.description}`),
  ].join('\n');
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(usage());
    return 0;
  }
  const refs: { ref?: string; compareRef?: string } = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const option = (['ref', 'compareRef'] as const).find(o => {
      const flag = o === 'ref' ? '--ref' : '--compare-ref';
      return arg === flag || arg.startsWith(`${flag}=`);
    });
    if (!option) continue;
    const inline = arg.indexOf('=');
    const value = inline >= 0 ? arg.slice(inline + 1) : args[i + 1];
    if (!value || value.startsWith('-')) {
      console.error(`${inline >= 0 ? arg.slice(0, inline) : arg} needs a git ref\n\n${usage()}`);
      return 2;
    }
    refs[option] = value;
    args.splice(i, inline >= 0 ? 1 : 2);
    i--;
  }
  const unknownFlags = args.filter(a => a.startsWith('-') && a !== '--quick');
  if (unknownFlags.length > 0) {
    console.error(`unknown option ${unknownFlags.join(' ')}\n\n${usage()}`);
    return 2;
  }
  const quick = args.includes('--quick');
  const names = args.filter(a => !a.startsWith('-'));
  const unknown = names.filter(n => !benchmarks.some(b => b.name === n));
  if (unknown.length > 0) {
    console.error(`unknown benchmark ${unknown.join(', ')}\n\n${usage()}`);
    return 2;
  }
  const selected = names.length > 0 ? benchmarks.filter(b => names.includes(b.name)) : benchmarks;
  if ((refs.ref !== undefined || refs.compareRef !== undefined) && !selected.some(b => b.runsCommits)) {
    console.error(
      `--ref, --compare-ref: none of ${selected.map(b => b.name).join(', ')} runs another commit (payments does)`,
    );
    return 2;
  }

  // Stop cleanly on Ctrl-C: the benchmark ends its measurement and stops its database in its finally blocks.
  // A second signal exits at once.
  const abort = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (abort.signal.aborted) process.exit(130);
    console.error(`\n${signal}: stopping (again to force)`);
    abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  let failed = 0;
  for (const bench of selected) {
    if (abort.signal.aborted) break;
    console.log(`\n=== ${bench.name}${quick ? ' (quick)' : ''} ===`);
    const started = Date.now();
    try {
      await bench.run({ quick, signal: abort.signal, ...(bench.runsCommits ? refs : {}) });
      const took = `${((Date.now() - started) / 1000).toFixed(1)} s`;
      console.log(`=== ${bench.name} ${abort.signal.aborted ? 'aborted' : 'done'} after ${took} ===`);
    } catch (err) {
      failed++;
      console.error(`=== ${bench.name} FAILED ===`);
      console.error(err);
    }
  }
  if (abort.signal.aborted) return 130;
  return failed > 0 ? 1 : 0;
}

// Pools, timers or sockets a library leaves behind must not keep the process alive.
main().then(
  code => process.exit(code),
  err => {
    console.error(err);
    process.exit(1);
  },
);
