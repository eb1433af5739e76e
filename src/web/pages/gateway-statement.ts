import {
  statementTypes,
  type StatementDay,
  type StatementRow,
  type StatementType,
} from '../../projections/gateway-statement.ts';
import { escapeHtml as e, formatRupiah } from '../html.ts';
import { pagerHtml, tableHtml, timeHtml, type TableRow } from '../page.ts';
import { statementChartHtml } from './gateway-chart.ts';

/** The statement's filters as typed (so the form shows them again). */
export type StatementFilterForm = Partial<Record<'from' | 'to' | 'type', string>>;

export const statementTypeLabel: Record<StatementType, string> = {
  PAYMENT: 'Pembayaran',
  SETTLEMENT: 'Pencairan',
  WITHDRAWAL_REQUESTED: 'Penarikan diajukan',
  WITHDRAWAL_PAID: 'Penarikan dibayar',
  WITHDRAWAL_REJECTED: 'Penarikan ditolak',
  ADJUSTMENT: 'Penyesuaian',
};

export type StatementView = {
  filters: StatementFilterForm;
  rows: StatementRow[];
  total: number;
  page: number;
  totalPages: number;
  days: StatementDay[];
};

function filtersHtml(f: StatementFilterForm) {
  const types = ['', ...statementTypes]
    .map(
      t =>
        `<option value="${e(t)}"${t === (f.type ?? '') ? ' selected' : ''}>${e(t === '' ? 'Semua' : statementTypeLabel[t as StatementType])}</option>`,
    )
    .join('');
  const input = (name: 'from' | 'to', label: string) =>
    `<div class="field"><label for="statement-${name}">${e(label)}</label><input id="statement-${name}" name="${name}" type="date" value="${e(f[name] ?? '')}"></div>`;
  return `<form method="get" action="/dashboard/gateway" class="filters" aria-label="Filter riwayat saldo">
${input('from', 'Dari tanggal (WIB)')}${input('to', 'Sampai tanggal (WIB)')}
<div class="field"><label for="statement-type">Jenis</label><select id="statement-type" name="type">${types}</select></div>
<div class="field actions"><button type="submit">Terapkan</button><a class="button quiet" href="/dashboard/gateway">Atur ulang</a></div></form>`;
}

const money = (value: number | null) => (value === null ? '—' : e(formatRupiah(value)));

function entryRow(r: StatementRow): TableRow {
  const detail =
    r.type === 'PAYMENT'
      ? `Kotor ${money(r.gross)} · biaya ${money(r.fee)} · bersih ${money(r.net)}${r.order_id ? `<br><span class="muted">Pesanan ${e(r.order_id)}</span>` : ''}`
      : '';
  return {
    data: { 'entry-id': r.id },
    cells: [
      timeHtml(r.at),
      `${e(statementTypeLabel[r.type] ?? r.type)}${detail ? `<br>${detail}` : ''}`,
      money(r.amount),
      money(r.available),
      money(r.pending),
      money(r.on_hold),
    ],
  };
}

/** The merchant's statement on the gateway page: filters, the chart of the period, a page of entries, the CSV link. */
export function statementHtml(v: StatementView): string {
  const query = Object.fromEntries(Object.entries(v.filters).filter(([, value]) => value));
  const csv = `/dashboard/gateway/statement.csv${Object.keys(query).length ? `?${new URLSearchParams(query)}` : ''}`;
  return `<section class="card" aria-labelledby="statement"><div class="actions"><h2 id="statement">Riwayat saldo (${e(v.total)})</h2>
<a class="button quiet" id="statement-csv" href="${e(csv)}" download>Unduh CSV</a></div>
${filtersHtml(v.filters)}${statementChartHtml(v.days)}
${v.rows.length === 0 ? '<p class="muted">Tidak ada entri yang cocok.</p>' : tableHtml('statement-entries', 'Tabel riwayat saldo', [{ label: 'Waktu' }, { label: 'Jenis' }, { label: 'Jumlah', num: true }, { label: 'Tersedia', num: true }, { label: 'Mengendap', num: true }, { label: 'Ditahan', num: true }], v.rows.map(entryRow))}
${pagerHtml('/dashboard/gateway', query, v.page, v.totalPages)}</section>`;
}
