import { reconciliationTables } from '../../audit/gateway-reconciliation-csv.ts';
import type { AccountRow } from '../../projections/accounts.ts';
import type { GatewayAccessRow, HoldingAccountRow } from '../../projections/gateway-access.ts';
import type { GatewayReconciliation } from '../../audit/gateway-reconciliation.ts';
import { accessStatusWords, businessFieldWords, methodWord, wordOf } from '../words.ts';
import { findProvider } from '../../providers/catalogue.ts';
import { escapeHtml as e, formatRupiah } from '../html.ts';
import { csrfField, postButton, tableHtml, timeHtml, type TableRow } from '../page.ts';
import { calendarWarningHtml } from './admin-records.ts';
import { carriedBalancesHtml } from './admin-carried-balances.ts';
import { providerTieHtml } from './admin-provider-tie.ts';
import { accessStatusHtml } from './gateway.ts';

/** A form with one text field and a button (reject with a note, pay with a reference). */
function noteForm(action: string, csrf: string, name: string, label: string, button: string, danger = false) {
  const id = `${name}-${action.replace(/[^a-z0-9]/gi, '').slice(-12)}`;
  return `<form method="post" action="${e(action)}" class="actions">${csrfField(csrf)}<label for="${e(id)}" class="muted">${e(label)}</label>
<input id="${e(id)}" name="${e(name)}" required maxlength="1000"><button type="submit"${danger ? ' class="danger"' : ''}>${e(button)}</button></form>`;
}

const statusFilter = (path: string, statuses: string[], current: string) =>
  `<nav class="actions" aria-label="Saring status">${['', ...statuses]
    .map(
      s =>
        `<a class="button quiet" href="${e(s ? `${path}?status=${s}` : path)}"${s === current ? ' aria-current="page"' : ''}>${e(s ? wordOf(accessStatusWords, s) : 'Semua')}</a>`,
    )
    .join('')}</nav>`;

export function adminOverviewHtml(counts: {
  pendingAccess: number;
  requestedWithdrawals: number;
  holdingAccounts: number;
  /** the years due without a holiday decree (src/projections/holiday-calendar.ts, uncoveredYears) */
  uncoveredYears: readonly number[];
}): string {
  return `${calendarWarningHtml(counts.uncoveredYears, true)}<section class="card"><ul>
<li><a href="/admin/access?status=PENDING">Pengajuan akses gateway</a>: ${e(counts.pendingAccess)} menunggu</li>
<li><a href="/admin/withdrawals?status=REQUESTED">Penarikan</a>: ${e(counts.requestedWithdrawals)} menunggu pembayaran</li>
<li><a href="/admin/holding-accounts">Rekening penampung</a>: ${e(counts.holdingAccounts)}</li>
<li><a href="/admin/suspense">Dana tak terklaim</a> (suspense): dana di rekening penampung yang tidak melunasi pembayaran mana pun</li>
<li><a href="/admin/reconciliation">Rekonsiliasi</a></li>
<li><a href="/admin/calendar">Kalender hari kerja</a> (libur nasional dan cuti bersama, untuk penyelesaian H+1)</li>
<li><a href="/admin/digests">Digest harian</a> dan <a href="/admin/streams">riwayat stream</a> untuk auditor</li></ul></section>`;
}

/**
 * A merchant approved (or about to be) pays into holding accounts: the gateway methods none serves now are named,
 * since each payment with one is refused 503 NO_HOLDING_ACCOUNT until an active holding account serves it.
 */
export function holdingWarningHtml(unserved: readonly string[], all: boolean): string {
  if (unserved.length === 0) return '';
  const what = all
    ? 'Belum ada rekening penampung aktif: setiap pembayaran gateway merchant yang disetujui ditolak'
    : `Tidak ada rekening penampung aktif untuk ${unserved.join(', ')}: pembayaran gateway dengan metode itu ditolak`;
  return `<p class="notice error" id="holding-warning">${e(what)} (503 NO_HOLDING_ACCOUNT). <a href="/admin/holding-accounts">Tandai rekening penampung</a></p>`;
}

type AccessRow = GatewayAccessRow & { name: string | null; email: string | null };

function accessRow(r: AccessRow, csrf: string): TableRow {
  const business = r.business
    ? Object.entries(r.business)
        .filter(([, v]) => v)
        .map(([k, v]) => `<dt>${e(wordOf(businessFieldWords, k))}</dt><dd>${e(v!)}</dd>`)
        .join('')
    : '';
  const actions =
    r.status === 'PENDING'
      ? `${postButton(`/admin/access/${r.user_id}/approve`, csrf, 'Setujui', { name: `Setujui ${r.email ?? r.user_id}` })}
${noteForm(`/admin/access/${r.user_id}/reject`, csrf, 'note', 'Alasan penolakan', 'Tolak', true)}`
      : r.status === 'APPROVED'
        ? noteForm(`/admin/access/${r.user_id}/deactivate`, csrf, 'note', 'Alasan penonaktifan', 'Nonaktifkan', true)
        : '';
  return {
    data: { 'user-id': r.user_id },
    cells: [
      `${e(r.name ?? '')}<br><span class="muted">${e(r.email ?? r.user_id)}</span>`,
      `${accessStatusHtml(r.status)}${r.note ? `<br><span class="muted">${e(r.note)}</span>` : ''}`,
      business ? `<dl class="facts">${business}</dl>` : '',
      timeHtml(r.requested_at),
      actions,
    ],
  };
}

export function accessReviewHtml(rows: AccessRow[], status: string, csrf: string, warning = ''): string {
  return `${warning}${statusFilter('/admin/access', ['PENDING', 'APPROVED', 'REJECTED'], status)}<section class="card">
${
  rows.length === 0
    ? '<p class="muted">Tidak ada pengajuan.</p>'
    : tableHtml(
        'access-requests',
        'Tabel pengajuan akses',
        [
          { label: 'Pengguna' },
          { label: 'Status' },
          { label: 'Usaha' },
          { label: 'Diajukan' },
          { label: 'Aksi', action: true },
        ],
        rows.map(r => accessRow(r, csrf)),
      )
}</section>`;
}

export function holdingAccountsHtml(holding: HoldingAccountRow[], own: AccountRow[], csrf: string): string {
  const marked = new Set(holding.map(h => h.account_id));
  const candidates = own.filter(a => !marked.has(a.id));
  const rows = holding.map(h => ({
    data: { 'account-id': h.account_id },
    cells: [
      `${e(h.account_name ?? '(dihapus)')}<br><span class="muted">${e(findProvider(h.provider_code)?.name ?? h.provider_code)}</span>`,
      e(h.methods.map(methodWord).join(', ')),
      h.is_active === null
        ? '<span class="badge bad">Dihapus</span>'
        : h.is_active
          ? '<span class="badge ok">Aktif</span>'
          : '<span class="badge bad">Perlu masuk ulang</span>',
      timeHtml(h.marked_at),
      postButton(`/admin/holding-accounts/${h.account_id}/unmark`, csrf, 'Lepas', {
        danger: true,
        name: `Lepas ${h.account_name ?? h.account_id}`,
      }),
    ],
  }));
  return `<section class="card" aria-labelledby="mark"><h2 id="mark">Tandai rekening penampung</h2>
<p class="muted">Salah satu rekening Anda sendiri yang melayani QRIS atau virtual account.</p>
${
  candidates.length === 0
    ? '<p class="muted">Tidak ada rekening Anda yang bisa ditandai; hubungkan dulu di halaman Rekening.</p>'
    : `<form method="post" action="/admin/holding-accounts" class="actions">${csrfField(csrf)}
<label for="holding-account">Rekening</label><select id="holding-account" name="accountId">${candidates.map(a => `<option value="${e(a.id)}">${e(`${a.account_name} · ${a.provider_name}`)}</option>`).join('')}</select>
<button type="submit">Tandai</button></form>`
}</section>
<section class="card" aria-labelledby="list"><h2 id="list">Rekening penampung</h2>
${holding.length === 0 ? '<p class="muted">Belum ada.</p>' : tableHtml('holding-accounts', 'Tabel rekening penampung', [{ label: 'Rekening' }, { label: 'Metode' }, { label: 'Status' }, { label: 'Ditandai' }, { label: 'Aksi', action: true }], rows)}</section>`;
}

const tableNames: Record<(typeof reconciliationTables)[number], string> = {
  'trial-balance': 'neraca saldo',
  'trial-balance-totals': 'total neraca saldo',
  accounts: 'saldo dibawa per akun',
  'account-kinds': 'saldo dibawa per jenis',
  merchants: 'merchant',
  'holding-accounts': 'rekening penampung',
  suspense: 'kredit tanpa pasangan',
  'suspense-ageing': 'umur kredit tanpa pasangan',
  'suspense-open': 'kredit tanpa pasangan terbuka',
  fees: 'biaya',
  'fees-totals': 'total biaya',
  payouts: 'pembayaran keluar',
};

const verdict = (ok: boolean) =>
  ok ? '<span class="badge ok">Cocok</span>' : '<span class="badge bad">Selisih</span>';

/** `extra`: what the page shows below the form besides the report (the month's close, prior-period items). */
export function reconciliationHtml(
  period: { from: string; to: string },
  report: GatewayReconciliation | null,
  extra = '',
): string {
  const form = `<form method="get" action="/admin/reconciliation" class="card filters">
<div class="field"><label for="from">Dari (WIB)</label><input id="from" name="from" type="date" required value="${e(period.from)}"></div>
<div class="field"><label for="to">Sampai (WIB)</label><input id="to" name="to" type="date" required value="${e(period.to)}"></div>
<div class="field"><button type="submit">Tampilkan</button></div></form>`;
  if (!report) return form;
  const t = report.trialBalance.total;
  // one CSV file per table, each with one header row, so a spreadsheet's filter works on it
  const csvLinks = reconciliationTables
    .map(
      table =>
        `<a class="button quiet" id="reconciliation-csv-${e(table)}" href="${e(`/admin/reconciliation.csv?${new URLSearchParams({ ...period, table })}`)}" download>CSV ${e(tableNames[table])}</a>`,
    )
    .join(' ');
  const missing = report.holidayCalendar.missingYears;
  // a settlement counted a year without its decree: a holiday only the decree names was taken for a working day
  const calendarWarning = missing.length
    ? `<p class="notice error" id="reconciliation-calendar-warning">Peringatan: penyelesaian dalam periode ini menghitung ${e(missing.join(', '))} tanpa kalender (SKB); hanya akhir pekan dan libur tetap tiap tahun yang dianggap libur. <a href="/admin/calendar">Kalender hari kerja</a></p>`
    : '';
  return `${form}${extra}${calendarWarning}<section class="card" aria-labelledby="summary"><div class="actions"><h2 id="summary">Ringkasan</h2>
${csvLinks}</div><dl class="facts">
<dt>Semua pemeriksaan</dt><dd id="reconciliation-verdict">${verdict(report.balanced)}</dd>
<dt>Neraca saldo</dt><dd id="trial-balance">${verdict(report.trialBalance.balanced)} ${e(t.postings)} posting, debit ${e(formatRupiah(t.debits))}, kredit ${e(formatRupiah(t.credits))}</dd>
<dt>Buku besar merchant vs read model</dt><dd>${verdict(report.merchants.balanced)} ${e(report.merchants.checked)} diperiksa, ${e(report.merchants.differing)} berbeda</dd>
<dt>Kredit rekening penampung vs pembayaran</dt><dd>${verdict(report.holdingCredits.balanced)} ${e(formatRupiah(report.holdingCredits.total.credited))} masuk, ${e(report.holdingCredits.problemCount)} masalah</dd>
<dt>Kredit tanpa pasangan</dt><dd>${e(report.unmatchedCredits.length)}</dd>
<dt>Biaya diperoleh</dt><dd id="fees-earned">${verdict(report.fees.balanced)} ${e(formatRupiah(report.fees.total.earned))}</dd>
<dt>Pendapatan kode unik</dt><dd id="unique-codes-earned">${e(formatRupiah(report.fees.total.uniqueCodes))}</dd>
</dl></section>${carriedBalancesHtml(report)}${providerTieHtml(report)}`;
}
