import type { GatewayWithdrawalRow } from '../../projections/gateway-ledger.ts';
import { holderAnswer } from '../../projections/withdrawal-presenter.ts';
import { accessStatusWords, withdrawalStatusWords, wordOf } from '../words.ts';
import { escapeHtml as e, formatRupiah } from '../html.ts';
import { csrfField, tableHtml, timeHtml, type TableRow } from '../page.ts';
import type { PendingDue } from '../../projections/gateway-settlements.ts';
import { pendingDueHtml } from './gateway-settlements.ts';
import { statementHtml, type StatementView } from './gateway-statement.ts';

export type GatewayInfo = {
  access: {
    status: string;
    note: string | null;
    createdAt: string | null;
    requestedAt: string | null;
    processedAt: string | null;
    feeToCustomer: boolean;
  };
  methods: { value: string; label: string }[];
  balance: { settled: number; pending: number; onHold: number; available: number };
  fee: number;
  qrisFee: { rate: number; flat: number };
  minWithdrawal: number;
};

/** What a refused form shows again. */
export type GatewayForm = Record<string, string>;

export const accessStatusHtml = (status: string) =>
  `<span class="badge ${status === 'APPROVED' ? 'ok' : status === 'REJECTED' ? 'bad' : 'wait'}">${e(wordOf(accessStatusWords, status))}</span>`;
export const withdrawalStatusHtml = (status: string) =>
  `<span class="badge ${status === 'PAID' ? 'ok' : status === 'REJECTED' ? 'bad' : 'wait'}">${e(wordOf(withdrawalStatusWords, status))}</span>`;

const field = (id: string, name: string, label: string, form: GatewayForm, attrs = '') =>
  `<div class="field"><label for="${id}">${e(label)}</label><input id="${id}" name="${name}" ${attrs} value="${e(form[name] ?? '')}"></div>`;

function accessRequestForm(csrf: string, form: GatewayForm) {
  return `<form method="post" action="/dashboard/gateway/access-request">${csrfField(csrf)}
${field('business-name', 'businessName', 'Nama usaha', form, 'required maxlength="200"')}
${field('business-type', 'businessType', 'Jenis usaha', form, 'required maxlength="100"')}
${field('business-phone', 'phone', 'Telepon', form, 'required type="tel"')}
${field('business-address', 'address', 'Alamat', form, 'required maxlength="500"')}
${field('business-website', 'website', 'Situs web (boleh kosong)', form, 'type="url"')}
${field('business-description', 'description', 'Keterangan (boleh kosong)', form, 'maxlength="2000"')}
<button type="submit">Ajukan akses</button></form>`;
}

/** The name the bank gave for the destination, and a warning when it is not the holder the merchant typed. */
function bankHolderHtml(w: GatewayWithdrawalRow) {
  const { holderName, holderMatches } = holderAnswer(w);
  if (holderName === null) return '<br><span class="muted">Nama di bank belum diperiksa</span>';
  return holderMatches
    ? `<br>Nama di bank: <span class="badge ok">${e(holderName)}</span>`
    : `<br>Nama di bank: <span class="badge bad holder-mismatch">${e(holderName)}</span><br><span class="muted">Berbeda dari nama yang Anda isi: admin tidak membayarnya tanpa pemeriksaan</span>`;
}

function withdrawalRow(w: GatewayWithdrawalRow): TableRow {
  return {
    data: { 'withdrawal-id': w.id },
    cells: [
      timeHtml(w.requested_at),
      e(formatRupiah(w.amount)),
      `${e(w.bank_code)} <code>${e(w.account_number)}</code><br><span class="muted">${e(w.account_holder_name)}</span>${bankHolderHtml(w)}`,
      `${withdrawalStatusHtml(w.status)}${w.reference ? `<br><span class="muted">Ref. ${e(w.reference)}</span>` : ''}${w.note ? `<br><span class="muted">${e(w.note)}</span>` : ''}`,
    ],
  };
}

/** `withdrawalKey`: the withdrawal form's Idempotency-Key, made with the page: a second click or a resend asks once. */
export type GatewayPageView = {
  info: GatewayInfo;
  withdrawals: GatewayWithdrawalRow[];
  /** the pending balance by the working day it settles on */
  pendingDue: PendingDue[];
  statement: StatementView;
  csrf: string;
  form: GatewayForm;
  formName: string;
  withdrawalKey: string;
};

/** The merchant's gateway: access, fee mode, balances, withdrawals. */
export function gatewayHtml(v: GatewayPageView): string {
  const { info, csrf } = v;
  const a = info.access;
  const canRequest = a.status === 'NONE' || a.status === 'REJECTED';
  const form = (name: string) => (v.formName === name ? v.form : {});
  const b = info.balance;
  return `<section class="card" aria-labelledby="access"><h2 id="access">Akses gateway</h2><dl class="facts">
<dt>Status</dt><dd id="access-status">${accessStatusHtml(a.status)}</dd>
${a.note ? `<dt>Catatan</dt><dd id="access-note">${e(a.note)}</dd>` : ''}
${a.requestedAt ? `<dt>Diajukan</dt><dd>${timeHtml(a.requestedAt)}</dd>` : ''}${a.processedAt ? `<dt>Diputuskan</dt><dd>${timeHtml(a.processedAt)}</dd>` : ''}
<dt>Metode</dt><dd id="methods">${info.methods.length ? info.methods.map(m => e(m.label)).join(', ') : '—'}</dd>
<dt>Biaya</dt><dd>QRIS ${e((info.qrisFee.rate * 100).toLocaleString('id-ID'))}% + ${e(formatRupiah(info.qrisFee.flat))}; virtual account ${e(formatRupiah(info.fee))}</dd>
</dl>${canRequest ? accessRequestForm(csrf, form('access')) : ''}</section>
${
  a.status === 'APPROVED'
    ? `<section class="card" aria-labelledby="fee-mode"><h2 id="fee-mode">Siapa menanggung biaya</h2>
<form method="post" action="/dashboard/gateway/settings">${csrfField(csrf)}
<div class="field"><label for="fee-to-customer">Biaya</label><select id="fee-to-customer" name="feeToCustomer">
<option value="false"${a.feeToCustomer ? '' : ' selected'}>Saya (dipotong dari pembayaran)</option>
<option value="true"${a.feeToCustomer ? ' selected' : ''}>Pembeli (ditambahkan ke tagihan)</option></select></div>
<button type="submit">Simpan</button></form></section>`
    : ''
}
<section class="card" aria-labelledby="balance"><h2 id="balance">Saldo</h2><dl class="facts">
<dt>Tersedia</dt><dd id="balance-available"><strong>${e(formatRupiah(b.available))}</strong></dd>
<dt>Mengendap (cair H+1 hari kerja)</dt><dd><span id="balance-pending">${e(formatRupiah(b.pending))}</span>${pendingDueHtml(v.pendingDue)}</dd>
<dt>Sudah cair</dt><dd id="balance-settled">${e(formatRupiah(b.settled))}</dd>
<dt>Ditahan (penarikan diproses)</dt><dd id="balance-on-hold">${e(formatRupiah(b.onHold))}</dd>
</dl><p><a id="settlements-link" href="/dashboard/gateway/settlements">Riwayat pencairan dan pembayarannya</a></p></section>
${statementHtml(v.statement)}
<section class="card" aria-labelledby="withdraw"><h2 id="withdraw">Tarik dana</h2>
${
  b.available > 0 || a.status === 'APPROVED'
    ? `<p class="muted">Minimal ${e(formatRupiah(info.minWithdrawal))}, paling banyak saldo tersedia. Admin membayar ke rekening Anda.</p>
<form method="post" action="/dashboard/gateway/withdrawals">${csrfField(csrf)}<input type="hidden" name="idempotencyKey" value="${e(v.withdrawalKey)}">
${field('withdraw-amount', 'amount', 'Jumlah (rupiah)', form('withdraw'), `required type="number" min="${e(info.minWithdrawal)}" step="1" inputmode="numeric"`)}
${field('withdraw-bank', 'bankCode', 'Kode bank', form('withdraw'), 'required maxlength="32"')}
${field('withdraw-number', 'accountNumber', 'Nomor rekening', form('withdraw'), 'required inputmode="numeric"')}
${field('withdraw-holder', 'accountHolderName', 'Nama pemilik rekening', form('withdraw'), 'required maxlength="100"')}
<button type="submit">Ajukan penarikan</button></form>`
    : '<p class="muted">Penarikan tersedia setelah akses disetujui dan ada saldo.</p>'
}
${v.withdrawals.length === 0 ? '<p class="muted">Belum ada penarikan.</p>' : tableHtml('withdrawals', 'Tabel penarikan', [{ label: 'Diajukan' }, { label: 'Jumlah', num: true }, { label: 'Ke rekening' }, { label: 'Status' }], v.withdrawals.map(withdrawalRow))}</section>`;
}
