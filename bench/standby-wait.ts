/**
 * A command that waits for its read models, answered by the instance that applies them (the leader) and by one that
 * stands by: creating an API key and revoking it, each of which waits for every read model.
 *
 * The leader is this checkout's service started as a user starts it (bench/processes.ts: `npm start`, its own DATA_DIR
 * and embedded PostgreSQL). The standby is the same command started a second time against the leader's database, with
 * the leader's secrets and signing key, as a second instance behind a load balancer is configured (`DATABASE_URL`,
 * `JWT_SECRET`, `ENCRYPTION_KEY`, `LEDGER_SIGNING_KEY_FILE`). One user, created on the leader; then rounds alternate
 * between the instances, one request at a time. Goal: p99 under 50 ms on the standby as on the leader.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../src/db/free-port.ts';
import { locationFile } from '../src/db/embedded-root.ts';
import { serviceRole } from '../src/db/service-role.ts';
import { markdownTable, sleep, textTable, writeResults, type BenchContext } from './harness.ts';
import { killOnExit, startService } from './processes.ts';

const checkout = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The second instance: the same start command, configured to share the first one's database and secrets. */
async function startStandby(leaderDataDir: string, dataDir: string, port: number, logFile: string) {
  const secrets = JSON.parse(readFileSync(path.join(leaderDataDir, 'secrets.json'), 'utf8')) as {
    jwtSecret: string;
    encryptionKey: string;
    serviceRolePassword: string;
  };
  // the leader's embedded PostgreSQL: in DATA_DIR/pg, or where DATA_DIR/pg-location says when run as root
  const databaseDir = existsSync(locationFile(leaderDataDir))
    ? readFileSync(locationFile(leaderDataDir), 'utf8').trim()
    : path.join(leaderDataDir, 'pg');
  const pgPort = Number(readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[3]);
  const bin = path.join(checkout, 'node_modules', '.bin');
  const env: Record<string, string> = {
    PATH: [bin, path.dirname(process.execPath), process.env.PATH ?? ''].join(path.delimiter),
    HOME: process.env.HOME ?? os.homedir(),
    DATA_DIR: dataDir,
    PORT: String(port),
    SANDBOX_PORT: '0',
    DATABASE_URL: `postgres://${serviceRole}:${encodeURIComponent(secrets.serviceRolePassword)}@127.0.0.1:${pgPort}/service`,
    JWT_SECRET: secrets.jwtSecret,
    ENCRYPTION_KEY: secrets.encryptionKey,
    LEDGER_SIGNING_KEY_FILE: path.join(leaderDataDir, 'ledger-signing-key'),
  };
  const [command, ...args] = (
    JSON.parse(readFileSync(path.join(checkout, 'package.json'), 'utf8')) as { scripts: { start: string } }
  ).scripts.start.split(/\s+/);
  const out = openSync(logFile, 'a');
  const child = spawn(path.join(bin, command!), args, {
    cwd: checkout,
    env,
    stdio: ['ignore', out, out],
    detached: true,
  });
  closeSync(out);
  let exited = false;
  child.once('exit', () => (exited = true));
  for (const deadline = Date.now() + 120_000; !/Service ready/.test(readFileSync(logFile, 'utf8')); await sleep(100)) {
    if (exited || Date.now() > deadline)
      throw new Error(`the standby did not start:\n${readFileSync(logFile, 'utf8').slice(-3000)}`);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: async () => {
      if (!exited) child.kill('SIGINT');
      for (let i = 0; i < 300 && !exited; i++) await sleep(100);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function call(url: string, method: string, body: unknown, cookie?: string) {
  const response = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(cookie ? { cookie } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${text}`);
  return { response, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
};

export async function run(ctx: BenchContext): Promise<void> {
  const rounds = ctx.quick ? 20 : 300;
  const work = mkdtempSync(path.join(os.tmpdir(), 'bench-standby-wait-'));
  const leaderDir = path.join(work, 'leader');
  const [port, sandboxPort, standbyPort] = [await freePort(), await freePort(), await freePort()];
  const leader = await startService({
    checkout,
    dataDir: leaderDir,
    port,
    sandboxPort,
    logFile: path.join(work, 'leader.log'),
  });
  const started = [{ pid: leader.pid }];
  const killAll = killOnExit(started);
  let standby: Awaited<ReturnType<typeof startStandby>> | null = null;
  try {
    standby = await startStandby(leaderDir, path.join(work, 'standby'), standbyPort, path.join(work, 'standby.log'));
    started.push({ pid: standby.pid });
    const registered = await call(`${leader.url}/api/auth/register`, 'POST', {
      name: 'Bench',
      email: 'bench@example.com',
      password: 'rahasia123',
    });
    const cookie = (registered.response.headers.getSetCookie().find(c => c.startsWith('svc_token=')) ?? '').split(
      ';',
    )[0]!;
    const times = {
      leader: { create: [] as number[], revoke: [] as number[] },
      standby: { create: [] as number[], revoke: [] as number[] },
    };
    for (let i = 0; i < rounds * 2 && !ctx.signal.aborted; i++) {
      const which = i % 2 === 0 ? 'leader' : 'standby';
      const url = which === 'leader' ? leader.url : standby.url;
      let at = performance.now();
      const created = await call(`${url}/api/dashboard/api-keys`, 'POST', { name: `key ${i}` }, cookie);
      if (i >= 10) times[which].create.push(performance.now() - at); // the first rounds warm up
      at = performance.now();
      await call(
        `${url}/api/dashboard/api-keys/${(created.json.data as { id: string }).id}`,
        'DELETE',
        undefined,
        cookie,
      );
      if (i >= 10) times[which].revoke.push(performance.now() - at);
    }
    const header = ['instance', 'command', 'requests', 'p50 ms', 'p99 ms', 'max ms'];
    const rows = (['leader', 'standby'] as const).flatMap(instance =>
      (['create', 'revoke'] as const).map(command => {
        const t = times[instance][command];
        return [
          instance,
          `${command} key`,
          String(t.length),
          percentile(t, 50).toFixed(1),
          percentile(t, 99).toFixed(1),
          Math.max(...t).toFixed(1),
        ];
      }),
    );
    console.log(textTable(header, rows));
    const md = [
      '# standby-wait',
      '',
      `Creating and revoking an API key (each waits for every read model), one request at a time, alternating between the instance applying the read models (leader) and one standing by on the same database; ${rounds} rounds each${ctx.quick ? ' (quick run)' : ''}. Goal: p99 under 50 ms on both.`,
      '',
      markdownTable(header, rows),
    ].join('\n');
    writeResults(
      'standby-wait',
      {
        rounds,
        times: Object.fromEntries(
          rows.map(r => [`${r[0]} ${r[1]}`, { p50: Number(r[3]), p99: Number(r[4]), max: Number(r[5]) }]),
        ),
      },
      md,
    );
  } finally {
    await standby?.stop();
    await leader.stop();
    killAll(); // stopped already: nothing left to kill
    rmSync(work, { recursive: true, force: true });
  }
}
