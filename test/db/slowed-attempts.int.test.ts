import { createHash } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetAttempts, takeSlowedAttempt } from '../../src/db/attempt-counts.ts';
import { query } from '../../src/db/pool.ts';
import { freshPool } from '../support/database.ts';

/** The slow-down of one account's wrong passwords, as PostgreSQL counts it for every instance. */
let pool: pg.Pool;
beforeAll(async () => {
  pool = await freshPool(20);
});
afterAll(async () => pool?.end());

const slowDown = { after: 3, maxSeconds: 8, windowMs: 15 * 60_000 };
/** The row of a key, stored under its hash. */
const row = (key: string) => createHash('sha256').update(key).digest('base64url');
/** Moves the key's last attempt `seconds` into the past, as the wall clock would by waiting. */
const ago = (key: string, seconds: number) =>
  query(
    pool,
    'TestMoveAttemptBack',
    `update attempt_counts set window_start = now() - $2 * interval '1 second' where key = $1`,
    [row(key), seconds],
  );

describe('a slowed-down key', () => {
  it('lets `after` attempts through, then holds the next back for a delay that doubles up to the cap', async () => {
    const key = `slow:${process.pid}:double`;
    for (let i = 0; i < slowDown.after; i++) expect(await takeSlowedAttempt(pool, key, slowDown)).toBe(0);
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const wait = await takeSlowedAttempt(pool, key, slowDown);
      waits.push(Math.ceil(wait / 1000));
      await ago(key, wait / 1000 + 0.01); // as if the client waited exactly as long as it was told
      expect(await takeSlowedAttempt(pool, key, slowDown)).toBe(0);
    }
    expect(waits).toEqual([1, 2, 4, 8, 8, 8]);
  });

  it('counts attempts that were held back nowhere, and lets one through once the delay is over', async () => {
    const key = `slow:${process.pid}:held`;
    for (let i = 0; i < slowDown.after; i++) await takeSlowedAttempt(pool, key, slowDown);
    for (let i = 0; i < 20; i++) expect(await takeSlowedAttempt(pool, key, slowDown)).toBeGreaterThan(0);
    await ago(key, 1.01);
    expect(await takeSlowedAttempt(pool, key, slowDown)).toBe(0); // the 20 refused did not lengthen the delay
  });

  it('lets one attempt at a time through when many come at once', async () => {
    const key = `slow:${process.pid}:burst`;
    const waits = await Promise.all(Array.from({ length: 30 }, () => takeSlowedAttempt(pool, key, slowDown)));
    expect(waits.filter(w => w === 0)).toHaveLength(slowDown.after);
  });

  it('forgets the streak on a success, and after a quiet window', async () => {
    const key = `slow:${process.pid}:forget`;
    for (let i = 0; i < slowDown.after; i++) await takeSlowedAttempt(pool, key, slowDown);
    expect(await takeSlowedAttempt(pool, key, slowDown)).toBeGreaterThan(0);
    await forgetAttempts(pool, key);
    for (let i = 0; i < slowDown.after; i++) expect(await takeSlowedAttempt(pool, key, slowDown)).toBe(0);
    const short = { ...slowDown, windowMs: 50 };
    const quiet = `slow:${process.pid}:quiet`;
    for (let i = 0; i < slowDown.after; i++) await takeSlowedAttempt(pool, quiet, short);
    await new Promise(r => setTimeout(r, 80));
    expect(await takeSlowedAttempt(pool, quiet, short)).toBe(0);
  });

  it('survives a streak of thousands without overflowing the delay', async () => {
    const key = `slow:${process.pid}:long`;
    await takeSlowedAttempt(pool, key, slowDown);
    await query(pool, 'TestLongStreak', 'update attempt_counts set count = 5000 where key = $1', [row(key)]);
    expect(Math.ceil((await takeSlowedAttempt(pool, key, slowDown)) / 1000)).toBe(slowDown.maxSeconds);
  });
});
