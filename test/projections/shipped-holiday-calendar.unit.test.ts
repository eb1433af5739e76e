import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readShippedHolidayCalendar } from '../../src/projections/holiday-calendar.ts';

// The shipped calendar as the pages read it: parsed once while the file stays as it is, read again when it changes.

let dir = '';
let file: URL;
const yearOf = (date: string) => ({
  years: { '2026': { source: 'SKB', days: [{ date, name: 'Libur', kind: 'libur-nasional' }] } },
});
const write = (date: string, to = file) => writeFile(to, JSON.stringify(yearOf(date)));
const daysOf = async () => (await readShippedHolidayCalendar(file)).years['2026']!.days.map(d => d.date);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'holiday-calendar-'));
  file = pathToFileURL(join(dir, 'holiday-calendar.json'));
  await write('2026-01-16');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the shipped holiday calendar', () => {
  it('parses an unchanged file once: every read, and reads at once, answer the same calendar', async () => {
    const first = await readShippedHolidayCalendar(file);
    const together = await Promise.all([1, 2, 3].map(() => readShippedHolidayCalendar(file)));
    for (const calendar of [await readShippedHolidayCalendar(file), ...together]) expect(calendar).toBe(first);
  });

  it('sees a change to the file: rewritten in place (even of the same size) or replaced by another', async () => {
    const before = await readShippedHolidayCalendar(file);
    await write('2026-01-19'); // the same number of bytes
    expect(await daysOf()).toEqual(['2026-01-19']);
    expect(await readShippedHolidayCalendar(file)).not.toBe(before);
    // a deploy or an editor replaces the file: another inode
    const next = pathToFileURL(join(dir, 'next.json'));
    await write('2026-03-19', next);
    await rename(next, file);
    expect(await daysOf()).toEqual(['2026-03-19']);
  });

  it('refuses a file that is not a calendar, and reads it again once it is one', async () => {
    await writeFile(file, '{"years": {"2026": {"source": "SKB", "days": [{"date": "2027-01-01"}]}}}');
    await expect(readShippedHolidayCalendar(file)).rejects.toThrow();
    await write('2026-05-01');
    expect(await daysOf()).toEqual(['2026-05-01']);
  });
});
