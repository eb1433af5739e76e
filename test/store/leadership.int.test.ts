import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriberLocks } from '../../src/db/lock-holder.ts';
import { createPool } from '../../src/db/pool.ts';
import { Leadership } from '../../src/store/leadership.ts';
import { freshDatabaseUrl } from '../support/database.ts';
import { eventually } from '../support/sandbox.ts';

// two processes, as far as the database can tell: a pool (and so a lock holder) each
let here: ReturnType<typeof createPool>;
let there: ReturnType<typeof createPool>;
beforeAll(async () => {
  const url = await freshDatabaseUrl();
  here = createPool(url, 2);
  there = createPool(url, 2);
});
afterAll(async () => {
  await Promise.all([here.end(), there.end()]);
});

/** A leadership whose work only says whether it runs, failing when asked to, and what it saw of the locks. */
function worker(pool: typeof here, names: string[], retryMs = 50) {
  const seen = { leading: false, leads: 0, failures: 0, looked: [] as string[][], failNext: false };
  const leadership = new Leadership({
    pool,
    names,
    standbyRetryMs: 50,
    lead: async () => {
      seen.leads++;
      seen.leading = true;
      if (seen.failNext) {
        seen.failNext = false;
        leadership.fail(new Error('the work failed'));
      }
    },
    stopLeading: async () => {
      seen.leading = false;
    },
    failed: () => void seen.failures++,
    retryDelayMs: () => retryMs,
    looked: held => void seen.looked.push([...held]),
  });
  return { leadership, seen };
}

describe('leadership across two processes', () => {
  it('takes every lock or none: a process holding one of them keeps the other standing by with none', async () => {
    const other = subscriberLocks.acquire(there);
    try {
      expect(await other.tryLock('lead:digests', () => undefined)).toBe(true);
      const { leadership, seen } = worker(here, ['lead:chain', 'lead:digests']);
      await leadership.start();
      try {
        expect(seen).toMatchObject({ leading: false, leads: 0 });
        expect(seen.looked[0]).toEqual(['lead:chain']);
        // the one it took went back: the other process may take it
        expect(await other.tryLock('lead:chain', () => undefined)).toBe(true);
        await other.unlock('lead:chain');
        await other.unlock('lead:digests');
        await eventually(async () => seen.leading || null, 5000);
        expect(seen.leads).toBe(1);
      } finally {
        await leadership.close();
      }
    } finally {
      await subscriberLocks.release(there);
    }
  });

  it('leads in one process at a time, and the other takes over once the leader closes', async () => {
    const a = worker(here, ['lead:one']);
    const b = worker(there, ['lead:one']);
    await a.leadership.start();
    await b.leadership.start();
    expect([a.seen.leading, b.seen.leading]).toEqual([true, false]);
    await a.leadership.close();
    expect(a.seen.leading).toBe(false);
    await eventually(async () => b.seen.leading || null, 5000);
    await b.leadership.close();
  });

  it('after a failure stops the work, frees the locks and leads again after its back-off', async () => {
    const a = worker(here, ['lead:failing'], 300);
    a.seen.failNext = true;
    await a.leadership.start();
    expect(a.seen).toMatchObject({ leading: false, leads: 1, failures: 1 });
    await eventually(async () => !a.leadership.holdsLocks || null, 5000);
    const started = Date.now();
    await eventually(async () => a.seen.leading || null, 5000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(a.seen.leads).toBe(2);
    await a.leadership.close();
  });
});
