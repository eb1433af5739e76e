import type { ClosedMark } from '../../audit/gateway-closed-periods.ts';
import type { PriorPeriodItem } from '../../audit/gateway-prior-period.ts';
import { escapeHtml as e, formatRupiah } from '../html.ts';
import { csrfField, tableHtml, timeHtml } from '../page.ts';

/** What the reconciliation page knows of the month it shows (exactly a month of WIB days). */
export type MonthPanel = {
  month: string;
  closed: ClosedMark;
  /** it may be closed now: ended, not closed, the month after the latest closed one */
  closable: boolean;
  /** why it cannot be closed now, in the page's words (null: it can, or it is closed) */
  notClosable: string | null;
  /** it is the latest closed month, so it may be reopened */
  reopenable: boolean;
  csrf: string;
};

const monthAction = (month: string, action: 'close' | 'reopen') =>
  `/admin/reconciliation/periods/${encodeURIComponent(month)}/${action}`;

/**
 * The month's state on the reconciliation page: closed (who, when, the report's hash) with the reopen form and its
 * reason, or the "Tutup periode" button for a month that has ended, or why it cannot be closed yet.
 */
export function monthPanelHtml(p: MonthPanel): string {
  if (p.closed) {
    const reopen = p.reopenable
      ? `<form method="post" action="${e(monthAction(p.month, 'reopen'))}" class="actions">${csrfField(p.csrf)}
<label for="reopen-reason" class="muted">Alasan membuka kembali</label><input id="reopen-reason" name="reason" required maxlength="1000">
<button type="submit" class="danger">Buka kembali periode</button></form>`
      : '<p class="muted">Hanya bulan tertutup terakhir yang dapat dibuka kembali.</p>';
    return `<section class="card" aria-labelledby="period-state"><h2 id="period-state">Periode ${e(p.month)}</h2>
<p id="period-closed"><span class="badge ok">Ditutup</span> ${timeHtml(p.closed.at)} oleh <code>${e(p.closed.by)}</code>.
Laporan ini adalah laporan yang dibekukan saat penutupan.</p>
<p class="muted">Hash laporan (SHA-256): <code id="period-hash">${e(p.closed.hash)}</code></p>
${reopen}</section>`;
  }
  const action = p.closable
    ? `<form method="post" action="${e(monthAction(p.month, 'close'))}" class="actions">${csrfField(p.csrf)}
<button type="submit" id="close-period">Tutup periode</button></form>`
    : `<p class="muted" id="period-not-closable">${e(p.notClosable ?? '')}</p>`;
  return `<section class="card" aria-labelledby="period-state"><h2 id="period-state">Periode ${e(p.month)}</h2>
<p><span class="badge wait">Terbuka</span> Laporan dihitung saat ini.</p>${action}</section>`;
}

/** Postings of closed months recorded after they closed, reported in this period: listed apart from its days. */
export function priorPeriodHtml(prior: { count: number; items: PriorPeriodItem[] }): string {
  if (prior.count === 0) return '';
  const rows = prior.items.map(i => ({
    data: { 'reference-id': i.referenceId },
    cells: [
      e(i.eventType),
      `<code>${e(i.referenceId)}</code>`,
      timeHtml(i.effectiveAt),
      timeHtml(i.recordedAt),
      e(i.reportedOn),
      i.postings.map(p => `${e(p.account)} ${e(formatRupiah(p.amount))}`).join('<br>'),
    ],
  }));
  return `<section class="card" aria-labelledby="prior-period"><h2 id="prior-period">Pos periode sebelumnya (${e(prior.count)})</h2>
<p class="muted">Dicatat setelah bulannya ditutup; dilaporkan di periode ini, terpisah dari harinya.</p>
${tableHtml('prior-period-items', 'Pos periode sebelumnya', [{ label: 'Jenis' }, { label: 'Referensi' }, { label: 'Uang berpindah' }, { label: 'Dicatat' }, { label: 'Dilaporkan' }, { label: 'Posting' }], rows)}</section>`;
}
