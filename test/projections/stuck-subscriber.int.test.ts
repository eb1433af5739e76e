import { spawn } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { query } from '../../src/db/pool.ts';
import { event } from '../../src/events/event.ts';
import { createLogger } from '../../src/logger.ts';
import type { Projection } from '../../src/projections/projection.ts';
import { ProjectionRunner } from '../../src/projections/runner.ts';
import { usersProjection } from '../../src/projections/users.ts';
import type { NewEvent } from '../../src/store/event-store.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { freshPool } from '../support/database.ts';
import { createKey, registerUser } from '../support/http.ts';
import { eventually } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { nextUuid } from '../support/ids.ts';

const root = path.resolve(import.meta.dirname, '../..');
const at = '2026-01-05T03:00:00.000Z';

const metadata = () => ({
  eventId: nextUuid(),
  correlationId: nextUuid(),
  causationId: null,
  actor: 'test',
  occurredAt: at,
});

/** A log that a test can read: pino writes one JSON line per entry. */
function capturedLog() {
  const lines: { msg: string; level: number; [key: string]: unknown }[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: createLogger('info', sink), lines };
}

describe('a read model that meets an event it cannot apply', () => {
  let service: TestService;
  const { log, lines } = capturedLog();
  const eveId = nextUuid();
  const zedId = nextUuid();

  beforeAll(async () => {
    service = await startTestService({}, { log });
  });
  afterAll(async () => service?.close());

  it('stops at that event alone, names it in /ready, the log (once) and the CLI, and the others keep going', async () => {
    // written by a newer version of the service, during a rolling deploy: this code cannot read it
    const newer: NewEvent = {
      type: 'UserRegistered',
      version: 99,
      data: { userId: zedId, name: 'Zed', email: 'zed@example.com', passwordHash: 'x', role: 'USER', registeredAt: at },
      metadata: metadata(),
    };
    const appended = await service.store.append(`user-${zedId}`, [newer], 'no_stream');

    // a user registered afterwards signs in, and the sessions and API-key read models serve them
    const later = await registerUser(service);
    const key = await createKey(service, later.cookie);
    const providers = await service.app.inject({ url: '/api/v1/providers', headers: { 'x-api-key': key.key } });
    expect(providers.statusCode).toBe(200);

    const ready = await eventually(async () => {
      const r = await service.app.inject({ url: '/ready' });
      const body = r.json();
      return r.statusCode === 503 && body.subscribers?.[0]?.attempts >= 3 && body;
    });
    expect(ready.checks).toMatchObject({ database: true, eventStore: true, projections: false, sagas: true });
    expect(ready.subscribers).toEqual([
      expect.objectContaining({
        subscriber: 'projection:users',
        state: 'stuck',
        event: {
          streamId: `user-${zedId}`,
          revision: 0,
          type: 'UserRegistered',
          position: `${appended.position.commit}/${appended.position.prepare}`,
        },
        error: expect.stringContaining('newer than this code'),
      }),
    ]);

    const said = lines.filter(l => l.subscriber === 'projection:users' && l.level >= 50);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({ streamId: `user-${zedId}`, revision: 0, eventType: 'UserRegistered' });

    const cli = await runCli(['subscribers'], {
      DATABASE_URL: service.config.databaseUrl!,
      DATA_DIR: service.config.dataDir,
    });
    expect(cli.code).toBe(1);
    const stuck = cli.lines.filter(l => l.stuck);
    expect(stuck).toEqual([
      expect.objectContaining({
        subscriber: 'projection:users',
        stuck: expect.objectContaining({ event: expect.objectContaining({ streamId: `user-${zedId}` }) }),
      }),
    ]);
  });

  it('reads text stored before it was checked (a NUL) cleaned, so its read model stores it', async () => {
    const fresh = await startTestService();
    try {
      const legacy: NewEvent = {
        type: 'UserRegistered',
        version: 1,
        // PostgreSQL's json keeps the escaped NUL; its text columns refuse it
        data: {
          userId: eveId,
          name: 'Eve\u0000 \ud800!',
          email: 'eve@example.com',
          passwordHash: 'x',
          role: 'USER',
          registeredAt: at,
        },
        metadata: metadata(),
      };
      const appended = await fresh.store.append(`user-${eveId}`, [legacy], 'no_stream');
      expect(await fresh.projections.waitFor(appended.position, 10_000, [usersProjection])).toBe(true);
      const row = await query<{ name: string }>(fresh.pool, 'ReadEve', 'select name from users where id = $1', [eveId]);
      expect(row.rows[0]?.name).toBe('Eve \ufffd!');
      expect((await fresh.app.inject({ url: '/ready' })).statusCode).toBe(200);
    } finally {
      await fresh.close();
    }
  });
});

function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; lines: Record<string, unknown>[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    });
    let out = '';
    child.stdout.on('data', c => (out += c));
    child.on('error', reject);
    child.on('exit', code =>
      resolve({
        code,
        lines: out
          .split('\n')
          .filter(l => l.startsWith('{'))
          .map(l => JSON.parse(l)),
      }),
    );
  });
}

const TestNoted = event('TestNoted', 1, z.object({ note: z.string() }));

describe('a projection stuck at an event', () => {
  let pool: Awaited<ReturnType<typeof freshPool>>;
  let store: PostgresEventStore;
  let broken = true;
  const notes: Projection = {
    name: 'test-notes',
    tables: ['test_notes'],
    handles: ['TestNoted' as never],
    schema: ['create table if not exists test_notes (note text primary key)'],
    async apply(tx, e) {
      const { note } = e.data as unknown as { note: string };
      if (note === 'poison' && broken) throw new Error('cannot apply poison');
      await query(tx, 'InsertTestNote', 'insert into test_notes (note) values ($1)', [note]);
    },
  };

  beforeAll(async () => {
    pool = await freshPool();
    store = await PostgresEventStore.create(pool);
  });
  afterAll(async () => {
    await store.close();
    await pool.end();
  });

  const note = (text: string): NewEvent => ({
    type: TestNoted.type,
    version: 1,
    data: TestNoted({ note: text }).data,
    metadata: metadata(),
  });
  const applied = async () =>
    (await query<{ note: string }>(pool, 'ReadTestNotes', 'select note from test_notes order by note')).rows.map(
      r => r.note,
    );

  it('applies the events before it in the same batch, then goes on by itself once the event can be applied', async () => {
    // one append: the three events reach the projection in one batch
    await store.append(`notes-${nextUuid()}`, [note('a'), note('b'), note('poison'), note('z')], 'no_stream');
    const runner = new ProjectionRunner({ pool, store, log: createLogger('silent') }, [notes]);
    await runner.start();
    try {
      await eventually(async () => runner.health()[0]!.health.state === 'stuck');
      expect(await applied()).toEqual(['a', 'b']);
      const recorded = await query<{ stream_id: string; revision: number }>(
        pool,
        'ReadFailure',
        'select stream_id, revision from subscriber_failures',
      );
      expect(recorded.rows).toEqual([expect.objectContaining({ revision: 2 })]);

      broken = false; // the fix is deployed
      await eventually(async () => (await applied()).length === 4);
      expect(await applied()).toEqual(['a', 'b', 'poison', 'z']);
      await eventually(async () => runner.health()[0]!.health.state === 'leading');
      expect((await query(pool, 'ReadFailures', 'select 1 from subscriber_failures')).rowCount).toBe(0);
    } finally {
      await runner.stop();
    }
  });
});
