import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../src/db/pool.ts';
import { registerUser } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { storedStreamId } from '../../src/store/postgres-stream-ids.ts';

let service: TestService;
beforeAll(async () => {
  // the test clock on, as a tester runs the service: it moves business time, never the sessions' wall clock
  service = await startTestService({ SESSION_IDLE_HOURS: '12', TEST_CLOCK: 'true', TEST_CLOCK_FORCE: 'true' });
});
afterAll(async () => service?.close());

const hours = (n: number) => n * 3_600_000;
const me = (cookie: string) =>
  service.app.inject({ method: 'GET', url: '/api/auth/me', cookies: { svc_token: cookie } });
const endedReason = async (sessionId: string) =>
  (
    await query<{ reason: string }>(
      service.pool,
      'SessionEndReason',
      `select data::jsonb->>'reason' as reason from es_events where stream_id = $1 and type = 'SessionEnded'`,
      [storedStreamId(`session-${sessionId}`)],
    )
  ).rows[0]?.reason ?? null;

const moveTestClock = (advanceSeconds: number) =>
  service.app.inject({ method: 'POST', url: '/api/test-clock', payload: { advanceSeconds } });

describe('SESSION_IDLE_HOURS', () => {
  it('keeps a session in use alive past the idle limit, and ends one left unused that long on the server', async () => {
    const busy = await registerUser(service);
    const idle = await registerUser(service);
    const idleSession = (await me(idle.cookie)).json().devices[0].id as string;

    service.wallClock.advance(hours(11));
    expect((await me(busy.cookie)).statusCode).toBe(200); // used: recorded as seen
    service.wallClock.advance(hours(11));
    expect((await me(busy.cookie)).statusCode).toBe(200); // 22 h after sign-in, 11 h after its last use

    const refused = await me(idle.cookie);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({ ok: false, message: 'Unauthorized' });
    expect(await endedReason(idleSession)).toBe('idle');
    // ended, not only refused: going back in time does not bring it back
    service.wallClock.advance(-hours(22));
    expect((await me(idle.cookie)).statusCode).toBe(401);
    service.wallClock.advance(hours(22));
  });

  it('leaves idle sessions out of the devices list', async () => {
    const user = await registerUser(service);
    const second = await service.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password: user.password },
      remoteAddress: '10.99.0.1',
    });
    const secondCookie = second.cookies.find(c => c.name === 'svc_token')!.value;
    expect((await me(user.cookie)).json().devices).toHaveLength(2);
    service.wallClock.advance(hours(6));
    await me(user.cookie);
    service.wallClock.advance(hours(7));
    const devices = (await me(user.cookie)).json().devices as { current: boolean }[];
    expect(devices).toHaveLength(1);
    expect(devices[0]!.current).toBe(true);
    expect((await me(secondCookie)).statusCode).toBe(401);
  });

  it('counts on the wall clock: a session outlives a move of the test clock by three days', async () => {
    const user = await registerUser(service);
    const before = (await me(user.cookie)).json().devices[0] as { lastSeenAt: string };
    expect((await moveTestClock(3 * 86_400)).statusCode).toBe(200);
    const after = await me(user.cookie);
    expect(after.statusCode).toBe(200);
    // its times are the wall clock's, not the moved business time
    expect(after.json().devices[0].lastSeenAt).toBe(before.lastSeenAt);
    expect(Date.parse(before.lastSeenAt)).toBeLessThanOrEqual(service.wallClock.now().getTime());
  });

  it('ends an idle session when the wall clock passes the limit, whatever the test clock says', async () => {
    const user = await registerUser(service);
    service.wallClock.advance(hours(12));
    expect((await me(user.cookie)).statusCode).toBe(401);
  });
});
