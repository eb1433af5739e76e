import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriberLocks } from '../../src/db/lock-holder.ts';
import { query } from '../../src/db/pool.ts';
import { createKey, registerUser } from '../support/http.ts';
import { eventually } from '../support/sandbox.ts';
import { startTwoInstances, type TestService } from '../support/service.ts';

const leading = (service: TestService) =>
  [...service.projections.health(), ...service.sagas.health()]
    .filter(s => s.health.state === 'leading')
    .map(s => s.subscriber);
const subscriberCount = (service: TestService) => service.projections.health().length + service.sagas.health().length;

const p99 = (times: number[]) => [...times].sort((a, b) => a - b)[Math.ceil(times.length * 0.99) - 1]!;

/** The subscriber locks (session advisory locks) each server process holds, by process. */
async function advisoryLocksByPid(service: TestService): Promise<Map<number, number>> {
  const rows = await query<{ pid: number; locks: number }>(
    service.pool,
    'AdvisoryLocksByPid',
    `select l.pid, count(*)::int as locks from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'advisory' and l.granted and a.datname = current_database() group by l.pid`,
  );
  return new Map(rows.rows.map(r => [r.pid, r.locks]));
}

describe('two instances on one database', () => {
  let leader: TestService;
  let standby: TestService;

  beforeAll(async () => {
    // as users run them behind a load balancer; the second, started after the first one holds every subscriber's lock,
    // stands by for all of them
    [leader, standby] = await startTwoInstances();
  }, 120_000);
  afterAll(async () => {
    await standby?.close();
    await leader?.close();
  });

  it('the first leads every subscriber, the second stands by', () => {
    expect(leading(leader)).toHaveLength(subscriberCount(leader));
    expect(leading(standby)).toEqual([]);
  });

  it('a command on the standby that waits for the read models is told when they get there, not a second later', async () => {
    // creating and revoking a key wait for every read model (registering too, but argon2 takes most of its time)
    const { cookie } = await registerUser(standby);
    const creating: number[] = [];
    const revoking: number[] = [];
    for (let i = 0; i < 20; i++) {
      let started = performance.now();
      const key = await createKey(standby, cookie, `key ${i}`);
      creating.push(performance.now() - started);
      started = performance.now();
      const revoked = await standby.app.inject({
        method: 'DELETE',
        url: `/api/dashboard/api-keys/${key.id}`,
        cookies: { svc_token: cookie },
      });
      revoking.push(performance.now() - started);
      expect(revoked.statusCode).toBeLessThan(300);
    }
    console.log(
      `standby: create key p99 ${p99(creating).toFixed(1)} ms, revoke key p99 ${p99(revoking).toFixed(1)} ms (20 each)`,
    );
    for (const ms of [...creating, ...revoking]) expect(ms).toBeLessThan(500);
  }, 60_000);

  it("holds all its subscribers' locks on one connection of its own, outside the pool", async () => {
    const lockPid = await subscriberLocks.peek(leader.pool)!.backendPid();
    const standbyPid = await subscriberLocks.peek(standby.pool)!.backendPid();
    expect(lockPid).not.toBeNull();
    const byPid = await advisoryLocksByPid(leader);
    expect(byPid.get(lockPid!)).toBeGreaterThanOrEqual(subscriberCount(leader));
    expect(byPid.get(standbyPid!) ?? 0).toBe(0);
    const connections = await query<{ application_name: string; n: number }>(
      leader.pool,
      'ConnectionsByName',
      `select application_name, count(*)::int as n from pg_stat_activity where datname = current_database() and application_name like 'payments:%' group by 1`,
    );
    // one lock holder and one LISTEN connection per instance
    expect(Object.fromEntries(connections.rows.map(r => [r.application_name, r.n]))).toEqual({
      'payments:subscriber-locks': 2,
      'payments:subscriber-positions': 2,
    });
    // the budget docs/configuration.md gives: the pool's most, plus those two, per instance
    const all = await query<{ n: number }>(
      leader.pool,
      'Connections',
      'select count(*)::int as n from pg_stat_activity where datname = current_database()',
    );
    console.log(`connections to the database of both instances after the waits: ${all.rows[0]!.n}`);
    expect(all.rows[0]!.n).toBeLessThanOrEqual(2 * (leader.config.databasePoolMax + 2));
  });

  it('hands every subscriber to the other instance when its lock connection is killed, and waits stay quick both ways', async () => {
    const lockPid = await subscriberLocks.peek(leader.pool)!.backendPid();
    await query(standby.pool, 'KillLockConnection', 'select pg_terminate_backend($1)', [lockPid]);
    await eventually(
      async () => leading(standby).length === subscriberCount(standby) && leading(leader).length === 0,
      20_000,
    );
    const user = await registerUser(leader); // the first is the standby now
    const started = performance.now();
    await createKey(leader, user.cookie);
    expect(performance.now() - started).toBeLessThan(500);
  }, 40_000);
});
