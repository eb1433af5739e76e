import type { AccountRow } from '../../projections/accounts.ts';
import type { GatewayWithdrawalRow } from '../../projections/gateway-ledger.ts';
import type { PayoutFailureRow } from '../../projections/withdrawal-payouts.ts';
import { withdrawalStatusWords, wordOf } from '../words.ts';
import { escapeHtml as e, formatRupiah } from '../html.ts';
import { csrfField, tableHtml, timeHtml, type TableRow } from '../page.ts';
import { withdrawalStatusHtml } from './gateway.ts';
import { holderAnswer } from '../../projections/withdrawal-presenter.ts';
import type { HoldingTransferRow } from '../../projections/holding-transfers.ts';
import { holdingTransfersHtml, sourceSelect } from './admin-holding-transfers.ts';

/** The payout account as the page shows it: null once deleted, `isActive` false when its provider session needs a relogin. */
export type PayoutAccountView = {
  accountId: string;
  accountName: string | null;
  balance: number | null;
  isActive: boolean | null;
} | null;

/** An account money may leave from: a holding account or the payout account, with its cash as the ledger has it. */
export type SourceAccount = {
  accountId: string;
  name: string;
  providerCode: string;
  cash: number;
  payout: boolean;
  holding: boolean;
};

export type AdminWithdrawalsView = {
  sources: SourceAccount[];
  transfers: HoldingTransferRow[];
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
        `<a class="button quiet" href="${e(s ? `/admin/withdrawals?status=${s}` : '/admin/withdrawals')}"${s === current ? ' aria-current="page"' : ''}>${e(s ? wordOf(withdrawalStatusWords, s) : 'Semua')}</a>`,
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

/** The override of a holder mismatch: a reason the admin must give to pay anyway (kept with the payout). */
const overrideField = (id: string) =>
  `<label for="${e(id)}" class="muted">Alasan tetap membayar meski nama berbeda</label><input id="${e(id)}" name="holderOverrideReason" required maxlength="1000">`;

/**
 * Pay through a WALLET-A account (the payout account chosen first) and mark paid from any platform account (chosen, no
 * default), each account with its ledger cash, and when the money left (WIB, optional); on a holder mismatch both ask
 * for the override's reason.
 */
function payActions(w: GatewayWithdrawalRow, v: AdminWithdrawalsView, mismatch: boolean) {
  const short = w.id.slice(-12);
  const override = (form: string) => (mismatch ? overrideField(`${form}-override-${short}`) : '');
  const cls = mismatch ? 'actions holder-override' : 'actions';
  const button = mismatch ? ' class="danger"' : '';
  const walletA = v.sources.filter(a => a.providerCode === 'WALLET-A');
  const pay = `<form method="post" action="/admin/withdrawals/${e(w.id)}/pay" class="${cls}">${csrfField(v.csrf)}${sourceSelect(`pay-source-${short}`, walletA, 'Lewat rekening', false)}${override('pay')}<button type="submit"${button} aria-label="${e(`Bayar lewat WALLET-A ${formatRupiah(w.amount)}`)}">${mismatch ? 'Bayar lewat WALLET-A dengan pengecualian' : 'Bayar lewat WALLET-A'}</button></form>`;
  const paid = `<form method="post" action="/admin/withdrawals/${e(w.id)}/paid" class="${cls}">${csrfField(v.csrf)}${sourceSelect(`paid-source-${short}`, v.sources, 'Dibayar dari', true)}<label for="paid-ref-${e(short)}" class="muted">Referensi transfer</label><input id="paid-ref-${e(short)}" name="reference" required maxlength="200"><label for="paid-at-${e(short)}" class="muted">Waktu transfer (WIB; kosong: sekarang)</label><input id="paid-at-${e(short)}" name="transferredAt" type="datetime-local" step="1">${override('paid')}<button type="submit"${button}>${mismatch ? 'Tandai dibayar dengan pengecualian' : 'Tandai dibayar'}</button></form>`;
  return `${pay}\n${paid}`;
}

/** The holder the bank named beside the one asked for: the same (ok), another (a warning, never green), or not asked. */
function holderHtml(w: GatewayWithdrawalRow) {
  const { holderName, holderMatches } = holderAnswer(w);
  const badge =
    holderName === null
      ? '<span class="badge wait">tidak diperiksa</span>'
      : holderMatches
        ? `<span class="badge ok">${e(holderName)}</span>`
        : `<span class="badge bad holder-mismatch">${e(holderName)} · berbeda dari nama yang diminta</span>`;
  const override = w.holder_override
    ? `<br><span class="muted holder-override-reason">Dibayar dengan pengecualian: ${e(w.holder_override.reason)}</span>`
    : '';
  return `Nama di bank: ${badge}${override}`;
}

function withdrawalRow(
  w: GatewayWithdrawalRow & { merchant_email?: string | null },
  v: AdminWithdrawalsView,
): TableRow {
  const failure = v.failures.get(w.id);
  const mismatch = holderAnswer(w).holderMatches === false;
  const actions =
    w.status === 'REQUESTED'
      ? `${payActions(w, v, mismatch)}
${noteForm(`/admin/withdrawals/${w.id}/reject`, v.csrf, 'note', 'Alasan penolakan', 'Tolak', true)}`
      : '';
  const failed =
    w.status === 'REQUESTED' && failure
      ? `<br><span class="muted payout-failure">${e(failure.outcome === 'FAILED' ? 'Pembayaran gagal' : 'Pembayaran belum pasti')}: ${e(failure.reason)}</span>`
      : '';
  return {
    data: { 'withdrawal-id': w.id },
    cells: [
      `${timeHtml(w.requested_at)}<br><span class="muted">${e(w.merchant_email ?? w.merchant_id)}</span>`,
      e(formatRupiah(w.amount)),
      `${e(w.bank_code)} <code>${e(w.account_number)}</code><br><span class="muted">${e(w.account_holder_name)}</span><br>${holderHtml(w)}`,
      `${withdrawalStatusHtml(w.status)}${w.reference ? `<br><span class="muted">Ref. ${e(w.reference)}</span>` : ''}${w.note ? `<br><span class="muted">${e(w.note)}</span>` : ''}${failed}`,
      actions,
    ],
  };
}

/** The admin's withdrawals: the payout account, then each withdrawal with its checked holder name and payout actions. */
export function adminWithdrawalsHtml(v: AdminWithdrawalsView): string {
  return `${payoutAccountHtml(v)}${holdingTransfersHtml(v)}${statusFilter(v.status)}<section class="card">
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
