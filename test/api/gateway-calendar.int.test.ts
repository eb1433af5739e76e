import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser as registerWithRole } from '../../src/commands/registration.ts';
import { settlesAt } from '../../src/domain/working-days.ts';
import { query } from '../../src/db/pool.ts';
import { holidayCalendarProjection, loadHolidayCalendar } from '../../src/projections/holiday-calendar.ts';
import { rebuildProjection, verifyProjection } from '../../src/projections/runner.ts';
import { registerUser, sessionCookie } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let adminCookie: string;
const adminEmail = `calendar-admin-${process.pid}@example.com`;
const signIn = async () => {
  const login = await service.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email: adminEmail, password: 'rahasia123' },
    remoteAddress: '10.250.0.1',
  });
  adminCookie = sessionCookie(login);
};

beforeAll(async () => {
  service = await startTestService();
  // an ADMIN is made as the CLI's create-admin makes one
  await registerWithRole(service.deps, {
    name: 'Calendar Admin',
    email: adminEmail,
    password: 'rahasia123',
    role: 'ADMIN',
  });
  await signIn();
});
afterAll(async () => service?.close());

type Method = 'GET' | 'PUT';
const asAdmin = (method: Method, url: string, payload?: unknown) =>
  service.app.inject({ method, url, cookies: { svc_token: adminCookie }, payload: payload as never });

const year2027 = {
  source: 'SKB 3 Menteri tentang Hari Libur Nasional dan Cuti Bersama Tahun 2027',
  days: [
    { date: '2027-01-01', name: 'Tahun Baru 2027 Masehi', kind: 'libur-nasional' },
    { date: '2027-01-04', name: 'Cuti bersama (test)', kind: 'cuti-bersama' },
  ],
};

describe('the settlement calendar in the admin console', () => {
  it('answers 401 without a session and 403 to a merchant, and changes nothing', async () => {
    const merchant = await registerUser(service);
    for (const [method, payload] of [
      ['GET', undefined],
      ['PUT', year2027],
    ] as const) {
      const url = method === 'GET' ? '/api/admin/gateway/calendar' : '/api/admin/gateway/calendar/2027';
      expect((await service.app.inject({ method, url, payload: payload as never })).statusCode).toBe(401);
      const refused = await service.app.inject({
        method,
        url,
        cookies: { svc_token: merchant.cookie },
        payload: payload as never,
      });
      expect(refused.statusCode).toBe(403);
    }
    const events = await query(
      service.pool,
      'CountCalendarEvents',
      `select count(*)::int as n from es_events where stream_id = 'holiday-calendar'`,
    );
    expect(events.rows[0]!.n).toBe(0);
  });

  it('shows the shipped 2026, and warns of the missing 2027 from 1 October 2026 (WIB), not before', async () => {
    const response = await asAdmin('GET', '/api/admin/gateway/calendar');
    expect(response.statusCode, response.body).toBe(200);
    const data = response.json().data;
    expect(data.missingYears).toEqual([]); // January: next year's decree is not due yet
    expect(data.years).toHaveLength(1);
    expect(data.years[0]).toMatchObject({
      year: 2026,
      setBy: 'shipped',
      setAt: null,
      source: expect.stringMatching(/SKB 3 Menteri/),
    });
    expect(data.years[0].days).toHaveLength(25);

    const started = service.clock.now();
    try {
      service.clock.set('2026-09-30T16:59:59.999Z'); // 30 September 23:59:59.999 WIB
      await signIn(); // the session of January has expired
      expect((await asAdmin('GET', '/api/admin/gateway/calendar')).json().data.missingYears).toEqual([]);
      service.clock.set('2026-09-30T17:00:00.000Z'); // 1 October 00:00 WIB
      expect((await asAdmin('GET', '/api/admin/gateway/calendar')).json().data.missingYears).toEqual([2027]);
    } finally {
      service.clock.set(started);
      await signIn();
    }
  });

  it.each([
    [
      'a date outside the year',
      { ...year2027, days: [{ date: '2026-12-31', name: 'x', kind: 'libur-nasional' }] },
      'INVALID_HOLIDAY_CALENDAR',
      'body.days.0.date',
    ],
    [
      'a date given twice',
      { ...year2027, days: [year2027.days[0], { ...year2027.days[0], name: 'again' }] },
      'INVALID_HOLIDAY_CALENDAR',
      'body.days.1.date',
    ],
    [
      'no date at all',
      { ...year2027, days: [{ date: '2027-02-30', name: 'x', kind: 'libur-nasional' }] },
      'VALIDATION_ERROR',
      'body.days.0.date',
    ],
    [
      'an unknown kind',
      { ...year2027, days: [{ date: '2027-02-01', name: 'x', kind: 'libur' }] },
      'VALIDATION_ERROR',
      'body.days.0.kind',
    ],
    ['no source', { days: [] }, 'VALIDATION_ERROR', 'body.source'],
  ])('refuses %s with 400', async (_, body, code, path) => {
    const response = await asAdmin('PUT', '/api/admin/gateway/calendar/2027', body);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ status: 'error', code });
    expect(response.json().errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it('refuses a year that is not one', async () => {
    expect((await asAdmin('PUT', '/api/admin/gateway/calendar/27', year2027)).statusCode).toBe(400);
  });

  it('sets 2027: GET then shows it as set by an admin, and nothing is missing', async () => {
    const put = await asAdmin('PUT', '/api/admin/gateway/calendar/2027', year2027);
    expect(put.statusCode, put.body).toBe(200);
    const data = (await asAdmin('GET', '/api/admin/gateway/calendar')).json().data;
    expect(data.missingYears).toEqual([]);
    expect(data.years.map((y: { year: number }) => y.year)).toEqual([2026, 2027]);
    expect(data.years[1]).toEqual({
      year: 2027,
      ...year2027,
      setBy: 'admin',
      setAt: service.clock.now().toISOString(),
    });
    expect(put.json().data).toEqual(data);

    // settlement follows the calendar in force: 31 Dec 2026 now settles Tue 5 Jan 2027 (Fri 1 and Mon 4 are holidays)
    const calendar = await loadHolidayCalendar(service.pool);
    expect(settlesAt(new Date('2026-12-31T12:00:00+07:00'), calendar)).toEqual(new Date('2027-01-05T00:00:00+07:00'));
    const rows = await query(service.pool, 'ReadCalendarRows', 'select year, source from holiday_calendar_years');
    expect(rows.rows).toEqual([{ year: 2027, source: year2027.source }]);
  });

  it('sets the same year again as it is: no new event', async () => {
    const count = async () =>
      (
        await query(
          service.pool,
          'CountCalendarEvents',
          `select count(*)::int as n from es_events where stream_id = 'holiday-calendar'`,
        )
      ).rows[0]!.n;
    const before = await count();
    const again = await asAdmin('PUT', '/api/admin/gateway/calendar/2027', {
      ...year2027,
      days: [...year2027.days].reverse(),
    });
    expect(again.statusCode, again.body).toBe(200);
    expect(await count()).toBe(before);
  });

  it('overrides the shipped 2026 when an admin sets it, and names 2028 missing from 1 October 2027', async () => {
    const put = await asAdmin('PUT', '/api/admin/gateway/calendar/2026', { source: 'corrected by an admin', days: [] });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().data.years[0]).toMatchObject({
      year: 2026,
      source: 'corrected by an admin',
      days: [],
      setBy: 'admin',
    });
    const calendar = await loadHolidayCalendar(service.pool);
    expect(settlesAt(new Date('2026-12-23T12:00:00+07:00'), calendar)).toEqual(new Date('2026-12-24T00:00:00+07:00'));

    // 1 Jan 2027 00:30 WIB is still 31 Dec 2026 in UTC: the year is the WIB one, set; 2028 is not due until October
    service.clock.set('2026-12-31T17:30:00.000Z');
    await signIn(); // the session of January has expired
    const response = await asAdmin('GET', '/api/admin/gateway/calendar');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data.missingYears).toEqual([]);
    service.clock.set('2027-09-30T17:00:00.000Z'); // 1 October 2027 00:00 WIB
    await signIn();
    expect((await asAdmin('GET', '/api/admin/gateway/calendar')).json().data.missingYears).toEqual([2028]);
  });

  it('keeps a read model that history rebuilds exactly', async () => {
    const rows = async () =>
      (await query(service.pool, 'ReadCalendarRows', 'select * from holiday_calendar_years t order by t::text')).rows;
    const before = await rows();
    expect(before.map(r => r.year)).toEqual([2026, 2027]);
    await service.projections.stop(); // verifying and rebuilding wait for the live projection to let go
    try {
      expect(await verifyProjection(service, holidayCalendarProjection)).toEqual([]);
      await query(service.pool, 'DropForTest', 'drop table holiday_calendar_years');
      await rebuildProjection(service, holidayCalendarProjection);
      expect(await rows()).toEqual(before);
    } finally {
      await service.projections.start();
    }
  });
});
