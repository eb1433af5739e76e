import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInAdminBrowser } from '../support/gateway.ts';
import { signedInBrowser, textOf } from '../support/pages.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.close());

const adminBrowser = () => signedInAdminBrowser(service);

describe("the admin console's records", () => {
  it("warn on the console's front page from 1 October (WIB) when next year has no decree, not on 30 September", async () => {
    const started = service.clock.now();
    try {
      service.clock.set('2026-09-30T16:59:59.999Z'); // 30 September 2026 23:59:59.999 WIB
      const september = await (await adminBrowser()).browser.get('/admin');
      expect(september.statusCode).toBe(200);
      expect(september.body).toContain('Pengajuan akses gateway');
      expect(september.body).not.toContain('id="calendar-warning"');
      service.clock.set('2026-09-30T17:00:00.000Z'); // 1 October 2026 00:00 WIB: 2027's decree is due, and missing
      const october = await (await adminBrowser()).browser.get('/admin');
      expect(textOf(october.body, 'calendar-warning')).toContain('belum ada kalender (SKB) untuk 2027');
      expect(october.body).toContain('<a href="/admin/calendar">Isi kalender hari kerja</a>');
    } finally {
      service.clock.set(started);
    }
  });

  it('show the settlement calendar and set a year whole, refusing lines that are not days of it', async () => {
    const { admin, browser } = await adminBrowser();
    const page = await browser.get('/admin/calendar');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('2026-08-17 | libur-nasional |');
    expect(page.body).not.toContain('id="calendar-warning"'); // January: next year's decree is not due yet
    const started = service.clock.now();
    try {
      service.clock.set('2026-09-30T17:00:00.000Z'); // 1 October 2026 00:00 WIB: 2027's decree is due, and missing
      const october = await adminBrowser();
      expect(textOf((await october.browser.get('/admin/calendar')).body, 'calendar-warning')).toContain(
        'belum ada kalender (SKB) untuk 2027',
      );
    } finally {
      service.clock.set(started);
    }

    const days = '2027-01-01 | libur-nasional | Tahun Baru Masehi\n2027-08-17 | libur-nasional | Hari Kemerdekaan';
    const badLine = await browser.post('/admin/calendar', {
      year: '2027',
      source: 'SKB 3 Menteri 2027',
      days: '2027-01-01 libur',
    });
    expect(badLine.statusCode).toBe(400);
    expect(textOf(badLine.body, 'notice')).toContain('Baris 1');
    expect(badLine.body).toContain('SKB 3 Menteri 2027'); // the form as typed
    const wrongYear = await browser.post('/admin/calendar', {
      year: '2027',
      source: 'SKB 3 Menteri 2027',
      days: '2026-12-25 | libur-nasional | Natal',
    });
    expect(wrongYear.statusCode).toBe(400);
    const saved = await browser.post('/admin/calendar', { year: '2027', source: 'SKB 3 Menteri 2027', days });
    expect(saved.headers.location).toBe('/admin/calendar?done=saved');
    const api = (await admin.session('GET', '/api/admin/gateway/calendar')).json().data.years as {
      year: number;
      setBy: string;
      days: { date: string }[];
    }[];
    expect(api.find(y => y.year === 2027)).toMatchObject({
      setBy: 'admin',
      days: [{ date: '2027-01-01' }, { date: '2027-08-17' }],
    });
    expect((await browser.get('/admin/calendar')).body).toContain('2027-08-17 | libur-nasional | Hari Kemerdekaan');
  });

  it("show the signing key and the daily digests, and a stream's events; an unknown stream is not found", async () => {
    const { admin, browser } = await adminBrowser();
    const digests = await browser.get('/admin/digests');
    expect(digests.statusCode).toBe(200);
    expect(textOf(digests.body, 'public-key')).toBe(
      (await admin.session('GET', '/api/admin/digests')).json().data.publicKey,
    );

    const stream = await browser.get(`/admin/streams?id=user-${admin.id}`);
    expect(stream.statusCode).toBe(200);
    expect(stream.body).toContain('<strong>UserRegistered</strong>');
    expect(stream.body).toContain('&#34;passwordHash&#34;: &#34;[redacted]&#34;'); // secrets replaced (the page escapes the quotes)
    expect((await browser.get('/admin/streams?id=user-tidak-ada')).statusCode).toBe(404);
    expect((await browser.get('/admin/streams?id=%20bad%20id')).statusCode).toBe(404);
  });

  it('are for admins only', async () => {
    const { browser } = await signedInBrowser(service);
    for (const path of ['/admin/calendar', '/admin/digests', '/admin/streams'])
      expect((await browser.get(path)).statusCode, path).toBe(403);
    await browser.get('/dashboard');
    expect((await browser.post('/admin/calendar', { year: '2028', source: 'x', days: '' })).statusCode).toBe(403);
  });
});
