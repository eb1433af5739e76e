import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceChanges, checkpointNotifications } from '../../src/db/checkpoint-notifications.ts';
import { createPool, query } from '../../src/db/pool.ts';
import { freshDatabaseUrl } from '../support/database.ts';
import { nextUuid } from '../support/ids.ts';
import { eventually } from '../support/sandbox.ts';

// two processes on one database: `here` watches rows (the payment page's streams), `there` runs the projection
let here: ReturnType<typeof createPool>;
let there: ReturnType<typeof createPool>;
beforeAll(async () => {
  const url = await freshDatabaseUrl();
  here = createPool(url, 2);
  there = createPool(url, 2);
});
afterAll(async () => {
  await Promise.all([here?.end(), there?.end()]);
});

const listeners = async () =>
  (
    await query(
      here,
      'Listeners',
      `select 1 from pg_stat_activity where application_name = 'payments:subscriber-positions' and datname = current_database()`,
    )
  ).rowCount;

describe('read model changes, heard on the one LISTEN connection of a process', () => {
  it("calls the watchers of a changed row, another process's announcement, and no one else", async () => {
    const notifications = checkpointNotifications.acquire(here);
    try {
      const [paid, other] = [nextUuid(), nextUuid()];
      const calls = { first: 0, second: 0, other: 0, stopped: 0 };
      notifications.watch('payments', paid, () => calls.first++);
      notifications.watch('payments', paid, () => calls.second++);
      notifications.watch('payments', other, () => calls.other++);
      notifications.watch('payments', paid, () => calls.stopped++)(); // stopped at once
      await notifications.ready();
      const before = { ...calls }; // the connection's first look, made to every watcher
      await announceChanges(there, 'payments', [paid, paid]);
      await eventually(async () => calls.first > before.first && calls.second > before.second, 5000);
      expect(calls.first - before.first).toBe(1); // once, the key said twice
      expect(calls.other).toBe(before.other);
      expect(calls.stopped).toBe(0);
      await announceChanges(there, 'transfers', [paid]); // another read model's row of the same key
      await new Promise(r => setTimeout(r, 300));
      expect(calls.first - before.first).toBe(1);
      expect(await listeners()).toBe(1);
    } finally {
      await checkpointNotifications.release(here);
    }
  });

  it('has every watcher look again when the connection comes back: a change said while it was down is not lost', async () => {
    const notifications = checkpointNotifications.acquire(here);
    try {
      const paid = nextUuid();
      let calls = 0;
      notifications.watch('payments', paid, () => calls++);
      await notifications.ready();
      await eventually(async () => (await listeners()) === 1, 5000);
      await query(
        there,
        'KillListeners',
        'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and datname = current_database()',
        ['payments:subscriber-positions'],
      );
      await eventually(async () => (await listeners()) === 0, 5000);
      const before = calls;
      await announceChanges(there, 'payments', [paid]); // nobody listens: PostgreSQL drops it
      await eventually(async () => calls > before, 5000); // the reconnection, about a second later
      expect(await listeners()).toBe(1);
    } finally {
      await checkpointNotifications.release(here);
    }
  });
});
