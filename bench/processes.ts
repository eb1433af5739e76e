/**
 * Processes of the benchmarks that run the service as its users do: a checkout's service started with its own
 * `npm start` command, CPU time of a process tree (Node and PostgreSQL apart), and the machine's busy time, all from
 * /proc (Linux; elsewhere the CPU figures are null).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { sleep, ticksPerSecond } from './harness.ts';

type ProcEntry = { pid: number; ppid: number; comm: string; ticks: number };

function processes(): ProcEntry[] | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  const list: ProcEntry[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const open = stat.indexOf('(');
    const close = stat.lastIndexOf(')');
    // the fields after the command name, which may hold spaces: state, ppid, ..., utime (12th), stime, cutime, cstime
    const fields = stat.slice(close + 2).split(' ');
    // a process's own time, and that of its children it reaped (a closed connection's backend, once gone, counts in
    // its postmaster's): summed over a tree of live processes, nothing is counted twice
    const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    list.push({ pid: Number(entry), ppid: Number(fields[1]), comm: stat.slice(open + 1, close), ticks });
  }
  return list;
}

export type TreeCpu = { nodeMs: number; pgMs: number };

/** CPU ms used so far by `rootPid` and all its descendants: PostgreSQL's processes apart from the others (Node). */
export function treeCpuMs(rootPid: number): TreeCpu | null {
  const list = processes();
  if (!list) return null;
  const children = new Map<number, ProcEntry[]>();
  for (const p of list) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const root = list.find(p => p.pid === rootPid);
  if (!root) return null;
  const perTick = 1000 / ticksPerSecond();
  let nodeMs = 0;
  let pgMs = 0;
  const stack = [root];
  while (stack.length > 0) {
    const p = stack.pop()!;
    if (p.comm === 'postgres') pgMs += p.ticks * perTick;
    else nodeMs += p.ticks * perTick;
    stack.push(...(children.get(p.pid) ?? []));
  }
  return { nodeMs, pgMs };
}

/** The machine's busy CPU ms so far, all CPUs together (/proc/stat: everything but idle and iowait). */
export function machineBusyMs(): number | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
    return ((user! + nice! + system! + irq! + softirq! + (steal ?? 0)) * 1000) / ticksPerSecond();
  } catch {
    return null;
  }
}

export type StartedService = {
  /** the checkout it runs from */
  checkout: string;
  /** its DATA_DIR */
  dataDir: string;
  url: string;
  sandboxUrl: string;
  /** the process `npm start` would have started (its Node child and PostgreSQL are below it) */
  pid: number;
  logFile: string;
  stop(): Promise<void>;
};

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * A checkout's service, started with the command of its package.json's `start` script (what `npm start` runs, without
 * npm in between, so that signals reach it), from the checkout's folder, with the checkout's node_modules/.bin and
 * this Node first on PATH as npm puts them, and no configuration but DATA_DIR, PORT and SANDBOX_PORT: its own
 * embedded PostgreSQL in `dataDir`, logging at the default level into `logFile`. stop() ends it as Ctrl-C would
 * (SIGINT, SIGKILL after 30 s) and deletes `dataDir`.
 */
export async function startService(opts: {
  checkout: string;
  dataDir: string;
  port: number;
  sandboxPort: number;
  logFile: string;
  timeoutMs?: number;
  /** more of the service's configuration (a second instance's DATABASE_URL and shared secrets, a profiler's NODE_OPTIONS) */
  env?: Record<string, string>;
}): Promise<StartedService> {
  const pkg = JSON.parse(readFileSync(path.join(opts.checkout, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  const script = pkg.scripts?.start;
  if (!script) throw new Error(`${opts.checkout}/package.json has no start script`);
  if (/[;&|<>$`"'\\*?]/.test(script))
    throw new Error(`the start script needs a shell, which this benchmark does not run: ${script}`);
  const [command, ...args] = script.trim().split(/\s+/);
  const bin = path.join(opts.checkout, 'node_modules', '.bin');
  const executable = existsSync(path.join(bin, command!)) ? path.join(bin, command!) : command!;
  // the environment of a user's shell, not the benchmark's: nothing of the service's configuration leaks in
  const keep = ['HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR'];
  const env: Record<string, string> = {};
  for (const k of keep) if (process.env[k] !== undefined) env[k] = process.env[k]!;
  env.PATH = [bin, path.dirname(process.execPath), process.env.PATH ?? ''].join(path.delimiter);
  env.DATA_DIR = opts.dataDir;
  env.PORT = String(opts.port);
  env.SANDBOX_PORT = String(opts.sandboxPort);
  Object.assign(env, opts.env);

  const out = openSync(opts.logFile, 'a');
  let child: ChildProcess;
  try {
    // its own process group, so that a service that will not stop can be killed with everything it started
    child = spawn(executable, args, { cwd: opts.checkout, env, stdio: ['ignore', out, out], detached: true });
  } finally {
    closeSync(out);
  }
  let exitCode: number | null | undefined;
  const exited = new Promise<void>(resolve =>
    child.once('exit', (code, signal) => ((exitCode = code ?? (signal ? -1 : null)), resolve())),
  );
  const log = () => {
    try {
      return readFileSync(opts.logFile, 'utf8');
    } catch {
      return '';
    }
  };

  const stop = async () => {
    if (exitCode === undefined && child.pid !== undefined) {
      child.kill('SIGINT');
      const timer = sleep(30_000).then(() => 'late' as const);
      if ((await Promise.race([exited.then(() => 'exited' as const), timer])) === 'late') {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
        await exited;
      }
    }
    // a PostgreSQL left behind by a killed service (its postmaster is not in the process group)
    const pidFile = path.join(opts.dataDir, 'pg', 'postmaster.pid');
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
      if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
        process.kill(pid, 'SIGINT');
        for (let i = 0; i < 300 && isAlive(pid); i++) await sleep(100);
      }
    }
    rmSync(opts.dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
  for (;;) {
    if (/Service ready: http:\/\/\S+/.test(log())) break;
    if (exitCode !== undefined) {
      await stop();
      throw new Error(
        `the service in ${opts.checkout} exited (${exitCode}) before it was ready:\n${log().slice(-3000)}`,
      );
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the service in ${opts.checkout} was not ready in time:\n${log().slice(-3000)}`);
    }
    await sleep(100);
  }
  return {
    checkout: opts.checkout,
    dataDir: opts.dataDir,
    url: `http://127.0.0.1:${opts.port}`,
    sandboxUrl: `http://127.0.0.1:${opts.sandboxPort}`,
    pid: child.pid!,
    logFile: opts.logFile,
    stop,
  };
}

/**
 * Stops these services (their process groups) when the benchmark process exits, even by a second Ctrl-C
 * (process.exit): a benchmark must not leave services behind. Answers the function, to call it earlier as well.
 */
export function killOnExit(started: readonly { pid: number }[]): () => void {
  const kill = () => {
    for (const s of started) {
      try {
        process.kill(-s.pid, 'SIGINT');
      } catch {
        // gone
      }
    }
  };
  process.once('exit', kill);
  return kill;
}

/** The embedded PostgreSQL of a service started by startService: its port and folder, and its secrets. */
export function embeddedDatabaseOf(service: Pick<StartedService, 'dataDir'>) {
  const secrets = JSON.parse(readFileSync(path.join(service.dataDir, 'secrets.json'), 'utf8')) as {
    jwtSecret: string;
    encryptionKey: string;
    embeddedPostgresPassword: string;
    serviceRolePassword: string;
  };
  // as root the data may live elsewhere; DATA_DIR/pg-location says where (src/db/embedded-root.ts)
  const location = path.join(service.dataDir, 'pg-location');
  const pgDir = existsSync(location) ? readFileSync(location, 'utf8').trim() : path.join(service.dataDir, 'pg');
  const postmaster = readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n');
  const port = Number(postmaster[3]);
  const at = (user: string, password: string) =>
    `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/service`;
  return {
    pgDir,
    postmasterPid: Number(postmaster[0]),
    secrets,
    /** the superuser's (for a benchmark's own look at the database) */
    superuserUrl: at('postgres', secrets.embeddedPostgresPassword),
    /** the service's own role, as the service connects (src/db/service-role.ts) */
    serviceUrl: at('service_app', secrets.serviceRolePassword),
  };
}

/**
 * A second instance of a service started by startService, as a user scales it out behind a balancer: the same `npm
 * start` command and checkout, on the first one's database (DATABASE_URL: its embedded PostgreSQL, as the service's
 * role), with the first one's secrets (JWT_SECRET, ENCRYPTION_KEY), ledger signing key and sandbox (SANDBOX_URL), and
 * private webhook addresses allowed as the first one (embedded) allows them; a DATA_DIR of its own for what it keeps
 * there (nothing of the database).
 */
export function startAnotherInstance(
  first: StartedService,
  opts: { dataDir: string; port: number; sandboxPort: number; logFile: string; timeoutMs?: number },
): Promise<StartedService> {
  const db = embeddedDatabaseOf(first);
  return startService({
    ...opts,
    checkout: first.checkout,
    env: {
      DATABASE_URL: db.serviceUrl,
      JWT_SECRET: db.secrets.jwtSecret,
      ENCRYPTION_KEY: db.secrets.encryptionKey,
      LEDGER_SIGNING_KEY_FILE: path.join(first.dataDir, 'ledger-signing-key'),
      LEDGER_CHECKPOINT_DIR: path.join(first.dataDir, 'checkpoints'),
      SANDBOX_URL: first.sandboxUrl,
      WEBHOOK_ALLOW_PRIVATE: 'true',
    },
  });
}
