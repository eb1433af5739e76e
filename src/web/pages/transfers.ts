import type { AccountRow } from '../../projections/accounts.ts';
import type { BankEntry } from '../../providers/connector.ts';
import { escapeHtml as e, formatRupiah } from '../html.ts';
import { csrfField } from '../page.ts';

/** What a refused transfer form shows again. */
export type TransferForm = Partial<Record<'instId' | 'accountNumber' | 'amount', string>>;

const field = (id: string, label: string, input: string, hint = '') =>
  `<div class="field"><label for="${id}">${e(label)}</label>${input}${hint ? `<p class="muted">${e(hint)}</p>` : ''}</div>`;

/** Money out of a WALLET-A account: a bank transfer (checked recipient first) or a QRIS payment from a photo of the QR. */
export function transferHtml(
  a: AccountRow,
  banks: BankEntry[],
  csrf: string,
  form: TransferForm,
  limits: { qrisMin: number; bankMin: number; max: number },
  idempotencyKey: string,
): string {
  const base = `/dashboard/accounts/${a.id}/transfer`;
  const options = banks
    .map(b => `<option value="${e(b.instId)}"${b.instId === form.instId ? ' selected' : ''}>${e(b.name)}</option>`)
    .join('');
  return `<p><a href="/dashboard/accounts/${e(a.id)}">‹ ${e(a.account_name)}</a></p>
<section class="card"><dl class="facts"><dt>Dari</dt><dd>${e(a.provider_name)} <code>${e(a.phone_number ?? '')}</code></dd>
<dt>Saldo</dt><dd id="account-balance">${e(formatRupiah(a.balance))}</dd></dl></section>
<section class="card" aria-labelledby="bank"><h2 id="bank">Transfer ke rekening bank</h2>
<p class="muted">Langkah 1 dari 2: kami menanyakan nama pemilik rekening dulu. Uang baru terkirim setelah Anda memeriksanya.</p>
<form method="post" action="${e(base)}/bank">${csrfField(csrf)}
${field('transfer-bank', 'Bank tujuan', `<select id="transfer-bank" name="instId" required>${options}</select>`)}
${field('transfer-number', 'Nomor rekening', `<input id="transfer-number" name="accountNumber" required inputmode="numeric" value="${e(form.accountNumber ?? '')}">`)}
${field('transfer-amount', 'Jumlah (rupiah)', `<input id="transfer-amount" name="amount" required type="number" min="${limits.bankMin}" max="${limits.max}" step="1" inputmode="numeric" value="${e(form.amount ?? '')}">`, `Minimal ${formatRupiah(limits.bankMin)}, maksimal ${formatRupiah(limits.max)}.`)}
<button type="submit">Periksa penerima</button></form></section>
<section class="card" aria-labelledby="qris"><h2 id="qris">Bayar QRIS dari foto</h2>
<form method="post" action="${e(base)}/qris" enctype="multipart/form-data">${csrfField(csrf)}<input type="hidden" name="idempotencyKey" value="${e(idempotencyKey)}">
${field('qris-image', 'Foto atau gambar kode QR (PNG atau JPEG, maksimal 5 MB)', '<input id="qris-image" name="qrImage" type="file" accept="image/png,image/jpeg" required>')}
${field('qris-amount', 'Jumlah (rupiah; kosongkan bila QR sudah berisi nominal)', `<input id="qris-amount" name="amount" type="number" min="${limits.qrisMin}" max="${limits.max}" step="1" inputmode="numeric">`)}
<button type="submit">Bayar</button></form></section>`;
}

/** Step 2 of a bank transfer: the holder's name as the bank gives it, and the one button that sends the money. */
export function bankConfirmHtml(
  a: AccountRow,
  v: {
    csrf: string;
    bankName: string;
    accountNumber: string;
    accountName: string;
    amount: number;
    bankAccountIndexNo: string;
    idempotencyKey: string;
  },
): string {
  const base = `/dashboard/accounts/${a.id}/transfer`;
  return `<section class="card" aria-labelledby="check"><h2 id="check">Periksa penerima</h2>
<p>Langkah 2 dari 2. Pastikan nama pemilik rekening sesuai; transfer tidak dapat dibatalkan.</p>
<dl class="facts"><dt>Nama pemilik</dt><dd id="holder-name"><strong>${e(v.accountName)}</strong></dd>
<dt>Bank</dt><dd>${e(v.bankName)}</dd><dt>Nomor rekening</dt><dd><code>${e(v.accountNumber)}</code></dd>
<dt>Jumlah</dt><dd id="transfer-total">${e(formatRupiah(v.amount))}</dd></dl>
<form method="post" action="${e(base)}/bank/send" class="actions">${csrfField(v.csrf)}
<input type="hidden" name="bankAccountIndexNo" value="${e(v.bankAccountIndexNo)}"><input type="hidden" name="amount" value="${e(v.amount)}">
<input type="hidden" name="idempotencyKey" value="${e(v.idempotencyKey)}">
<button type="submit">Kirim ${e(formatRupiah(v.amount))}</button><a href="${e(base)}">Batal</a></form></section>`;
}
