import type { SuspenseStatus } from '../../domain/gateway-suspense.ts';
import type { SuspenseRow, SuspenseSuggestion } from '../../projections/gateway-suspense.ts';
import { escapeHtml as e, formatRupiah } from '../html.ts';
import { csrfField, tableHtml, timeHtml, type TableRow } from '../page.ts';

export const suspenseStatuses = [
  'OPEN',
  'ALLOCATED',
  'REFUNDED',
  'TRANSFERRED',
] as const satisfies readonly SuspenseStatus[];

export type AdminSuspenseView = {
  rows: SuspenseRow[];
  status: SuspenseStatus;
  csrf: string;
  /** holding accounts by id: name and provider (an unmarked or deleted one is absent) */
  holding: Map<string, { name: string | null; providerCode: string }>;
  /** the merchants and admins the rows name, by user id: their email */
  people: Map<string, string>;
};

const statusLabel: Record<SuspenseStatus, string> = {
  OPEN: 'Terbuka',
  ALLOCATED: 'Dialokasikan',
  REFUNDED: 'Dikembalikan',
  TRANSFERRED: 'Pemindahan dana',
};
const reasonWords: Record<SuspenseSuggestion['reason'], string> = {
  VA_NUMBER_IN_REFERENCE: 'nomor virtual account pembayaran ini tertulis di referensi transfer',
  LATE_EXACT_PAYMENT: 'jumlahnya sama persis dengan pembayaran ini, yang sudah kedaluwarsa saat dana masuk',
};

const statusFilter = (current: SuspenseStatus) =>
  `<nav class="actions" aria-label="Saring status">${suspenseStatuses
    .map(
      s =>
        `<a class="button quiet" href="${e(s === 'OPEN' ? '/admin/suspense' : `/admin/suspense?status=${s}`)}"${s === current ? ' aria-current="page"' : ''}>${e(statusLabel[s])}</a>`,
    )
    .join('')}</nav>`;

const personHtml = (v: AdminSuspenseView, userId: string | null) => (userId ? e(v.people.get(userId) ?? userId) : '—');

function holdingHtml(v: AdminSuspenseView, accountId: string) {
  const h = v.holding.get(accountId);
  return h
    ? `${e(h.name ?? '(rekening dihapus)')}<br><span class="muted">${e(h.providerCode)}</span>`
    : `<code>${e(accountId)}</code>`;
}

/** An open credit once taken by a hand transfer and given back: by whom, when and why. */
function untransferredHtml(v: AdminSuspenseView, r: SuspenseRow) {
  const u = r.untransferred;
  if (r.status !== 'OPEN' || !u) return '';
  return `<br><span class="muted untransferred">Dikembalikan dari pemindahan dana <code>${e(u.transferId)}</code> oleh ${personHtml(v, u.by)}, ${timeHtml(new Date(u.at))}: ${e(u.reason)}</span>`;
}

function suggestionHtml(v: AdminSuspenseView, s: SuspenseSuggestion | null) {
  if (!s) return '<span class="muted">Tidak ada saran</span>';
  return `Pembayaran <code>${e(s.paymentId)}</code><br>Merchant ${personHtml(v, s.merchantId)}<br><span class="muted">Alasan: ${e(reasonWords[s.reason])}</span>`;
}

function resolutionHtml(v: AdminSuspenseView, r: SuspenseRow) {
  const what =
    r.status === 'ALLOCATED'
      ? `Dialokasikan ke merchant ${personHtml(v, r.merchantId)}${r.paymentId ? `<br>Pembayaran <code>${e(r.paymentId)}</code>` : ''}<br><span class="muted">Biaya ${e(formatRupiah(r.fee ?? 0))} · bersih ${e(formatRupiah(r.net ?? 0))}</span>`
      : r.status === 'TRANSFERRED'
        ? `Sisi masuk pemindahan dana antar rekening platform, dicatat setelah dananya masuk<br><a href="#act-${e(r.id)}">Bukan dari pemindahan ini?</a>`
        : `Dikembalikan ke pengirim<br>Ref. ${e(r.refundReference ?? '')}`;
  return `${what}<br><span class="muted">Oleh ${personHtml(v, r.resolvedBy)}, ${timeHtml(r.resolvedAt)}</span>${r.note ? `<br><span class="muted">Catatan: ${e(r.note)}</span>` : ''}`;
}

const field = (id: string, name: string, label: string, attrs = '', value = '') =>
  `<div class="field"><label for="${e(id)}">${e(label)}</label><input id="${e(id)}" name="${e(name)}" ${attrs} value="${e(value)}"></div>`;

/**
 * A credit a hand transfer took, given back to suspense (it was a customer's payment, or another transfer's): its form,
 * with the reason, in a card of its own below the table.
 */
function untransferHtml(r: SuspenseRow, csrf: string) {
  return `<section class="card" id="act-${e(r.id)}" aria-labelledby="act-title-${e(r.id)}">
<h2 id="act-title-${e(r.id)}">${e(formatRupiah(r.amount))} dari ${e(r.senderName)}</h2><p class="muted">Diambil sebagai sisi masuk pemindahan dana antar rekening platform. Bila dana ini bukan dari pemindahan itu (pembayaran pelanggan, atau pemindahan lain), kembalikan ke dana terbuka: pemindahannya menunggu dana masuknya lagi.</p>
<form method="post" action="${e(`/admin/suspense/${r.id}/untransfer`)}">${csrfField(csrf)}<fieldset><legend>Kembalikan ke dana terbuka</legend>
${field(`untransfer-reason-${r.id}`, 'reason', 'Alasan', 'required maxlength="1000"')}
<button type="submit" class="quiet" aria-label="${e(`Kembalikan ${formatRupiah(r.amount)} ke dana terbuka`)}">Kembalikan ke dana terbuka</button></fieldset></form></section>`;
}

/**
 * An open credit's two forms, in a card of their own below the table (so a phone shows them whole): allocate to a
 * payment (the suggestion's, filled in) or a merchant, or record its refund.
 */
function actionsHtml(r: SuspenseRow, csrf: string) {
  const allocate = `<form method="post" action="${e(`/admin/suspense/${r.id}/allocate`)}">${csrfField(csrf)}<fieldset><legend>Alokasikan ke merchant</legend>
${field(`allocate-payment-${r.id}`, 'paymentId', 'ID pembayaran', 'maxlength="36"', r.suggestion?.paymentId ?? '')}
${field(`allocate-user-${r.id}`, 'userId', 'atau ID pengguna merchant', 'maxlength="36"')}
${field(`allocate-note-${r.id}`, 'note', 'Catatan (alasan)', 'required maxlength="1000"')}
<button type="submit" aria-label="${e(`Alokasikan ${formatRupiah(r.amount)}`)}">Alokasikan</button></fieldset></form>`;
  const refund = `<form method="post" action="${e(`/admin/suspense/${r.id}/refund`)}">${csrfField(csrf)}<fieldset><legend>Sudah dikembalikan ke pengirim</legend>
${field(`refund-reference-${r.id}`, 'reference', 'Referensi transfer pengembalian', 'required maxlength="200"')}
${field(`refund-note-${r.id}`, 'note', 'Catatan (alasan)', 'required maxlength="1000"')}
<button type="submit" class="quiet" aria-label="${e(`Catat pengembalian ${formatRupiah(r.amount)}`)}">Catat pengembalian</button></fieldset></form>`;
  return `<section class="card" id="act-${e(r.id)}" aria-labelledby="act-title-${e(r.id)}">
<h2 id="act-title-${e(r.id)}">${e(formatRupiah(r.amount))} dari ${e(r.senderName)}</h2><p class="muted">Diterima ${timeHtml(r.receivedAt)}. Isi ID pembayaran atau ID merchant, salah satu saja.</p>
<div class="filters">${allocate}${refund}</div></section>`;
}

function suspenseRow(r: SuspenseRow, v: AdminSuspenseView): TableRow {
  const open = r.status === 'OPEN';
  return {
    data: { 'suspense-id': r.id },
    cells: [
      timeHtml(r.receivedAt),
      holdingHtml(v, r.accountId),
      e(formatRupiah(r.amount)),
      `${e(r.senderName)}<br><span class="muted">${r.reference ? `Ref. ${e(r.reference)}` : 'Tanpa referensi'}</span>`,
      open
        ? `${suggestionHtml(v, r.suggestion)}${untransferredHtml(v, r)}<br><a href="#act-${e(r.id)}">Alokasikan atau kembalikan</a>`
        : resolutionHtml(v, r),
    ],
  };
}

/**
 * The platform's suspense: credits into holding accounts that no payment claims, each allocated to a
 * merchant or refunded by an admin with a note; resolved ones show who, when and why.
 */
export function adminSuspenseHtml(v: AdminSuspenseView): string {
  const open = v.status === 'OPEN';
  const columns = [
    { label: 'Diterima' },
    { label: 'Rekening penampung' },
    { label: 'Jumlah', num: true },
    { label: 'Pengirim' },
    { label: open ? 'Saran' : 'Penyelesaian' },
  ];
  return `${statusFilter(v.status)}<section class="card">
<p class="muted">Dana masuk ke rekening penampung yang tidak melunasi pembayaran mana pun. Alokasikan ke merchant (masuk saldo tertunda, dipotong biaya seperti pembayaran) atau catat pengembaliannya ke pengirim.</p>
${
  v.rows.length === 0
    ? `<p class="muted" id="suspense-empty">Tidak ada dana berstatus ${e(statusLabel[v.status].toLowerCase())}.</p>`
    : tableHtml(
        'suspense',
        'Tabel dana tak terklaim',
        columns,
        v.rows.map(r => suspenseRow(r, v)),
      )
}</section>
${open ? v.rows.map(r => actionsHtml(r, v.csrf)).join('') : ''}${
    v.status === 'TRANSFERRED' ? v.rows.map(r => untransferHtml(r, v.csrf)).join('') : ''
  }`;
}
