import type { AuditView } from '../../audit/event-view.ts';
import { paymentTypes as methodCodes } from '../../domain/payment-methods.ts';
import { methodWord } from '../words.ts';
import type { PaymentRow } from '../../projections/payments.ts';
import { escapeHtml as e, formatRupiah } from '../html.ts';
import { copyButtonHtml, pagerHtml, tableHtml, timeHtml, type TableRow } from '../page.ts';
import { eventHtml } from './events.ts';

export const paymentStatuses = ['PENDING', 'COMPLETED', 'EXPIRED', 'FAILED'] as const;
/** The methods the filter offers: every method's code, as merchants see it in the list. */
export const paymentTypes = methodCodes;

const statusLabel: Record<string, string> = {
  PENDING: 'Menunggu',
  COMPLETED: 'Lunas',
  EXPIRED: 'Kedaluwarsa',
  FAILED: 'Gagal',
};
const statusBadge: Record<string, string> = { PENDING: 'wait', COMPLETED: 'ok', EXPIRED: 'bad', FAILED: 'bad' };
export const paymentStatusHtml = (status: string) =>
  `<span class="badge ${statusBadge[status] ?? ''}">${e(statusLabel[status] ?? status)}</span>`;

/** The filters as typed, all optional. */
export type PaymentFilterForm = Partial<Record<'status' | 'type' | 'orderId' | 'from' | 'to', string>>;

export type PaymentsView = {
  filters: PaymentFilterForm;
  rows: PaymentRow[];
  total: number;
  page: number;
  totalPages: number;
};

function filtersHtml(f: PaymentFilterForm) {
  const select = (name: 'status' | 'type', label: string, values: readonly string[], show: (v: string) => string) =>
    `<div class="field"><label for="${name}">${e(label)}</label><select id="${name}" name="${name}"><option value="">Semua</option>${values
      .map(v => `<option value="${e(v)}"${v === f[name] ? ' selected' : ''}>${e(show(v))}</option>`)
      .join('')}</select></div>`;
  const input = (name: 'orderId' | 'from' | 'to', label: string, type: string) =>
    `<div class="field"><label for="${name}">${e(label)}</label><input id="${name}" name="${name}" type="${type}" value="${e(f[name] ?? '')}"></div>`;
  return `<form method="get" action="/dashboard/payments" class="card filters" aria-label="Filter pembayaran">
${select('status', 'Status', paymentStatuses, s => statusLabel[s] ?? s)}${select('type', 'Metode', paymentTypes, methodWord)}
${input('orderId', 'Nomor pesanan (awalan)', 'search')}${input('from', 'Dibuat dari (WIB)', 'date')}${input('to', 'Dibuat sampai (WIB)', 'date')}
<div class="field actions"><button type="submit">Terapkan</button><a class="button quiet" href="/dashboard/payments">Atur ulang</a></div>
</form>`;
}

const methodOf = (p: PaymentRow) =>
  `${p.type ? methodWord(p.type) : 'dipilih pembayar'}${p.gateway ? ' · Gateway' : ''}`;

function paymentRow(p: PaymentRow): TableRow {
  return {
    data: { 'payment-id': p.id },
    cells: [
      `<a href="/dashboard/payments/${e(p.id)}">${e(p.order_id)}</a>`,
      paymentStatusHtml(p.status),
      e(methodOf(p)),
      e(formatRupiah(p.amount)),
      p.total_amount === null ? '—' : e(formatRupiah(p.total_amount)),
      timeHtml(p.created_at),
    ],
  };
}

export function paymentsHtml(v: PaymentsView): string {
  const query = Object.fromEntries(Object.entries(v.filters).filter(([, value]) => value));
  return `<p class="actions"><a class="button" href="/dashboard/payments/new" id="new-payment-link">Buat tautan pembayaran</a></p>
${filtersHtml(v.filters)}<section class="card" aria-labelledby="list"><h2 id="list">Pembayaran (${e(v.total)})</h2>
${v.rows.length === 0 ? '<p class="muted">Tidak ada pembayaran yang cocok.</p>' : tableHtml('payments', 'Tabel pembayaran', [{ label: 'Pesanan' }, { label: 'Status' }, { label: 'Metode' }, { label: 'Jumlah', num: true }, { label: 'Total', num: true }, { label: 'Dibuat' }], v.rows.map(paymentRow))}
${pagerHtml('/dashboard/payments', query, v.page, v.totalPages)}</section>`;
}

export type PaymentDetailView = { payment: PaymentRow; paymentUrl: string; events: AuditView[] };

export function paymentDetailHtml(v: PaymentDetailView): string {
  const p = v.payment;
  const fact = (label: string, value: string, id?: string) =>
    `<dt>${e(label)}</dt><dd${id ? ` id="${id}"` : ''}>${value}</dd>`;
  const money = (amount: number | null) => (amount === null ? '—' : e(formatRupiah(amount)));
  return `<p><a href="/dashboard/payments">‹ Semua pembayaran</a></p>
<section class="card" aria-labelledby="facts"><h2 id="facts">Pesanan ${e(p.order_id)}</h2>
<dl class="facts">
${fact('Status', paymentStatusHtml(p.status), 'payment-status')}
${fact('Metode', e(methodOf(p)))}
${fact('Jumlah', money(p.amount), 'payment-amount')}
${p.unique_code ? fact('Kode unik', money(p.unique_code)) : ''}
${fact('Total ditagih', money(p.total_amount), 'payment-total')}
${p.gateway ? fact('Biaya gateway', money(p.gateway_fee)) : ''}
${p.account_number ? fact('Nomor tujuan', `<code>${e(p.account_number)}</code>`) : ''}
${fact('Dibuat', timeHtml(p.created_at))}
${fact('Kedaluwarsa', timeHtml(p.expires_at))}
${p.completed_at ? fact('Lunas', timeHtml(p.completed_at)) : ''}
${p.mutation_id ? fact('Mutasi', `<code>${e(p.mutation_id)}</code>`) : ''}
${fact('Halaman pembayaran', `<a href="${e(v.paymentUrl)}" id="payment-url">${e(v.paymentUrl)}</a>${copyButtonHtml('payment-url', v.paymentUrl, 'alamat halaman pembayaran')}`)}
${fact('ID', `<code>${e(p.id)}</code>`)}
</dl></section>
<section class="card" aria-labelledby="history"><h2 id="history">Riwayat peristiwa</h2>
<ol id="payment-events">${v.events.map(eventHtml).join('')}</ol></section>`;
}
