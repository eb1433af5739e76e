import type { AuditView } from '../../audit/event-view.ts';
import type { StoredDigest } from '../../audit/digests.ts';
import type { HolidayCalendarYear } from '../../domain/working-days.ts';
import { escapeHtml as e } from '../html.ts';
import { csrfField, tableHtml } from '../page.ts';
import { eventHtml } from './events.ts';

/** A year of the settlement calendar as the admin console shows it. */
export type CalendarYearView = HolidayCalendarYear & { year: number; setBy: string; setAt: string | null };

/** A year's days as the form's text: one line per day, `date | kind | name`. */
export const calendarLines = (days: HolidayCalendarYear['days']) =>
  days.map(d => `${d.date} | ${d.kind} | ${d.name}`).join('\n');

function yearHtml(y: CalendarYearView, csrf: string) {
  return `<section class="card" aria-labelledby="year-${y.year}"><h2 id="year-${y.year}">${e(y.year)}</h2>
<p class="muted">${e(y.days.length)} hari; ${y.setBy === 'admin' ? `diubah admin ${e(y.setAt ?? '')}` : 'dari berkas bawaan'}. Sumber: ${e(y.source)}</p>
<form method="post" action="/admin/calendar/${e(y.year)}">${csrfField(csrf)}
<div class="field"><label for="source-${y.year}">Sumber (SKB, surat edaran)</label><input id="source-${y.year}" name="source" required maxlength="1000" value="${e(y.source)}"></div>
<div class="field"><label for="days-${y.year}">Hari libur, satu per baris: tanggal | libur-nasional atau cuti-bersama | nama</label>
<textarea id="days-${y.year}" name="days" rows="12">${e(calendarLines(y.days))}</textarea></div>
<button type="submit">Simpan ${e(y.year)}</button></form></section>`;
}

/**
 * The warning for the years due without a decree (this one, and next from 1 October WIB), on the calendar page and
 * the console's front page; nothing when none is missing.
 */
export function calendarWarningHtml(missing: readonly number[], linked = false): string {
  if (missing.length === 0) return '';
  const where = linked ? ` <a href="/admin/calendar">Isi kalender hari kerja</a>.` : '';
  return `<p class="notice error" id="calendar-warning">Peringatan: belum ada kalender (SKB) untuk ${e(missing.join(', '))}. Penyelesaian hanya menghitung akhir pekan dan libur tetap tiap tahun (1 Januari, 1 Mei, 1 Juni, 17 Agustus, 25 Desember, Wafat dan Kenaikan Yesus Kristus).${where}</p>`;
}

/** The settlement calendar: each year in force, editable whole, and a form for a year not there yet. */
export function calendarHtml(
  years: CalendarYearView[],
  missing: number[],
  csrf: string,
  draft: { year: string; source: string; days: string },
): string {
  return `${calendarWarningHtml(missing)}${years.map(y => yearHtml(y, csrf)).join('')}
<section class="card" aria-labelledby="new-year"><h2 id="new-year">Tahun baru</h2>
<form method="post" action="/admin/calendar">${csrfField(csrf)}
<div class="field"><label for="new-year-number">Tahun</label><input id="new-year-number" name="year" required inputmode="numeric" value="${e(draft.year)}"></div>
<div class="field"><label for="new-year-source">Sumber (SKB, surat edaran)</label><input id="new-year-source" name="source" required maxlength="1000" value="${e(draft.source)}"></div>
<div class="field"><label for="new-year-days">Hari libur, satu per baris: tanggal | libur-nasional atau cuti-bersama | nama</label>
<textarea id="new-year-days" name="days" rows="8">${e(draft.days)}</textarea></div>
<button type="submit">Simpan</button></form></section>`;
}

/** The signed daily digests of the log, with the key an auditor keeps. */
export function digestsHtml(key: { keyId: string; publicKey: string }, days: StoredDigest[]): string {
  const columns = [
    { label: 'Hari' },
    { label: 'Peristiwa', num: true },
    { label: 'Akar Merkle' },
    { label: 'Tanda tangan' },
  ];
  const rows = days.map(d => ({
    cells: [
      e(d.day),
      e(d.events),
      `<code>${e(d.root.slice(0, 16))}…</code>`,
      d.signature ? '<span class="badge ok">Ditandatangani</span>' : '<span class="badge wait">Hari berjalan</span>',
    ],
  }));
  return `<section class="card" aria-labelledby="key"><h2 id="key">Kunci penanda tangan (Ed25519)</h2>
<p class="muted">Simpan kunci publik ini; <code>npm run cli -- verify-digests --public-key …</code> memeriksa log terhadapnya.</p>
<dl class="facts"><dt>ID kunci</dt><dd><code>${e(key.keyId)}</code></dd><dt>Kunci publik</dt><dd><code id="public-key">${e(key.publicKey)}</code></dd></dl></section>
<section class="card" aria-labelledby="days"><h2 id="days">Digest harian (WIB)</h2>
${days.length === 0 ? '<p class="muted">Belum ada.</p>' : tableHtml('digests', 'Tabel digest harian', columns, rows)}</section>`;
}

/** One stream's events, a page at a time, as auditors read them. */
export function streamHtml(streamId: string, events: AuditView[] | null, nextRevision: number | null): string {
  const form = `<form method="get" action="/admin/streams" class="card filters"><div class="field"><label for="stream-id">ID stream (mis. payment-…, gateway-…, account-…)</label>
<input id="stream-id" name="id" required value="${e(streamId)}"></div><div class="field"><button type="submit">Tampilkan</button></div></form>`;
  if (!events) return form;
  const next =
    nextRevision === null
      ? ''
      : `<p><a class="button quiet" rel="next" href="/admin/streams?id=${encodeURIComponent(streamId)}&amp;fromRevision=${nextRevision}">Berikutnya ›</a></p>`;
  return `${form}<section class="card" aria-labelledby="events"><h2 id="events">${e(streamId)}</h2><ol id="stream-events">${events.map(eventHtml).join('')}</ol>${next}</section>`;
}
