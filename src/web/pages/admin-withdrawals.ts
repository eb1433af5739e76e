import type { AccountRow } from '../../projections/accounts.ts';
import type { GatewayWithdrawalRow } from '../../projections/gateway-ledger.ts';
import type { PayoutFailureRow } from '../../projections/withdrawal-payouts.ts';
import { escapeHtml as e, formatRupiah } from '../html.ts';
import { csrfField, postButton, tableHtml, timeHtml, type TableRow } from '../page.ts';
import { withdrawalStatusHtml } from './gateway.ts';

/** The payout account as the page shows it: null once deleted, `isActive` false when its provider session needs a relogin. */
export type PayoutAccountView = {
  accountId: string;
  accountName: string | null;
  balance: number | null;
  isActive: boolean | null;
} | null;

export type AdminWithdrawalsView = {
  rows: GatewayWithdrawalRow[];
  failures: Map<string, PayoutFailureRow>;
  status: string;
  csrf: string;
  payoutAccount: PayoutAccountView;
  ownWalletA: AccountRow[];
};

/** A form with one text field and a button (reject with a note, pay with a reference). */
function noteForm(action: string, csrf: string, name: string, label: string, button: string, danger = false) {
  const id = `${name}-${action.replace(/[^a-z0-9]/gi, '').slice(-12)}`;
  return `<form method="post" action="${e(action)}" class="actions">${csrfField(csrf)}<label for="${e(id)}" class="muted">${e(label)}</label>
<input id="${e(id)}" name="${e(name)}" required maxlength="1000"><button type="submit"${danger ? ' class="danger"' : ''}>${e(button)}</button></form>`;
}

const statusFilter = (current: string) =>
  `<nav class="actions" aria-label="Saring status">${['', 'REQUESTED', 'PAID', 'REJECTED']
    .map(
      s =>
        `<a class="button quiet" href="${e(s ? `/admin/withdrawals?status=${s}` : '/admin/withdrawals')}"${s === current ? ' aria-current="page"' : ''}>${e(s || 'Semua')}</a>`,
    )
    .join('')}</nav>`;

function payoutAccountHtml(v: AdminWithdrawalsView) {
  const p = v.payoutAccount;
  const current = !p
    ? 'Belum dipilih: penarikan hanya bisa ditandai dibayar dengan referensi.'
    : `${p.accountName ?? '(rekening dihapus)'}${p.balance === null ? '' : ` · saldo ${formatRupiah(p.balance)}`}${p.isActive === false ? ' · perlu masuk ulang' : ''}`;
  const options = v.ownWalletA
    .map(
      a =>
        `<option value="${e(a.id)}"${a.id === p?.accountId ? ' selected' : ''}>${e(`${a.account_name} · ${a.phone_number ?? a.account_number ?? ''}`)}</option>`,
    )
    .join('');
  return `<section class="card" aria-labelledby="payout-account"><h2 id="payout-account">Rekening pembayaran WALLET-A</h2>
<p id="payout-account-current">${e(current)}</p>
${
  v.ownWalletA.length === 0
    ? '<p class="muted">Hubungkan dulu rekening WALLET-A Anda sendiri di halaman Rekening.</p>'
    : `<form method="post" action="/admin/withdrawals/payout-account" class="actions">${csrfField(v.csrf)}
<label for="payout-account-id">Rekening WALLET-A Anda</label><select id="payout-account-id" name="accountId">${options}</select><button type="submit">Pakai rekening ini</button></form>`
}</section>`;
}

function withdrawalRow(
  w: GatewayWithdrawalRow & { merchant_email?: string | null },
  v: AdminWithdrawalsView,
): TableRow {
  const failure = v.failures.get(w.id);
  const actions =
    w.status === 'REQUESTED'
      ? `${postButton(`/admin/withdrawals/${w.id}/pay`, v.csrf, 'Bayar lewat WALLET-A', { name: `Bayar lewat WALLET-A ${formatRupiah(w.amount)}` })}
${noteForm(`/admin/withdrawals/${w.id}/paid`, v.csrf, 'reference', 'Referensi transfer', 'Tandai dibayar')}
${noteForm(`/admin/withdrawals/${w.id}/reject`, v.csrf, 'note', 'Alasan penolakan', 'Tolak', true)}`
      : '';
  // the holder's name as the provider's inquiry returned it, beside the name the merchant typed
  const checked =
    w.checked_holder_name === null
      ? '<span class="badge wait">tidak diperiksa</span>'
      : `<span class="badge ok">${e(w.checked_holder_name)}</span>`;
  const failed =
    w.status === 'REQUESTED' && failure
      ? `<br><span class="muted payout-failure">${e(failure.outcome === 'FAILED' ? 'Pembayaran gagal' : 'Pembayaran belum pasti')}: ${e(failure.reason)}</span>`
      : '';
  return {
    data: { 'withdrawal-id': w.id },
    cells: [
      `${timeHtml(w.requested_at)}<br><span class="muted">${e(w.merchant_email ?? w.merchant_id)}</span>`,
      e(formatRupiah(w.amount)),
      `${e(w.bank_code)} <code>${e(w.account_number)}</code><br><span class="muted">${e(w.account_holder_name)}</span><br>Nama di bank: ${checked}`,
      `${withdrawalStatusHtml(w.status)}${w.reference ? `<br><span class="muted">Ref. ${e(w.reference)}</span>` : ''}${w.note ? `<br><span class="muted">${e(w.note)}</span>` : ''}${failed}`,
      actions,
    ],
  };
}

/** The admin's withdrawals: the payout account, then each withdrawal with its checked holder name and payout actions. */
export function adminWithdrawalsHtml(v: AdminWithdrawalsView): string {
  return `${payoutAccountHtml(v)}${statusFilter(v.status)}<section class="card">
<p class="muted">Admin lain yang membayar; penarikan Anda sendiri dibayar oleh admin lain.</p>
${
  v.rows.length === 0
    ? '<p class="muted">Tidak ada penarikan.</p>'
    : tableHtml(
        'withdrawals',
        'Tabel penarikan',
        [
          { label: 'Diajukan' },
          { label: 'Jumlah', num: true },
          { label: 'Ke rekening' },
          { label: 'Status' },
          { label: 'Aksi', action: true },
        ],
        v.rows.map(w => withdrawalRow(w, v)),
      )
}</section>`;
}
