import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, query } from '../../src/db/pool.ts';
import { UserRegistered } from '../../src/events/user.ts';
import { projections } from '../../src/projections/all.ts';
import { createReadModels } from '../../src/projections/runner.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { freshDatabaseUrl } from '../support/database.ts';
import { nextUuid } from '../support/ids.ts';

const root = path.resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-replay-timeout-'));

function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; err: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', c => (out += c));
    child.stderr.on('data', c => (err += c));
    child.on('error', reject);
    child.on('exit', code => resolve({ code, out, err, ms: Date.now() - started }));
  });
}

describe('verify-read-models and rebuild-read-models held up by a lock', () => {
  let url: string;
  let pool: pg.Pool;
  let holder: pg.PoolClient;
  let env: Record<string, string>;

  beforeAll(async () => {
    url = await freshDatabaseUrl();
    pool = createPool(url, 4);
    const store = await PostgresEventStore.create(pool, { listen: false });
    const userId = nextUuid();
    const registered = UserRegistered({
      userId,
      name: 'Ani',
      email: 'ani@example.com',
      passwordHash: 'x',
      role: 'USER',
      registeredAt: '2026-01-05T03:00:00.000Z',
    });
    const metadata = {
      eventId: nextUuid(),
      correlationId: nextUuid(),
      causationId: null,
      actor: 'test',
      occurredAt: '2026-01-05T03:00:00.000Z',
    };
    await store.append(
      `user-${userId}`,
      [{ type: registered.type, version: 1, data: registered.data, metadata }],
      'no_stream',
    );
    await store.close();
    await createReadModels(pool, projections);
    holder = await pool.connect();
    env = { DATABASE_URL: url, DATA_DIR: dataDir };
  });
  afterAll(async () => {
    holder?.release(true);
    await pool?.end();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('rebuild gives up after --timeout with exit 2, saying it waits for the transactions using the table it must swap', async () => {
    await query(holder, 'BeginReader', 'begin');
    await query(holder, 'ReadUsers', 'select count(*) from users'); // a reader that does not end: its lock stays
    try {
      const cli = await runCli(['rebuild-read-models', '--timeout', '2'], env);
      expect(cli.code, cli.err).toBe(2);
      expect(cli.err).toContain('rebuild-read-models: waiting for the transactions using users to end');
      expect(cli.err).toContain('gave up after 2 s');
      expect((await query(pool, 'Users', 'select count(*)::int as n from users')).rows[0]!.n).toBe(0); // not swapped
    } finally {
      await query(holder, 'EndReader', 'rollback');
    }
    const leftover = await query(
      pool,
      'ReplaySchemas',
      `select nspname from pg_namespace where nspname ~ '^(verify|rebuild)_'`,
    );
    expect(leftover.rowCount).toBe(0);
  }, 60_000);

  it('verify does not wait for the lock of a live projection, only (up to --timeout) for it to reach the head', async () => {
    // a live instance that leads the users projection and does not move: verify cannot compare as of the head
    await query(
      holder,
      'HoldSubscriberLock',
      `select pg_advisory_lock(hashtextextended('subscriber:projection:users', 0))`,
    );
    try {
      const cli = await runCli(['verify-read-models', '--timeout', '2'], env);
      expect(cli.code, cli.err).toBe(2);
      expect(cli.err).toMatch(
        /verify-read-models: waiting for the live projection users \(at -1\/-1\) to reach the head of the log/,
      );
      expect(cli.err).toContain('gave up after 2 s');
    } finally {
      await query(holder, 'ReleaseSubscriberLock', 'select pg_advisory_unlock_all()');
    }
    // nothing leads it now: compared as of its checkpoint, and said so
    const cli = await runCli(['verify-read-models', '--timeout', '2'], env);
    expect(cli.code, cli.err).toBe(0);
    expect(cli.out).toContain('users: matches history');
    expect(cli.err).toContain('users compared as of its checkpoint -1/-1, behind the head');
  }, 60_000);

  it('rebuild with nothing running replays up to the head and sets the checkpoint there', async () => {
    const cli = await runCli(['rebuild-read-models'], env);
    expect(cli.code, cli.err).toBe(0);
    expect(cli.out).toContain('users: replayed 1 events');
    expect((await query(pool, 'Users', 'select email from users')).rows).toEqual([{ email: 'ani@example.com' }]);
    const verified = await runCli(['verify-read-models'], env);
    expect(verified.code, verified.err).toBe(0);
    expect(verified.err).toBe('');
  }, 60_000);
});
