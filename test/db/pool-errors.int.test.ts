import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/db/pool.ts';
import { freshPool } from '../support/database.ts';

describe("a pool's client whose connection is killed while checked out", () => {
  it('does not end the process: its next query fails as an unavailable database', async () => {
    const pool = await freshPool(2);
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const client = await pool.connect();
      const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      await pool.query('select pg_terminate_backend($1)', [pid]); // between two queries of the holder, as a server killed would
      await new Promise(r => setTimeout(r, 300));
      const next = await client.query('select 1').then(
        () => null,
        (err: unknown) => err,
      );
      expect(isDatabaseUnavailable(next)).toBe(true);
      client.release(true);
      expect(uncaught).toEqual([]);
      expect((await pool.query('select 1 as one')).rows[0].one).toBe(1); // the pool goes on with a new connection
    } finally {
      process.off('uncaughtException', onUncaught);
      await pool.end();
    }
  });
});
