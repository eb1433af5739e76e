import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { freePort } from '../../src/db/free-port.ts';
import { runJobQueue } from '../../src/db/job-queue.ts';
import { createPool, query } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import { eventually } from '../support/sandbox.ts';

/** Waits until `probe` holds or the time is up; what it waited for is asserted after. */
const waitUntil = (probe: () => Promise<boolean>, timeoutMs: number) =>
  eventually(probe, timeoutMs).catch(() => undefined);

describe('a job queue whose database goes away while a job runs', () => {
  it('unlocks the job its worker could not release once the database is back, runs it again, and keeps its full concurrency', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-queue-'));
    const port = await freePort();
    let server = await startEmbeddedPostgres({ dataDir, password: 'queue', port });
    const pool = createPool(server.url, 10);
    pool.on('error', () => undefined);
    const runs: number[] = [];
    let databaseGone: () => void = () => undefined;
    const gone = new Promise<void>(resolve => (databaseGone = resolve));
    const queue = await runJobQueue(
      'test queue',
      {
        pgPool: pool,
        concurrency: 2,
        pollInterval: 200,
        taskList: {
          work: async payload => {
            const { n } = payload as { n: number };
            runs.push(n);
            if (n === 1 && runs.length === 1) await gone; // the database goes away under the first run
            if (n > 1) await eventually(async () => runs.filter(m => m > 1).length >= 2, 5000); // pairs finish only side by side
          },
        },
      },
      createLogger('silent'),
    );
    const add = (n: number) =>
      query(pool, 'AddTestJob', `select graphile_worker.add_job('work', json_build_object('n', $1::int))`, [n]);
    const waiting = async () =>
      Number(
        (await query<{ n: string }>(pool, 'CountTestJobs', 'select count(*)::text as n from graphile_worker.jobs'))
          .rows[0]!.n,
      );
    try {
      await add(1);
      await eventually(async () => runs.length === 1);
      await server.stop();
      databaseGone();
      await new Promise(r => setTimeout(r, 500));
      server = await startEmbeddedPostgres({ dataDir, password: 'queue', port });

      // the cut-off job runs again, not four hours later, and is done
      await waitUntil(async () => runs.length >= 2 && (await waiting().catch(() => -1)) === 0, 30_000);
      expect(runs).toEqual([1, 1]);
      expect(await waiting()).toBe(0);
      // and both workers take jobs again: two jobs that wait for each other finish only if they run side by side (one
      // worker alone would fail the first after 5 s, and run it again)
      await add(2);
      await add(3);
      await waitUntil(async () => runs.length >= 4 && (await waiting()) === 0, 10_000);
      expect(runs.slice(2).sort()).toEqual([2, 3]);
      expect(await waiting()).toBe(0);
    } finally {
      await queue.stop().catch(() => undefined);
      await pool.end();
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
