import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkpointNotifications } from '../../src/db/checkpoint-notifications.ts';
import { subscriberLocks } from '../../src/db/lock-holder.ts';
import { createPool, query } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import { checkpointSchema } from '../../src/store/checkpoints.ts';
import type { NewEvent } from '../../src/store/event-store.ts';
import { PostgresEventStore } from '../../src/store/postgres-event-store.ts';
import { Subscriber } from '../../src/store/subscriber.ts';
import { freshDatabaseUrl } from '../support/database.ts';
import { nextUuid } from '../support/ids.ts';
import { eventually } from '../support/sandbox.ts';
import { event } from '../../src/events/event.ts';

// declared, so that the store knows it
event('TestPassedBy', 1, z.object({}));
const log = createLogger('silent');
const ignored = (): NewEvent => ({
  type: 'TestPassedBy',
  version: 1,
  data: {},
  metadata: {
    eventId: nextUuid(),
    correlationId: nextUuid(),
    causationId: null,
    actor: 'test',
    occurredAt: '2026-01-05T03:00:00.000Z',
  },
});

let url: string;
// two processes, as far as the database can tell: a pool (and so a lock holder and a listener) each
let here: ReturnType<typeof createPool>;
let there: ReturnType<typeof createPool>;
let storeHere: PostgresEventStore;
let storeThere: PostgresEventStore;
beforeAll(async () => {
  url = await freshDatabaseUrl();
  here = createPool(url, 4);
  there = createPool(url, 4);
  storeHere = await PostgresEventStore.create(here);
  storeThere = await PostgresEventStore.create(there);
  await query(here, 'CreateCheckpointTable', checkpointSchema);
});
afterAll(async () => {
  await Promise.all([storeHere.close(), storeThere.close()]);
  await Promise.all([here.end(), there.end()]);
});

/** A subscriber that every event passes by: it never stores a checkpoint while it runs. */
const passedBy = (name: string, pool: typeof here, store: PostgresEventStore, standbyRetryMs = 2000) =>
  new Subscriber({ name, pool, store, log, handleBatch: async () => false, standbyRetryMs });

describe('the subscribers of one process', () => {
  it('hold their locks on one connection of their own, and one of two by the same name leads', async () => {
    const subscribers = ['a', 'b', 'c'].map(name => passedBy(`sessions:${name}`, here, storeHere));
    const twin = passedBy('sessions:a', here, storeHere);
    await Promise.all([...subscribers, twin].map(s => s.start()));
    try {
      expect(subscribers.map(s => s.isActive)).toEqual([true, true, true]);
      expect(twin.isActive).toBe(false); // session locks are re-entrant: the holder itself must refuse the second
      const pid = await subscriberLocks.peek(here)!.backendPid();
      const locks = await query<{ pid: number; n: number }>(
        here,
        'SubscriberLocksHeld',
        `select pid, count(*)::int as n from pg_locks where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database()) group by pid`,
      );
      expect(locks.rows).toEqual([{ pid, n: 3 }]);
    } finally {
      await Promise.all([...subscribers, twin].map(s => s.stop()));
    }
    expect(subscriberLocks.peek(here)).toBeNull(); // the last to stop closed the connection
  });
});

describe('a process waiting for a subscriber another process leads', () => {
  it('is told the position it reached in memory, long before the checkpoint is stored', async () => {
    const leader = passedBy('sessions:told', there, storeThere);
    const standby = passedBy('sessions:told', here, storeHere);
    await leader.start();
    await standby.start();
    try {
      expect([leader.isActive, standby.isActive]).toEqual([true, false]);
      for (let i = 0; i < 5; i++) {
        // the checkpoint of a subscriber that events pass by is stored about once a second: not what it waits for
        const appended = await storeHere.append(`passing-${nextUuid()}`, [ignored()], 'no_stream');
        const started = performance.now();
        expect(await standby.waitFor(appended.position, 5000)).toBe(true);
        expect(performance.now() - started).toBeLessThan(500);
      }
    } finally {
      await standby.stop();
      await leader.stop();
    }
  });

  it('still times out when nobody gets there', async () => {
    const standby = passedBy('sessions:nobody', here, storeHere);
    await storeThere.append(`passing-${nextUuid()}`, [ignored()], 'no_stream');
    const head = await storeHere.headPosition();
    const started = performance.now();
    expect(await standby.waitFor({ commit: head.commit + 1000n, prepare: head.prepare + 1000n }, 700)).toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(650);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('listens again when its LISTEN connection drops, and is told again', async () => {
    const leader = passedBy('sessions:relisten', there, storeThere);
    const standby = passedBy('sessions:relisten', here, storeHere);
    await leader.start();
    await standby.start();
    try {
      const listeners = async () =>
        (
          await query(
            here,
            'Listeners',
            `select 1 from pg_stat_activity where application_name = 'payments:subscriber-positions' and datname = current_database()`,
          )
        ).rowCount;
      await eventually(async () => (await listeners()) === 2, 10_000); // one per process, connected as they start
      await query(
        here,
        'KillListeners',
        'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and datname = current_database()',
        ['payments:subscriber-positions'],
      );
      await sleep(100);
      await eventually(async () => (await listeners()) === 2, 10_000); // back by themselves, within about a second
      const appended = await storeHere.append(`passing-${nextUuid()}`, [ignored()], 'no_stream');
      const started = performance.now();
      expect(await standby.waitFor(appended.position, 5000)).toBe(true);
      expect(performance.now() - started).toBeLessThan(500);
    } finally {
      await standby.stop();
      await leader.stop();
    }
    expect(checkpointNotifications.peek(here)).toBeNull();
  });
});
