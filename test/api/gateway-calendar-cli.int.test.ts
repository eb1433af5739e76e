import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInAdmin, type Admin } from '../support/gateway.ts';
import { runCli } from '../support/process.ts';
import { startTestService, type TestService } from '../support/service.ts';

// The settlement calendar from the service's command line: `npm run cli -- calendar show|import`.
let service: TestService;
let admin: Admin;
const files = mkdtempSync(path.join(tmpdir(), 'calendar-cli-'));
const cli = (...args: string[]) => runCli(service, ['calendar', ...args]);
const fileOf = (name: string, body: unknown) => {
  const file = path.join(files, name);
  writeFileSync(file, typeof body === 'string' ? body : JSON.stringify(body));
  return file;
};
const calendarEvents = () => service.store.readStream('holiday-calendar');

const year2027 = {
  source: 'SKB 3 Menteri tentang Hari Libur Nasional dan Cuti Bersama Tahun 2027',
  days: [
    { date: '2027-01-01', name: 'Tahun Baru 2027 Masehi', kind: 'libur-nasional' },
    { date: '2027-02-06', name: 'Tahun Baru Imlek 2578 Kongzili', kind: 'libur-nasional' },
  ],
};

beforeAll(async () => {
  service = await startTestService();
  admin = await signedInAdmin(service);
});
afterAll(async () => service?.close());

describe('npm run cli -- calendar', () => {
  it("shows a year's decree, and says so with exit code 1 for a year without one", async () => {
    const shipped = await cli('show', '2026');
    expect(shipped.code, shipped.err).toBe(0);
    expect(JSON.parse(shipped.out)).toMatchObject({ year: 2026, setBy: 'shipped', setAt: null });
    expect(JSON.parse(shipped.out).days).toHaveLength(25);

    const none = await cli('show', '2031');
    expect(none.code).toBe(1);
    expect(none.out).toBe('');
    expect(none.err).toContain('no holiday decree for 2031');
  });

  it('refuses a file with bad dates, dates of another year or no JSON at all, and changes nothing', async () => {
    const refused: [string, string[], string][] = [
      [
        'a date of another year',
        ['2027', fileOf('other-year.json', { ...year2027, days: [{ ...year2027.days[0], date: '2026-12-31' }] })],
        '2026-12-31 does not lie in 2027',
      ],
      ['the right file for the wrong year', ['2028', fileOf('2027.json', year2027)], '2027-01-01 does not lie in 2028'],
      [
        'a date given twice',
        ['2027', fileOf('twice.json', { ...year2027, days: [year2027.days[0], year2027.days[0]] })],
        '2027-01-01 is given twice',
      ],
      [
        'no date at all',
        ['2027', fileOf('no-date.json', { ...year2027, days: [{ ...year2027.days[0], date: '2027-02-30' }] })],
        'days.0.date: must be a date written YYYY-MM-DD',
      ],
      ['not JSON', ['2027', fileOf('broken.json', '{"source": "SKB", "days": [')], 'is not a readable JSON file'],
    ];
    for (const [what, args, said] of refused) {
      const run = await cli('import', ...args);
      expect(run.code, what).toBe(1);
      expect(run.err, what).toContain(said);
      expect(run.out, what).toBe('');
    }
    expect(await calendarEvents()).toEqual([]);
    for (const usage of [['import', '27', fileOf('27.json', year2027)], ['list']]) {
      const run = await cli(...usage);
      expect(run.code, usage.join(' ')).toBe(2);
      expect(run.err, usage.join(' ')).toContain('calendar import <year> <file>');
    }
    expect(await calendarEvents()).toEqual([]);
  }, 90_000);

  it("imports a year as the operator's, in force for the console and settlement; the same file again records nothing", async () => {
    const file = fileOf('2027.json', year2027);
    const imported = await cli('import', '2027', file);
    expect(imported.code, imported.err).toBe(0);
    expect(JSON.parse(imported.out)).toEqual({ year: 2027, days: 2, changed: true });
    const [recorded, ...more] = await calendarEvents();
    expect(more).toEqual([]);
    expect(recorded!.type).toBe('HolidayCalendarYearSet');
    expect(recorded!.data).toMatchObject({ year: 2027, ...year2027, setBy: 'operator:cli' });
    expect(recorded!.metadata.actor).toBe('operator:cli');

    await service.projections.waitFor(await service.store.headPosition());
    const inForce = (await admin.session('GET', '/api/admin/gateway/calendar')).json().data;
    expect(inForce.years.map((y: { year: number }) => y.year)).toEqual([2026, 2027]);
    expect(inForce.years[1]).toMatchObject({ year: 2027, ...year2027 });

    const shown = await cli('show');
    expect(shown.code, shown.err).toBe(0);
    const all = JSON.parse(shown.out) as { years: { year: number; setBy: string }[] };
    expect(all.years.map(y => [y.year, y.setBy])).toEqual([
      [2026, 'shipped'],
      [2027, 'operator:cli'],
    ]);

    const again = await cli('import', '2027', file);
    expect(again.code, again.err).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({ changed: false });
    expect(await calendarEvents()).toHaveLength(1);
  }, 60_000);
});
