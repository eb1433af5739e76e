import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.ts';
import { startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { locationFile, rootHome, runsAsRoot } from '../../src/db/embedded-root.ts';

const needsRoot = 'needs root: only root runs PostgreSQL as the postgres user, who cannot enter a mode-700 folder';

async function ask<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('the embedded PostgreSQL started by root with DATA_DIR in a folder only root can enter', () => {
  const cleanup: string[] = [];
  afterEach(() => {
    for (const dir of cleanup.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** DATA_DIR inside a fresh mktemp folder (mode 700), as in a container's /root/app. */
  const privateDataDir = () => {
    const closed = mkdtempSync(path.join(tmpdir(), 'svc-root-'));
    cleanup.push(closed);
    expect(statSync(closed).mode & 0o077).toBe(0);
    return path.join(closed, 'data');
  };

  it('answers queries and keeps an acknowledged row across a stop and a start, its data where DATA_DIR says', async ctx => {
    if (!runsAsRoot()) ctx.skip(needsRoot);
    const dataDir = privateDataDir();
    const first = await startEmbeddedPostgres({ dataDir, password: 'root-test' });
    cleanup.push(path.dirname(first.databaseDir));
    try {
      await ask(first.url, `create table kept (note text); insert into kept values ('acknowledged')`);
    } finally {
      await first.stop();
    }
    // the postgres user could not reach DATA_DIR: the data lives in root's home for it, named in DATA_DIR
    expect(first.databaseDir.startsWith(`${rootHome}/`)).toBe(true);
    expect(readFileSync(locationFile(dataDir), 'utf8').trim()).toBe(first.databaseDir);

    const second = await startEmbeddedPostgres({ dataDir, password: 'root-test' });
    try {
      expect(second.databaseDir).toBe(first.databaseDir);
      expect(await ask<{ note: string }>(second.url, 'select note from kept')).toEqual([{ note: 'acknowledged' }]);
    } finally {
      await second.stop();
    }
  }, 60_000);

  it('refuses, in one line, to start empty when the data DATA_DIR names is gone', async ctx => {
    if (!runsAsRoot()) ctx.skip(needsRoot);
    const dataDir = privateDataDir();
    mkdirSync(dataDir);
    const gone = path.join(path.dirname(dataDir), 'moved-away', 'pg');
    writeFileSync(locationFile(dataDir), `${gone}\n`);
    const refusal = await startEmbeddedPostgres({ dataDir, password: 'root-test' }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refusal).toBeInstanceOf(ConfigError);
    expect(String((refusal as Error).message)).not.toContain('\n');
    expect((refusal as Error).message).toContain(gone);
    expect(existsSync(gone)).toBe(false);
  });
});
