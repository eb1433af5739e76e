/**
 * Payment creation over HTTP, measured from outside as a user runs the service: `POST /api/v1/payments`
 * (QRIS-DYNAMIC into linked sandbox wallets) against a bare fastify route doing one prepared INSERT, each in a process
 * of its own on an embedded PostgreSQL of its own, under autocannon in a third process:
 *
 * - the service: this checkout's `npm start` command (bench/processes.ts), with its own DATA_DIR, PORT and
 *   SANDBOX_PORT and WEBHOOK_ALLOW_PRIVATE (the webhook endpoint below is on loopback), set up over HTTP like a merchant
 *   would (register, API key, sandbox wallets linked);
 * - the bare route: bench/payments-bare.ts;
 * - the load generator: bench/payments-load.ts (autocannon, 32 connections);
 * - with `--compare-ref <git ref>`, the same service from that commit too (a `git worktree` in a temporary folder,
 *   with this checkout's node_modules when they hold every package its lockfile names, `npm ci` otherwise), removed
 *   afterwards.
 *
 * Loads: the bare route; payments into one receiving account; the same from two instances of the service on one
 * database (bench/processes.ts, startAnotherInstance), half the connections each; payments spread over four accounts;
 * payments into one account at a steady 200/s (its p99; an open loop of the load generator's own). Goals: 1 and 4
 * accounts each at least 0.5x the bare route, p99 under 50 ms at the steady pace, two instances at least as fast as one. Rounds alternate between
 * all of them (reversed every other round), and each target is left to finish its backlog (its CPU back near idle)
 * before the next load starts. The ratios are medians of the rounds' ratios. Then the time from a sandbox payment to
 * its webhook, on this checkout's service.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../src/db/free-port.ts';
import { fmtInt, fmtRatio, markdownTable, sleep, textTable, writeResults, type BenchContext } from './harness.ts';
import type { LoadRequest, LoadResult, LoadTarget } from './payments-load.ts';
import {
  killOnExit,
  machineBusyMs,
  startAnotherInstance,
  startService,
  treeCpuMs,
  type StartedService,
  type TreeCpu,
} from './processes.ts';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(benchDir, '..');
/** How the bench's own children run: TypeScript through tsx, with the young generation the service's start script sets. */
const childExecArgv = ['--max-semi-space-size=64', '--import', 'tsx'];

type Merchant = { key: string; accountIds: string[]; phones: string[]; email: string; cookie: string };

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${url}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** A merchant: registered, with an API key and `accounts` WALLET-D accounts linked through the sandbox. */
export async function merchant(baseUrl: string, n: number, accounts: number): Promise<Merchant> {
  const email = `merchant${n}-${Date.now()}@bench.example`;
  const registered = await fetch(`${baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: `Merchant ${n}`, email, password: 'rahasia123' }),
  });
  if (!registered.ok) throw new Error(`register: ${registered.status} ${await registered.text()}`);
  const cookie = registered.headers.get('set-cookie')!.split(';')[0]!;
  const key = (
    (await postJson(`${baseUrl}/api/dashboard/api-keys`, { name: 'bench' }, { cookie })).data as { key: string }
  ).key;
  const accountIds: string[] = [];
  const phones: string[] = [];
  for (let i = 0; i < accounts; i++) {
    const phoneNumber = `0819${String(n).padStart(3, '0')}${String(i).padStart(5, '0')}`;
    const linked = await postJson(
      `${baseUrl}/api/v1/accounts`,
      { type: 'ewallet', providerCode: 'WALLET-D', accountName: `Till ${i}`, intervalMinutes: 1440, phoneNumber },
      { 'x-api-key': key },
    );
    accountIds.push(linked.accountId as string);
    phones.push(phoneNumber);
  }
  return { key, accountIds, phones, email, cookie };
}

const git = (args: string[], cwd = repoRoot) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * The packages `lock` (a package-lock.json) names that this checkout's node_modules does not hold at the same version
 * (optional ones for other platforms aside): none, and another checkout can use these node_modules as they are.
 */
function packagesNotInstalled(lock: {
  packages?: Record<string, { version?: string; optional?: boolean; link?: boolean }>;
}): string[] {
  const missing: string[] = [];
  for (const [where, entry] of Object.entries(lock.packages ?? {})) {
    if (where === '' || entry.link || !entry.version) continue;
    const manifest = path.join(repoRoot, where, 'package.json');
    if (!existsSync(manifest)) {
      if (!entry.optional) missing.push(`${where} (absent)`);
      continue;
    }
    const installed = (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version;
    if (installed !== entry.version) missing.push(`${where} (${installed} installed, ${entry.version} locked)`);
  }
  return missing;
}

type Checkout = { dir: string; commit: string; remove(): void };

/** A detached `git worktree` of `ref` in `into` (outside the repository), ready to `npm start`. */
export function worktreeCheckout(ref: string, into: string): Checkout {
  const commit = git(['rev-parse', '--verify', `${ref}^{commit}`]).trim();
  git(['worktree', 'add', '--detach', into, commit]);
  const modules = path.join(into, 'node_modules');
  const remove = () => {
    try {
      unlinkSync(modules); // the link only, never what it points to
    } catch {
      // not a link (npm ci) or absent
    }
    try {
      git(['worktree', 'remove', '--force', into]);
    } catch {
      rmSync(into, { recursive: true, force: true });
    }
    git(['worktree', 'prune']);
  };
  try {
    const missing = packagesNotInstalled(JSON.parse(git(['show', `${commit}:package-lock.json`])));
    if (missing.length === 0) {
      symlinkSync(path.join(repoRoot, 'node_modules'), modules, 'dir');
    } else {
      console.log(
        `  ${commit.slice(0, 7)} locks ${missing.length} package(s) not installed here (${missing.slice(0, 3).join(', ')}...): npm ci in ${into}`,
      );
      execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: into, stdio: 'inherit' });
    }
  } catch (err) {
    remove();
    throw err;
  }
  return { dir: into, commit, remove };
}

/** A bench script forked as its own process, once it said it is ready. */
export async function forkReady<Ready>(script: string): Promise<{ child: ChildProcess; ready: Ready }> {
  const child = fork(path.join(benchDir, script), [], {
    cwd: repoRoot,
    execArgv: childExecArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('message', m => resolve(m as Ready));
    child.once('exit', code => reject(new Error(`${script} exited (${code}) before it was ready`)));
    child.once('error', reject);
  });
  return { child, ready };
}

export const stopChild = async (child: ChildProcess) => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>(resolve => child.once('exit', () => resolve()));
  if (child.connected) child.send({ type: 'stop' });
  else child.kill('SIGTERM');
  if ((await Promise.race([exited.then(() => 'exited'), sleep(30_000).then(() => 'late')])) === 'late') {
    child.kill('SIGKILL');
    await exited;
  }
};

/** The load generator's process: one load at a time, over IPC. */
export class LoadGenerator {
  private nextId = 0;
  private pending = new Map<number, { resolve: (r: LoadResult) => void; reject: (e: Error) => void }>();
  constructor(readonly child: ChildProcess) {
    child.on('message', message => {
      const m = message as { type: string; id: number; result?: LoadResult; error?: string };
      const waiting = this.pending.get(m.id);
      if (!waiting) return;
      this.pending.delete(m.id);
      if (m.type === 'result') waiting.resolve(m.result!);
      else waiting.reject(new Error(`load generator: ${m.error}`));
    });
    child.on('exit', code => {
      for (const w of this.pending.values()) w.reject(new Error(`load generator exited (${code})`));
      this.pending.clear();
    });
  }
  run(load: LoadRequest): Promise<LoadResult> {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.send({ type: 'run', id, load });
    });
  }
}

type Scenario = 'bare' | 'one' | 'four' | 'two' | 'steady';

/**
 * A load's target: where it goes (split across instances, at a steady pace), and the process trees whose CPU it is
 * (the first one's holds the embedded PostgreSQL).
 */
type Target = {
  id: string;
  label: string;
  scenario: Scenario;
  side: 'bare' | 'this' | 'ref';
  pids: number[];
  load: LoadTarget;
  splitAcross?: string[];
  overallRate?: number;
};

type Run = LoadResult & {
  round: number;
  /** CPU per answered request, µs: the target's Node processes, its PostgreSQL, the load generator */
  nodeCpuUs: number | null;
  pgCpuUs: number | null;
  generatorCpuUs: number;
  /** share of the machine's CPUs (all of them) busy with processes that are not this benchmark's, during the load */
  othersShare: number | null;
  /** seconds until the target's CPU was back near idle after the load (its backlog: projections, sagas, ...) */
  settleSec: number;
};

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
const latencyCells = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return [
    fmtInt(sorted.length),
    ...[50, 90, 99].map(p => percentile(sorted, p).toFixed(0)),
    (sorted.at(-1) ?? NaN).toFixed(0),
  ];
};
const fmtPct = (share: number | null) =>
  share === null || !Number.isFinite(share) ? 'n/a' : `${Math.round(share * 100)} %`;

/**
 * A merchant with a webhook endpoint in this (the benchmark's) process: each payment is paid in the sandbox (a
 * transfer of its total into the wallet), the merchant asks for a sync, and the time until the signed
 * payment.completed arrives is kept.
 */
async function paymentToWebhook(baseUrl: string, sandboxUrl: string, m: Merchant, count: number, concurrency: number) {
  const arrived = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', c => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(204).end();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { id: string } };
      if (body.type !== 'payment.completed') return;
      arrived.set(body.data.id, at);
      waiters.get(body.data.id)?.();
    });
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await postJson(`${baseUrl}/api/v1/webhooks`, { url: `http://127.0.0.1:${port}/hooks` }, { 'x-api-key': m.key });
  const fromPayment: number[] = [];
  const fromRefresh: number[] = [];
  let next = 0;
  const worker = async (lane: number) => {
    const accountId = m.accountIds[lane % m.accountIds.length]!;
    const phone = m.phones[lane % m.phones.length]!;
    while (next < count) {
      next++;
      const created = (
        await postJson(
          `${baseUrl}/api/v1/payments`,
          {
            amount: 20_000,
            walletAccountId: accountId,
            type: 'QRIS-DYNAMIC',
            redirectUrl: 'https://shop.example/thanks',
            orderId: `latency-${randomUUID()}`,
          },
          { 'x-api-key': m.key },
        )
      ).data as { id: string; totalAmount: number };
      const seen = new Promise<void>(resolve =>
        arrived.has(created.id) ? resolve() : waiters.set(created.id, resolve),
      );
      const paidAt = performance.now();
      await postJson(`${sandboxUrl}/sandbox/payments`, {
        accountNumber: phone,
        providerCode: 'WALLET-D',
        amount: created.totalAmount,
      });
      const refreshAt = performance.now();
      const refreshed = await fetch(`${baseUrl}/api/v1/accounts/${accountId}/refresh`, {
        headers: { 'x-api-key': m.key },
      });
      const answer = await refreshed.text();
      if (!refreshed.ok) throw new Error(`refresh ${accountId}: ${refreshed.status} ${answer}`);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>(
        (_, reject) =>
          (timer = setTimeout(() => reject(new Error(`no webhook for payment ${created.id} within 60 s`)), 60_000)),
      );
      await Promise.race([seen, late]).finally(() => clearTimeout(timer));
      fromPayment.push(arrived.get(created.id)! - paidAt);
      fromRefresh.push(arrived.get(created.id)! - refreshAt);
    }
  };
  // one lane per account: two syncs of one account at once would only wait on each other
  await Promise.all(Array.from({ length: Math.min(concurrency, m.accountIds.length) }, (_, lane) => worker(lane)));
  server.closeAllConnections();
  await new Promise<void>(resolve => server.close(() => resolve()));
  return { fromPayment, fromRefresh };
}

export async function run(ctx: BenchContext): Promise<void> {
  const duration = ctx.quick ? 3 : 10;
  // this machine's speed drifts by a third from one minute to the next: every target in every round, in turns
  // an even number of rounds: as many in order as reversed
  const rounds = ctx.quick ? 1 : 6;
  const warmupSec = ctx.quick ? 1 : 3;
  const connections = 32;
  // the goal: p99 under 50 ms at this steady pace, into one account
  const steadyRate = 200;
  const latencyPayments = ctx.quick ? 40 : 300;
  const latencyConcurrency = 8;
  const cpus = os.cpus().length;
  const loadBefore = os.loadavg();
  const headCommit = git(['rev-parse', 'HEAD']).trim();
  // the working tree runs unless --ref names a commit: what it holds beyond HEAD is said
  const dirty = ctx.ref ? '' : git(['status', '--porcelain', '--', 'src', 'package.json', 'package-lock.json']).trim();
  console.log(
    `payment creation, each in its own process: the service (npm start) vs a bare INSERT route, autocannon ${connections} connections in a third, ${duration} s per load, ${rounds} round(s)`,
  );
  console.log(
    `  load average ${loadBefore.map(l => l.toFixed(2)).join(' ')} on ${cpus} CPUs${loadBefore[0]! > cpus * 0.5 ? ': the results will be noisy' : ''}`,
  );
  if (dirty)
    console.log(
      `  note: this checkout's src/ or package files have uncommitted changes, which run too (--ref HEAD runs the commit alone):\n${dirty.replace(/^/gm, '    ')}`,
    );

  const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-payments-'));
  // run as root, the embedded PostgreSQL runs as 'postgres', which must pass through to its data folder
  chmodSync(tmp, 0o711);
  const cleanup: (() => Promise<void> | void)[] = [];
  // a benchmark ended by a second Ctrl-C (process.exit) must not leave services behind
  const started: StartedService[] = [];
  const killServices = killOnExit(started);
  try {
    // the reference checkout first: the slowest step, and the one most likely to fail
    const checkout = (ref: string, name: string) => {
      console.log(`${ref}: a git worktree ...`);
      const c = worktreeCheckout(ref, path.join(tmp, name));
      cleanup.push(() => c.remove());
      return c;
    };
    const measured = ctx.ref ? checkout(ctx.ref, 'measured') : undefined;
    const reference = ctx.compareRef ? checkout(ctx.compareRef, 'reference') : undefined;
    const measuredCommit = measured?.commit ?? headCommit;

    console.log('bare INSERT route: own process, own embedded PostgreSQL ...');
    const bare = await forkReady<{ url: string; pid: number; version: string }>('payments-bare.ts');
    cleanup.push(() => stopChild(bare.child));

    const services: {
      side: 'this' | 'ref';
      commit: string;
      service: StartedService;
      second: StartedService | null;
      one: Merchant;
      four: Merchant;
    }[] = [];
    const sides: { side: 'this' | 'ref'; checkout: string; commit: string }[] = [
      { side: 'this', checkout: measured?.dir ?? repoRoot, commit: measuredCommit },
    ];
    if (reference) sides.push({ side: 'ref', checkout: reference.dir, commit: reference.commit });
    for (const s of sides) {
      console.log(
        `service of ${s.side === 'this' && !measured ? 'this checkout' : s.commit.slice(0, 7)}: npm start's command, own DATA_DIR ...`,
      );
      const service = await startService({
        checkout: s.checkout,
        dataDir: mkdtempSync(path.join(tmp, `data-${s.side}-`)),
        port: await freePort(),
        sandboxPort: await freePort(),
        logFile: path.join(tmp, `service-${s.side}.log`),
        // the payment-to-webhook measure's endpoint is in this process, on loopback, which the service refuses unless told
        env: { WEBHOOK_ALLOW_PRIVATE: 'true' },
      });
      started.push(service);
      cleanup.push(() => service.stop());
      // the measured service's second instance, on its database: stopped first (cleanup runs backwards)
      let second: StartedService | null = null;
      if (s.side === 'this') {
        console.log("  its second instance: the same command, DATABASE_URL on the first one's PostgreSQL ...");
        second = await startAnotherInstance(service, {
          dataDir: mkdtempSync(path.join(tmp, 'data-second-')),
          port: await freePort(),
          sandboxPort: await freePort(),
          logFile: path.join(tmp, 'service-second.log'),
        });
        started.push(second);
        const stopSecond = second.stop;
        cleanup.push(() => stopSecond());
      }
      // one merchant per scenario: a till of its own (also loaded from both instances), and four
      const one = await merchant(service.url, 1, 1);
      const four = await merchant(service.url, 2, 4);
      services.push({ side: s.side, commit: s.commit, service, second, one, four });
    }

    const generator = await forkReady<{ pid: number }>('payments-load.ts');
    cleanup.push(() => stopChild(generator.child));
    const loads = new LoadGenerator(generator.child);

    const bareTarget: Target = {
      id: 'bare',
      label: 'bare INSERT route',
      scenario: 'bare',
      side: 'bare',
      pids: [bare.ready.pid],
      load: { kind: 'bare', url: `${bare.ready.url}` },
    };
    const serviceTargets = (scenario: 'one' | 'four') =>
      services.map(({ side, commit, service, one, four }): Target => {
        const m = scenario === 'one' ? one : four;
        const who = side === 'this' ? 'payments' : `payments at ${commit.slice(0, 7)}`;
        return {
          id: `${side}-${scenario}`,
          label: `${who}, into ${scenario === 'one' ? '1 account' : '4 accounts'}`,
          scenario,
          side,
          // the service is the first instance (the second idles beside it, its CPU in neither figure)
          pids: [service.pid],
          load: { kind: 'payments', url: service.url, key: m.key, accountIds: m.accountIds },
        };
      });
    const ours = services.find(s => s.side === 'this')!;
    const oneAccount = {
      kind: 'payments' as const,
      url: ours.service.url,
      key: ours.one.key,
      accountIds: ours.one.accountIds,
    };
    const twoTarget: Target = {
      id: 'this-two',
      label: 'payments, into 1 account from 2 instances',
      scenario: 'two',
      side: 'this',
      pids: [ours.service.pid, ours.second!.pid],
      load: oneAccount,
      splitAcross: [ours.service.url, ours.second!.url],
    };
    const steadyTarget: Target = {
      id: 'this-steady',
      label: `payments, into 1 account at a steady ${steadyRate}/s`,
      scenario: 'steady',
      side: 'this',
      pids: [ours.service.pid],
      load: oneAccount,
      overallRate: steadyRate,
    };
    // adjacent loads of the two services in each scenario, and of one and two instances, so that their ratios span
    // the shortest time
    const targets = [bareTarget, ...serviceTargets('one'), twoTarget, ...serviceTargets('four'), steadyTarget];
    const roots = [
      bare.ready.pid,
      ...services.flatMap(s => [s.service.pid, ...(s.second ? [s.second.pid] : [])]),
      generator.ready.pid,
    ];

    /** The CPU so far of these process trees, added up (null: not measurable here). */
    const treesCpuMs = (pids: number[]): TreeCpu | null => {
      const trees = pids.map(pid => treeCpuMs(pid));
      if (trees.some(t => t === null)) return null;
      return trees.reduce<TreeCpu>((a, t) => ({ nodeMs: a.nodeMs + t!.nodeMs, pgMs: a.pgMs + t!.pgMs }), {
        nodeMs: 0,
        pgMs: 0,
      });
    };

    /** Waits until the target's processes use under 15 % of one CPU over half a second (at most 30 s). */
    const settle = async (pids: number[]) => {
      const t0 = performance.now();
      let before = treesCpuMs(pids);
      if (!before) return 0;
      while (performance.now() - t0 < 30_000) {
        await sleep(500);
        const now = treesCpuMs(pids);
        if (!now) break;
        const used = now.nodeMs + now.pgMs - before.nodeMs - before.pgMs;
        before = now;
        if (used < 75) break;
      }
      return (performance.now() - t0) / 1000;
    };

    const measure = async (target: Target, round: number, seconds: number, conns: number): Promise<Run> => {
      const trees = () => roots.map(pid => treeCpuMs(pid));
      const sum = (cpu: (TreeCpu | null)[]) => cpu.reduce((a, c) => a + (c ? c.nodeMs + c.pgMs : 0), 0);
      const target0 = treesCpuMs(target.pids);
      const all0 = trees();
      const self0 = process.cpuUsage();
      const busy0 = machineBusyMs();
      const t0 = performance.now();
      const result = await loads.run({
        target: target.load,
        connections: conns,
        durationSec: seconds,
        overallRate: target.overallRate,
        splitAcross: target.splitAcross,
      });
      const wallMs = performance.now() - t0;
      const busy1 = machineBusyMs();
      const self = process.cpuUsage(self0);
      const all1 = trees();
      const target1 = treesCpuMs(target.pids);
      const answered = Math.max(1, result.ok + result.non2xx);
      const ours = sum(all1) - sum(all0) + (self.user + self.system) / 1000;
      const othersShare = busy0 === null || busy1 === null ? null : Math.max(0, busy1 - busy0 - ours) / (wallMs * cpus);
      const settleSec = await settle(target.pids);
      return {
        ...result,
        round,
        nodeCpuUs: target0 && target1 ? ((target1.nodeMs - target0.nodeMs) * 1000) / answered : null,
        pgCpuUs: target0 && target1 ? ((target1.pgMs - target0.pgMs) * 1000) / answered : null,
        generatorCpuUs: (result.cpuMs * 1000) / answered,
        othersShare,
        settleSec,
      };
    };

    // warm-up of every path (JIT, prepared statements, caches), not counted
    for (const target of targets) {
      if (ctx.signal.aborted) return;
      console.log(`warm-up: ${target.label} ...`);
      await measure(target, 0, warmupSec, target.overallRate === undefined ? 8 : connections);
    }

    const runs = new Map<string, Run[]>(targets.map(t => [t.id, []]));
    for (let round = 1; round <= rounds; round++) {
      // in order in odd rounds, reversed in even ones: a machine getting faster or slower favours none of them
      const order = round % 2 === 1 ? targets : [...targets].reverse();
      for (const target of order) {
        if (ctx.signal.aborted) return;
        const r = await measure(target, round, duration, connections);
        runs.get(target.id)!.push(r);
        console.log(
          `round ${round} of ${rounds}: ${target.label.padEnd(46)} ${fmtInt(r.rps).padStart(6)}/s  p50 ${r.p50.toFixed(0)} ms  p99 ${r.p99.toFixed(0)} ms` +
            `${r.non2xx + r.errors > 0 ? `  non-2xx ${r.non2xx} errors ${r.errors}` : ''}  others' CPU ${fmtPct(r.othersShare)}  settled in ${r.settleSec.toFixed(1)} s`,
        );
      }
    }

    console.log(
      `payment → webhook: ${fmtInt(latencyPayments)} payments paid in the sandbox, ${latencyConcurrency} at a time ...`,
    );
    const latencyMerchant = await merchant(ours.service.url, 3, latencyConcurrency);
    const latency = await paymentToWebhook(
      ours.service.url,
      ours.service.sandboxUrl,
      latencyMerchant,
      latencyPayments,
      latencyConcurrency,
    );
    const loadAfter = os.loadavg();

    // per round, each target against the bare route of that round; and this checkout against the reference
    const perRound = (a: string, b: string) => runs.get(a)!.map((r, i) => r.rps / runs.get(b)![i]!.rps);
    const summary = targets.map(t => {
      const list = runs.get(t.id)!;
      // a paced load's rate is its pace: its median round is the one of median p99
      const mid = [...list].sort((a, b) => (t.scenario === 'steady' ? a.p99 - b.p99 : a.rps - b.rps))[
        Math.floor(list.length / 2)
      ]!;
      const vsBare = t.id === 'bare' || t.scenario === 'steady' ? null : perRound(t.id, 'bare');
      return { target: t, runs: list, median: mid, vsBare, vsBareMedian: vsBare ? median(vsBare) : null };
    });
    const comparisons = reference
      ? (['one', 'four'] as const).map(scenario => {
          const ratios = perRound(`this-${scenario}`, `ref-${scenario}`);
          return { scenario, ratios, median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
        })
      : [];
    const allRuns = [...runs.values()].flat();
    const others = allRuns.map(r => r.othersShare).filter((s): s is number => s !== null);

    const header = [
      'load',
      'req/s (2xx)',
      'p50 ms',
      'p99 ms',
      'non-2xx + errors',
      'Node CPU µs/req',
      'PG CPU µs/req',
      'generator CPU µs/req',
      'compared with the bare route',
    ];
    const rows = summary.map(s => [
      `${s.target.label} (median of ${rounds})`,
      fmtInt(s.median.rps),
      s.median.p50.toFixed(1),
      s.median.p99.toFixed(1),
      fmtInt(s.runs.reduce((a, r) => a + r.non2xx + r.errors, 0)),
      fmtInt(s.median.nodeCpuUs),
      fmtInt(s.median.pgCpuUs),
      fmtInt(s.median.generatorCpuUs),
      s.vsBare
        ? `${fmtRatio(s.vsBareMedian)} (rounds: ${s.vsBare.map(fmtRatio).join(', ')})`
        : s.target.scenario === 'steady'
          ? `paced, not compared (p99 of the rounds: ${s.runs.map(r => r.p99.toFixed(0)).join(', ')} ms)`
          : `the ceiling (rounds: ${s.runs.map(r => fmtInt(r.rps)).join(', ')} req/s)`,
    ]);
    const measuredName = measured ? measuredCommit.slice(0, 7) : 'this checkout';
    const compareHeader = [
      'payments',
      `${measuredName} req/s`,
      `${reference?.commit.slice(0, 7)} req/s`,
      `${measuredName} / ${reference?.commit.slice(0, 7)} (median of rounds)`,
      'rounds',
    ];
    const compareRows = comparisons.map(c => [
      c.scenario === 'one' ? 'into 1 account' : 'into 4 accounts',
      fmtInt(summary.find(s => s.target.id === `this-${c.scenario}`)!.median.rps),
      fmtInt(summary.find(s => s.target.id === `ref-${c.scenario}`)!.median.rps),
      fmtRatio(c.median),
      c.ratios.map(fmtRatio).join(', '),
    ]);
    const ratioOf = (id: string) => summary.find(s => s.target.id === id)!.vsBareMedian!;
    const steady = summary.find(s => s.target.id === 'this-steady')!;
    const steadyP99 = steady.median.p99;
    const steadyFailed = steady.runs.reduce((a, r) => a + r.non2xx + r.errors, 0);
    const steadyKept = steady.runs.every(r => r.rps >= steadyRate * 0.95);
    const twoVsOne = perRound('this-two', 'this-one');
    const goals = [
      [
        'payments into 1 account ≥ 0.5× the bare route',
        fmtRatio(ratioOf('this-one')),
        ratioOf('this-one') >= 0.5 ? 'PASS' : 'MISS',
      ],
      [
        'payments into 4 accounts ≥ 0.5× the bare route',
        fmtRatio(ratioOf('this-four')),
        ratioOf('this-four') >= 0.5 ? 'PASS' : 'MISS',
      ],
      [
        `p99 < 50 ms at a steady ${steadyRate} payments/s (1 account)`,
        `${steadyP99.toFixed(0)} ms (median of the rounds' p99; ${steadyFailed} non-2xx${steadyKept ? '' : `; the pace fell below ${steadyRate}/s`})`,
        steadyP99 < 50 && steadyFailed === 0 && steadyKept ? 'PASS' : 'MISS',
      ],
      [
        '1 account from 2 instances (same database) ≥ from 1',
        `${fmtRatio(median(twoVsOne))} (rounds: ${twoVsOne.map(fmtRatio).join(', ')})`,
        median(twoVsOne) >= 1 ? 'PASS' : 'MISS',
      ],
    ];
    const latencyHeader = ['from', 'to', 'count', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'];
    const latencyRows = [
      ['sandbox payment made', 'webhook received', ...latencyCells(latency.fromPayment)],
      ['sync asked (refresh)', 'webhook received', ...latencyCells(latency.fromRefresh)],
    ];
    const othersLine =
      others.length > 0 ? `median ${fmtPct(median(others))}, max ${fmtPct(Math.max(...others))}` : 'n/a';
    console.log(`\n${textTable(header, rows)}`);
    if (comparisons.length > 0) console.log(`\n${textTable(compareHeader, compareRows)}`);
    console.log(`\n${textTable(['goal', 'actual', 'result'], goals)}\n\n${textTable(latencyHeader, latencyRows)}`);
    console.log(
      `\nload average before ${loadBefore.map(l => l.toFixed(2)).join(' ')}, after ${loadAfter.map(l => l.toFixed(2)).join(' ')}; CPU of other processes during the loads: ${othersLine} of the machine`,
    );

    const refNote = reference
      ? `; the reference service is commit ${reference.commit.slice(0, 7)} (a git worktree, the same \`npm start\` command and environment)`
      : '';
    const markdown = [
      '# Payment creation',
      '',
      `${ctx.quick ? '**Quick run (a smoke test, not the figures).** ' : ''}${new Date().toISOString()}, ${cpus} vCPU, PostgreSQL ${bare.ready.version} (embedded), Node ${process.version}; the service ${measured ? `at commit ${measuredCommit.slice(0, 7)} (a git worktree)` : `of this checkout at ${headCommit.slice(0, 7)}${dirty ? ' with uncommitted changes in src/ or the package files' : ''}`}${refNote}. autocannon ${connections} connections, ${duration} s per load, ${rounds} round${rounds === 1 ? '' : 's'} over every load (in order in odd rounds, reversed in even ones), each after the previous target's CPU was back near idle; ratios are medians of the rounds' ratios. Load average ${loadBefore.map(l => l.toFixed(2)).join(' ')} before, ${loadAfter.map(l => l.toFixed(2)).join(' ')} after; processes other than this benchmark's took ${othersLine} of the machine's CPU during the loads.`,
      '',
      "Each in its own process, as a user runs them: the service started with `npm start`'s command (`tsx --max-semi-space-size=64 src/main.ts`) with only DATA_DIR (its own embedded PostgreSQL), PORT and SANDBOX_PORT set, and WEBHOOK_ALLOW_PRIVATE=true for the webhook endpoint on loopback (its second instance as said below), logging at its default level to a file, set up over HTTP (register, API key, sandbox wallets linked); the bare route (bench/payments-bare.ts: fastify, JSON body, one named prepared INSERT of a row like a payment, pool of 30 keeping idle connections 10 minutes like the service's, no logging) on an embedded PostgreSQL of its own; autocannon in a third process (bench/payments-load.ts). Every figure is bounded by this machine: its vCPUs are shared by the three processes, two PostgreSQL servers (three with the reference service) and whatever else runs.",
      '',
      markdownTable(header, rows),
      '',
      "req/s counts 2xx answers; p50, p99 and CPU are those of the round with the median rate. CPU per answered request during the load: the target's own Node processes, its own PostgreSQL, and the load generator.",
      ...(comparisons.length > 0
        ? [
            '',
            `The service (${measuredName}) against the reference commit ${reference!.commit.slice(0, 7)}, in the same rounds:`,
            '',
            markdownTable(compareHeader, compareRows),
          ]
        : []),
      '',
      markdownTable(['goal', 'actual', 'result'], goals),
      '',
      `Two instances: a second service process started with the same command on the first one's embedded PostgreSQL (DATABASE_URL as the service's role, the first one's secrets, signing key and sandbox), idle beside the first in every other load (its CPU counted only in the loads that use it); the load into the one account split across both, ${connections / 2} connections each, its p50 and p99 the worse instance's; its ratio is to the one-instance load of the same round. The steady load: one request every ${(1000 / steadyRate).toFixed(0)} ms (${steadyRate}/s) whatever the answers, from the load generator's process over keep-alive connections, into the one account on the first instance; each latency counted from when its request was due (autocannon's overallRate sends each second's share in a burst at the second's start).`,
      '',
      `Payment to webhook (${fmtInt(latencyPayments)} payments, ${latencyConcurrency} at a time into ${latencyConcurrency} accounts of one merchant, on the measured service (not the reference) after the rounds; the merchant asks for a sync right after the customer paid, as the scheduled sync would after its interval; the webhook endpoint in the benchmark's process):`,
      '',
      markdownTable(latencyHeader, latencyRows),
    ].join('\n');
    const written = writeResults(
      'payments',
      {
        at: new Date().toISOString(),
        cpus,
        node: process.version,
        postgres: bare.ready.version,
        commit: measuredCommit,
        worktree: Boolean(measured),
        uncommitted: dirty || null,
        reference: reference ? { ref: ctx.compareRef, commit: reference.commit } : null,
        connections,
        duration,
        rounds,
        loadavgBefore: loadBefore,
        loadavgAfter: loadAfter,
        targets: summary.map(s => ({
          id: s.target.id,
          label: s.target.label,
          runs: s.runs,
          vsBare: s.vsBare,
          vsBareMedian: s.vsBareMedian,
        })),
        comparisons,
        steadyRate,
        twoInstancesVsOne: twoVsOne,
        goals,
        latency,
      },
      markdown,
    );
    console.log(`\nwrote ${written.json}\nwrote ${written.md}`);
  } finally {
    for (const step of cleanup.reverse()) {
      try {
        await step();
      } catch (err) {
        console.error('cleanup:', err);
      }
    }
    process.removeListener('exit', killServices);
    rmSync(tmp, { recursive: true, force: true });
  }
}
