import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../src/db/pool.ts';
import { registerUser } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ SESSION_IDLE_HOURS: '12' });
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
      [`session-${sessionId}`],
    )
  ).rows[0]?.reason ?? null;

describe('SESSION_IDLE_HOURS', () => {
  it('keeps a session in use alive past the idle limit, and ends one left unused that long on the server', async () => {
    const busy = await registerUser(service);
    const idle = await registerUser(service);
    const idleSession = (await me(idle.cookie)).json().devices[0].id as string;

    service.clock.advance(hours(11));
    expect((await me(busy.cookie)).statusCode).toBe(200); // used: recorded as seen
    service.clock.advance(hours(11));
    expect((await me(busy.cookie)).statusCode).toBe(200); // 22 h after sign-in, 11 h after its last use

    const refused = await me(idle.cookie);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({ ok: false, message: 'Unauthorized' });
    expect(await endedReason(idleSession)).toBe('idle');
    // ended, not only refused: going back in time does not bring it back
    service.clock.advance(-hours(22));
    expect((await me(idle.cookie)).statusCode).toBe(401);
    service.clock.advance(hours(22));
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
    service.clock.advance(hours(6));
    await me(user.cookie);
    service.clock.advance(hours(7));
    const devices = (await me(user.cookie)).json().devices as { current: boolean }[];
    expect(devices).toHaveLength(1);
    expect(devices[0]!.current).toBe(true);
    expect((await me(secondCookie)).statusCode).toBe(401);
  });
});
