import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRetention } from '../../src/background/retention.ts';
import { query } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import { rebuildProjection, verifyProjection } from '../../src/projections/runner.ts';
import { sessionsProjection } from '../../src/projections/sessions.ts';
import { keyHolder, registerUser, sessionCookies } from '../support/http.ts';
import { startTwoInstances, type TestService } from '../support/service.ts';

/**
 * The retention's pass (src/background/retention.ts) on two instances of the service sharing one database and one test
 * clock: rows past their retention go, rows within it stay, the event log is untouched, and one instance prunes.
 */

const dayMs = 24 * 3_600_000;
// one row a statement and a pause after it: a pass lasts long enough for the other instance to try meanwhile; an
// endpoint on this machine, which nothing is sent to; and sessions kept a day after they are over
const slowPass = {
  RETENTION_BATCH_ROWS: '1',
  RETENTION_PAUSE_MS: '150',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  RETENTION_ENDED_SESSIONS_DAYS: '1',
};

let a: TestService;
let b: TestService;
beforeAll(async () => {
  [a, b] = await startTwoInstances(slowPass);
}, 120_000);
afterAll(async () => {
  await b?.close();
  await a?.close();
});

/**
 * A webhook event and one delivery of it per status given, all made and last changed at the clock's now; to an
 * endpoint nobody has unless one is given.
 */
async function webhookEvent(
  statuses: string[],
  to?: { ownerId: string; endpointId: string },
): Promise<{ eventId: string; deliveryIds: string[] }> {
  const eventId = randomUUID();
  const now = a.clock.now();
  await query(
    a.pool,
    'SeedWebhookEvent',
    `insert into webhook_events (event_id, owner_id, type, created_at, body, enqueued_at) values ($1, $2, 'payment.completed', $3, '{}', $3)`,
    [eventId, to?.ownerId ?? randomUUID(), now],
  );
  const deliveryIds: string[] = [];
  for (const status of statuses) {
    const r = await query<{ id: string }>(
      a.pool,
      'SeedWebhookDelivery',
      `insert into webhook_deliveries (event_id, endpoint_id, owner_id, status, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $5) returning id`,
      [eventId, to?.endpointId ?? randomUUID(), to?.ownerId ?? randomUUID(), status, now],
    );
    const id = r.rows[0]!.id;
    await query(
      a.pool,
      'SeedWebhookAttempt',
      `insert into webhook_attempts (delivery_id, number, manual, attempted_at, duration_ms, status_code) values ($1, 1, false, $2, 12, 500)`,
      [id, now],
    );
    deliveryIds.push(id);
  }
  return { eventId, deliveryIds };
}

/** A queue job of a task nobody runs; failed for good (attempts spent) and last tried `daysAgo` on the database's clock. */
async function job(failed: boolean, daysAgo: number): Promise<string> {
  const r = await query<{ id: string }>(
    a.pool,
    'SeedJob',
    `select id::text from graphile_worker.add_job('retention-test', '{}'::json, run_at => now() + interval '1 day', max_attempts => 1)`,
  );
  const id = r.rows[0]!.id;
  await query(
    a.pool,
    'AgeJob',
    `update graphile_worker._private_jobs set attempts = $2, updated_at = now() - $3::float8 * interval '1 day' where id = $1`,
    [id, failed ? 1 : 0, daysAgo],
  );
  return id;
}

const present = async (table: string, column: string, ids: string[]) =>
  (
    await query<{ id: string }>(
      a.pool,
      'PresentRows',
      `select ${column}::text as id from ${table} where ${column}::text = any($1::text[])`,
      [ids],
    )
  ).rows
    .map(r => r.id)
    .sort();

const eventLog = async () =>
  (
    await query<{ digest: string }>(
      a.pool,
      'EventLogDigest',
      `select count(*)::text || ':' || coalesce(md5(string_agg(e::text, ',' order by position)), '') as digest from es_events e`,
    )
  ).rows[0]!.digest;

describe('retention of operational rows, two instances on one database', () => {
  it('prunes what is past its retention once, keeps what is within it and the event log', async () => {
    await registerUser(a); // events in the log, which no pass touches
    const old = await webhookEvent(['succeeded', 'failed', 'cancelled']);
    const oldPending = await webhookEvent(['pending']);
    const oldWithRecent = await webhookEvent(['failed', 'succeeded']);
    const nobodyTookIt = await webhookEvent([]);
    a.clock.advance(29 * dayMs);
    const recent = await webhookEvent(['succeeded']);
    const recentNobodyTookIt = await webhookEvent([]);
    // the second delivery of this event was sent again lately: it stays, and its event with it
    await query(a.pool, 'Redelivered', 'update webhook_deliveries set updated_at = $2 where id = $1', [
      oldWithRecent.deliveryIds[1],
      a.clock.now(),
    ]);
    const failedLongAgo = await job(true, 31);
    const failedLately = await job(true, 29);
    const waitingLongAgo = await job(false, 31);
    a.clock.advance(2 * dayMs); // 31 days after the first rows, 2 after the recent ones
    const logBefore = await eventLog();

    const [byA, byB] = await Promise.all([a.retention.tick(), b.retention.tick()]);

    // 3 + 1 old finished deliveries, 2 events left without deliveries, 1 job: all by one instance
    expect([byA, byB].sort()).toEqual([0, 7]);
    const allDeliveries = [old, oldPending, oldWithRecent, recent].flatMap(e => e.deliveryIds);
    const kept = [...oldPending.deliveryIds, oldWithRecent.deliveryIds[1]!, ...recent.deliveryIds].sort();
    expect(await present('webhook_deliveries', 'id', allDeliveries)).toEqual(kept);
    expect(await present('webhook_attempts', 'delivery_id', allDeliveries)).toEqual(kept);
    const events = [old, oldPending, oldWithRecent, nobodyTookIt, recent, recentNobodyTookIt].map(e => e.eventId);
    expect(await present('webhook_events', 'event_id', events)).toEqual(
      [oldPending.eventId, oldWithRecent.eventId, recent.eventId, recentNobodyTookIt.eventId].sort(),
    );
    expect(await present('graphile_worker._private_jobs', 'id', [failedLongAgo, failedLately, waitingLongAgo])).toEqual(
      [failedLately, waitingLongAgo].sort(),
    );
    expect(await eventLog()).toBe(logBefore);

    // a second pass finds nothing more
    expect(await b.retention.tick()).toBe(0);
  });

  it('a delivery past its retention leaves the delivery log and can no longer be redelivered', async () => {
    const owner = await keyHolder(a);
    const registered = await owner.call('POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/hooks' });
    expect(registered.statusCode, registered.body).toBe(200);
    const endpoint = registered.json().data;
    await a.projections.waitFor(await a.store.headPosition());
    const {
      deliveryIds: [id],
    } = await webhookEvent(['failed'], { ownerId: owner.id, endpointId: endpoint.id });
    const listed = async () => {
      const response = await owner.call('GET', `/api/v1/webhooks/${endpoint.id}/deliveries`);
      expect(response.statusCode, response.body).toBe(200);
      return (response.json().data as { id: string }[]).map(d => d.id);
    };
    expect(await listed()).toEqual([id]);

    a.clock.advance(31 * dayMs);
    await a.retention.tick();

    expect(await listed()).toEqual([]);
    const redelivery = await owner.call('POST', `/api/v1/webhooks/${endpoint.id}/deliveries/${id}/redeliver`);
    expect(redelivery.statusCode).toBe(404);
    expect(redelivery.json()).toMatchObject({ status: 'error', code: 'WEBHOOK_DELIVERY_NOT_FOUND' });
  });

  it('prunes ended attempt windows and old provider notification ids nobody writes again, once', async () => {
    const key = (name: string) => `retention-test:${name}:${randomUUID()}`;
    const [ended, open] = [key('ended'), key('open')];
    await query(
      a.pool,
      'SeedAttemptWindows',
      `insert into attempt_counts (key, window_start, window_end, count) values
         ($1, now() - interval '2 minutes', now() - interval '1 minute', 3),
         ($2, now() - interval '1 minute', now() + interval '1 hour', 1)`,
      [ended, open],
    );
    const [heardLongAgo, heardLately] = [randomUUID(), randomUUID()];
    const now = a.clock.now().getTime();
    await query(
      a.pool,
      'SeedProviderNotifications',
      `insert into provider_notifications (provider_code, notification_id, body_sha256, received_at) values
         ('WALLET-D', $1, 'x', $2), ('WALLET-D', $3, 'x', $4)`,
      [heardLongAgo, new Date(now - 25 * 3_600_000), heardLately, new Date(now - 3_600_000)],
    );
    const logBefore = await eventLog();

    const [byA, byB] = await Promise.all([a.retention.tick(), b.retention.tick()]);

    expect(Math.min(byA, byB)).toBe(0);
    expect(Math.max(byA, byB)).toBeGreaterThanOrEqual(2);
    expect(await present('attempt_counts', 'key', [ended, open])).toEqual([open]);
    expect(await present('provider_notifications', 'notification_id', [heardLongAgo, heardLately])).toEqual([
      heardLately,
    ]);
    expect(await eventLog()).toBe(logBefore);
  });

  it('a stop ends a pass after the statement in hand, whatever is left to prune', async () => {
    let statements = 0;
    const endless = { name: 'endless', prune: async (_pool: unknown, batch: number) => (statements++, batch) };
    const settings = { webhookDays: 30, failedJobDays: 30, endedSessionDays: 0, batchRows: 10, pauseMs: 50 };
    const retention = startRetention(
      { pool: a.pool, clock: a.clock, wallClock: a.wallClock, log: createLogger('silent') },
      settings,
      { rules: [endless] },
    );
    const pass = retention.tick();
    await new Promise(resolve => setTimeout(resolve, 300));
    await retention.stop();
    const made = statements;
    expect(await pass).toBe(made * 10);
    await new Promise(resolve => setTimeout(resolve, 200));
    expect(statements).toBe(made);
    expect(made).toBeGreaterThan(1);
  });
});

describe('retention of ended sessions, two instances on one database', () => {
  const hour = 3_600_000;
  /** A user signed up now, with the session the sign-up started (the only one of that user). */
  const signedUp = async () => {
    const user = await registerUser(a);
    const r = await query<{ id: string }>(a.pool, 'SessionOf', 'select id from user_sessions where user_id = $1', [
      user.id,
    ]);
    return { ...user, sessionId: r.rows[0]!.id };
  };
  const signedOut = async () => {
    const user = await signedUp();
    const out = await a.app.inject({ method: 'GET', url: '/api/auth/logout', cookies: sessionCookies(user.cookie) });
    expect(out.statusCode).toBe(302);
    return user;
  };
  const me = async (cookie: string) =>
    (await a.app.inject({ method: 'GET', url: '/api/auth/me', cookies: sessionCookies(cookie) })).statusCode;
  const kept = (sessions: { sessionId: string }[]) =>
    present(
      'user_sessions',
      'id',
      sessions.map(s => s.sessionId),
    );
  const ids = (...sessions: { sessionId: string }[]) => sessions.map(s => s.sessionId).sort();

  it('prunes sessions a day after they ended or expired, once, on the wall clock; keeps the live ones and the log', async () => {
    const endedLongAgo = await signedOut();
    const expiresFirst = await signedUp(); // never signed out: over when it expires, a week on
    a.wallClock.advance(25 * hour);
    // business time moves far ahead: a session's end and expiry are the wall clock's, so nothing more goes for it
    a.clock.advance(400 * 24 * hour);
    const endedLately = await signedOut();
    const live = await signedUp();
    expect(await me(endedLongAgo.cookie)).toBe(401);
    const logBefore = await eventLog();

    const [byA, byB] = await Promise.all([a.retention.tick(), b.retention.tick()]);

    expect(Math.min(byA, byB)).toBe(0);
    expect(Math.max(byA, byB)).toBeGreaterThanOrEqual(1);
    const all = [endedLongAgo, expiresFirst, endedLately, live];
    expect(await kept(all)).toEqual(ids(expiresFirst, endedLately, live));
    expect(await eventLog()).toBe(logBefore);
    expect(await b.retention.tick()).toBe(0);
    // a pruned session is refused as an ended one is (its JWT is still good for days); the others go on as they were
    expect(await me(endedLongAgo.cookie)).toBe(401);
    expect(await me(endedLately.cookie)).toBe(401);
    expect(await me(live.cookie)).toBe(200);

    // a week on, the session that was never signed out has been expired for more than a day, and the one ended lately
    // ended more than a day ago
    a.wallClock.advance(7 * 24 * hour);
    const liveNow = await signedUp();
    await a.retention.tick();
    // the session signed up a week ago expired just now: within its day
    expect(await kept([...all, liveNow])).toEqual(ids(live, liveNow));
    expect(await me(liveNow.cookie)).toBe(200);
  });

  it('a rebuild brings pruned sessions back from the log, the next pass prunes them again; verify counts none', async () => {
    const ended = await signedOut();
    const live = await signedUp();
    a.wallClock.advance(25 * hour);
    const stillLive = await signedUp();
    await a.retention.tick();
    expect(await kept([ended, live, stillLive])).toEqual(ids(live, stillLive));
    // only the replay has the pruned row: no difference, as it is over
    expect(await verifyProjection(a, sessionsProjection, { now: a.wallClock.now() })).toEqual([]);

    await rebuildProjection(a, sessionsProjection);

    expect(await kept([ended, live, stillLive])).toEqual(ids(ended, live, stillLive));
    expect(await me(ended.cookie)).toBe(401);
    expect(await me(stillLive.cookie)).toBe(200);
    await a.retention.tick();
    expect(await kept([ended, live, stillLive])).toEqual(ids(live, stillLive));
    expect(await verifyProjection(a, sessionsProjection, { now: a.wallClock.now() })).toEqual([]);
  });
});
