import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';

const root = path.resolve(import.meta.dirname, '../..');

export type RunningService = { child: ChildProcess; url: string; output: () => string; exited: Promise<number | null> };

/**
 * Starts `src/main.ts` as its own node process (no npm or npx in between, so signals reach it); `group`: as the leader
 * of a process group of its own, as a terminal starts a command, so that a signal can go to the whole group (Ctrl-C).
 */
export async function spawnService(
  env: Record<string, string>,
  timeoutMs = 60_000,
  options: { group?: boolean } = {},
): Promise<RunningService> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.group ?? false,
  });
  let output = '';
  child.stdout!.on('data', chunk => (output += chunk));
  child.stderr!.on('data', chunk => (output += chunk));
  const exited = new Promise<number | null>(resolve => child.on('exit', code => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start in time:\n${output}`)), timeoutMs);
    const check = () => {
      const match = /Service ready: (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', check);
    void exited.then(code => {
      clearTimeout(timer);
      reject(new Error(`service exited (${code}) before it was ready:\n${output}`));
    });
  });
  return { child, url, output: () => output, exited };
}

/**
 * Starts the sandbox provider alone (`src/providers/sandbox/main.ts`) as its own node process, for services started
 * with `SANDBOX_URL` pointing at it; it outlives any of them.
 */
export async function spawnSandbox(env: Record<string, string>, timeoutMs = 30_000): Promise<RunningService> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/providers/sandbox/main.ts'], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', chunk => (output += chunk));
  child.stderr!.on('data', chunk => (output += chunk));
  const exited = new Promise<number | null>(resolve => child.on('exit', code => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sandbox did not start in time:\n${output}`)), timeoutMs);
    child.stdout!.on('data', () => {
      const match = /Sandbox ready: (http:\/\/\S+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      resolve(match[1]!);
    });
    void exited.then(code => {
      clearTimeout(timer);
      reject(new Error(`sandbox exited (${code}) before it was ready:\n${output}`));
    });
  });
  return { child, url, output: () => output, exited };
}

/** The local TCP ports of a process's sockets (Linux: its socket descriptors' inodes found in /proc/net/tcp*). */
export function localPorts(pid: number): Set<number> {
  const inodes = new Set(
    readdirSync(`/proc/${pid}/fd`)
      .map(fd => {
        try {
          return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        } catch {
          return undefined; // closed meanwhile
        }
      })
      .filter(Boolean),
  );
  const ports = new Set<number>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length > 9 && inodes.has(fields[9])) ports.add(parseInt(fields[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

/**
 * How many PostgreSQL advisory locks each process's connections to `db`'s database hold (the subscribers' leadership
 * among them): which of several instances leads what.
 */
export async function advisoryLocksHeld(db: pg.ClientBase, processes: RunningService[]): Promise<number[]> {
  const { rows } = await db.query<{ client_port: number; n: string }>(
    `select a.client_port, count(*) as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'advisory' and l.granted and a.datname = current_database() group by a.client_port`,
  );
  return processes.map(p => {
    const ports = localPorts(p.child.pid!);
    return rows.filter(r => ports.has(r.client_port)).reduce((sum, r) => sum + Number(r.n), 0);
  });
}

/**
 * Runs `npm run cli -- <args>` as the operator does (src/cli/main.ts in its own node process) against a test service's
 * database: its exit code, stdout and stderr.
 */
export function runCli(
  service: { config: { databaseUrl?: string | null; dataDir: string } },
  args: string[],
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: root,
      env: {
        ...process.env,
        LOG_LEVEL: 'silent',
        DATABASE_URL: service.config.databaseUrl!,
        DATA_DIR: service.config.dataDir,
      },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', chunk => (out += chunk));
    child.stderr.on('data', chunk => (err += chunk));
    child.on('error', reject);
    child.on('exit', code => resolve({ code, out, err }));
  });
}
