import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { inSnapshot, query } from '../../src/db/pool.ts';
import { freshPool } from '../support/database.ts';

let pool: pg.Pool;
beforeAll(async () => {
  pool = await freshPool(4);
  await pool.query('create table rows_seen (n int not null)');
});
afterAll(async () => pool?.end());

describe('inSnapshot', () => {
  it('reads the database as it was at its first statement, whatever another connection commits meanwhile', async () => {
    const counts = await inSnapshot(pool, async db => {
      const before = (await query<{ n: number }>(db, 'CountBefore', 'select count(*)::int as n from rows_seen'))
        .rows[0]!.n;
      await pool.query('insert into rows_seen values (1)'); // committed on another connection
      const after = (await query<{ n: number }>(db, 'CountAfter', 'select count(*)::int as n from rows_seen')).rows[0]!
        .n;
      return { before, after };
    });
    expect(counts).toEqual({ before: 0, after: 0 });
    expect((await pool.query('select count(*)::int as n from rows_seen')).rows[0].n).toBe(1);
  });

  it('refuses to write', async () => {
    await expect(inSnapshot(pool, db => db.query('insert into rows_seen values (2)'))).rejects.toThrow(/read-only/);
  });
});
