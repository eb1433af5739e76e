import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../src/db/pool.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let plain: TestService;
beforeAll(async () => {
  // tests run on a database of the run's PostgreSQL (DATABASE_URL): the test clock needs TEST_CLOCK_FORCE there
  service = await startTestService({ TEST_CLOCK: 'true', TEST_CLOCK_FORCE: 'true' });
  plain = await startTestService();
});
afterAll(async () => {
  await service?.close();
  await plain?.close();
});

const move = (payload: unknown) => service.app.inject({ method: 'POST', url: '/api/test-clock', payload: payload as never });

describe('/api/test-clock', () => {
  it('does not exist without TEST_CLOCK', async () => {
    expect((await plain.app.inject({ method: 'GET', url: '/api/test-clock' })).statusCode).toBe(404);
    expect((await plain.app.inject({ method: 'POST', url: '/api/test-clock', payload: { advanceSeconds: 60 } })).statusCode).toBe(404);
  });

  it("answers the service's now, and moves it forward by advanceSeconds or to setTo", async () => {
    const start = service.clock.now();
    const shown = await service.app.inject({ method: 'GET', url: '/api/test-clock' });
    expect(shown.statusCode).toBe(200);
    expect(shown.json().data.now).toBe(start.toISOString());

    const advanced = await move({ advanceSeconds: 3600 });
    expect(advanced.statusCode, advanced.body).toBe(200);
    expect(advanced.json().data.now).toBe(new Date(start.getTime() + 3_600_000).toISOString());
    expect(service.clock.now().getTime()).toBe(start.getTime() + 3_600_000);

    const monday = '2026-01-12T17:00:00.000Z'; // Tuesday 00:00 WIB
    const set = await move({ setTo: monday });
    expect(set.statusCode, set.body).toBe(200);
    expect(service.clock.now().toISOString()).toBe(monday);
  });

  it.each([
    ['a time before now', { setTo: '2020-01-01T00:00:00Z' }, 'TEST_CLOCK_BACKWARDS'],
    ['both fields', { advanceSeconds: 1, setTo: '2030-01-01T00:00:00Z' }, 'VALIDATION_ERROR'],
    ['neither field', {}, 'VALIDATION_ERROR'],
    ['a negative advance', { advanceSeconds: -60 }, 'VALIDATION_ERROR'],
    ['a date that is not one', { setTo: 'next monday' }, 'VALIDATION_ERROR'],
  ])('refuses %s (400) and leaves the clock where it was', async (_case, payload, code) => {
    const before = service.clock.now().getTime();
    const response = await move(payload);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ status: 'error', code });
    expect(service.clock.now().getTime()).toBe(before);
  });

  it('brings waiting jobs (a webhook retry in 5 minutes) forward by as much as it moves', async () => {
    const job = await query<{ id: string }>(service.pool, 'AddTestJob', `select id from graphile_worker.add_job('test-clock-probe', '{}'::json, run_at => now() + interval '5 minutes')`);
    const runAt = async () => (await query<{ due: boolean }>(service.pool, 'TestJobDue', 'select run_at <= now() as due from graphile_worker._private_jobs where id = $1', [job.rows[0]!.id])).rows[0]!.due;
    expect(await runAt()).toBe(false);
    expect((await move({ advanceSeconds: 240 })).statusCode).toBe(200);
    expect(await runAt()).toBe(false); // a minute still to go
    expect((await move({ advanceSeconds: 60 })).statusCode).toBe(200);
    expect(await runAt()).toBe(true);
  });
});
