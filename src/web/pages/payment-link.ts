import type { AccountRow } from '../../projections/accounts.ts';
import { paymentMethods } from '../../domain/payment-methods.ts';
import { escapeHtml as e } from '../html.ts';
import { csrfField } from '../page.ts';

/** What the form shows again after a refusal. */
export type PaymentLinkForm = Partial<
  Record<'amount' | 'orderId' | 'walletAccountId' | 'type' | 'redirectUrl' | 'idempotencyKey', string>
>;

export type PaymentLinkView = {
  csrf: string;
  /** the viewer's accounts whose provider takes payments (GATEWAY is always offered) */
  accounts: AccountRow[];
  form: PaymentLinkForm;
};

const field = (id: string, label: string, input: string, hint = '') =>
  `<div class="field"><label for="${id}">${e(label)}</label>${input}${hint ? `<p class="muted" id="${id}-hint">${e(hint)}</p>` : ''}</div>`;

function receiverSelect(v: PaymentLinkView) {
  const chosen = v.form.walletAccountId ?? 'GATEWAY';
  const option = (value: string, label: string) =>
    `<option value="${e(value)}"${value === chosen ? ' selected' : ''}>${e(label)}</option>`;
  return `<select id="link-receiver" name="walletAccountId" aria-describedby="link-receiver-hint">${option('GATEWAY', 'Gateway (dana masuk ke saldo gateway Anda)')}${v.accounts
    .map(a => option(a.id, `${a.account_name} · ${a.provider_name}`))
    .join('')}</select>`;
}

function typeSelect(chosen: string) {
  const options = paymentMethods
    .filter(m => m.creatable)
    .map(
      m =>
        `<option value="${e(m.code)}"${m.code === chosen ? ' selected' : ''}>${e(`${m.payerLabel} (${m.code})`)}</option>`,
    )
    .join('');
  return `<select id="link-type" name="type" aria-describedby="link-type-hint"><option value="">Dipilih pembayar</option>${options}</select>`;
}

/** A payment made from the dashboard: the same request as POST /api/v1/payments, its page then shared by its address. */
export function paymentLinkHtml(v: PaymentLinkView): string {
  const f = v.form;
  return `<p><a href="/dashboard/payments">‹ Semua pembayaran</a></p>
<section class="card" aria-labelledby="new-link"><h2 id="new-link">Buat tautan pembayaran</h2>
<p class="muted">Sama dengan <code>POST /api/v1/payments</code>. Setelah dibuat, bagikan alamat halaman pembayarannya kepada pembeli.</p>
<form method="post" action="/dashboard/payments/new">${csrfField(v.csrf)}
<input type="hidden" name="idempotencyKey" value="${e(f.idempotencyKey ?? '')}">
${field('link-amount', 'Jumlah (rupiah)', `<input id="link-amount" name="amount" type="number" min="1" step="1" inputmode="numeric" required value="${e(f.amount ?? '')}">`)}
${field('link-order', 'Nomor pesanan', `<input id="link-order" name="orderId" required maxlength="100" value="${e(f.orderId ?? '')}">`)}
${field('link-receiver', 'Diterima di', receiverSelect(v), 'Gateway memakai rekening penampung layanan; atau salah satu rekening Anda yang menerima pembayaran.')}
${field('link-type', 'Metode', typeSelect(f.type ?? ''), 'Kosongkan agar pembayar memilih sendiri di halaman pembayaran.')}
${field('link-redirect', 'Kembali ke (boleh kosong)', `<input id="link-redirect" name="redirectUrl" type="url" maxlength="2000" aria-describedby="link-redirect-hint" value="${e(f.redirectUrl ?? '')}">`, 'Alamat toko Anda, dibuka setelah pembeli membayar. Kosong: alamat utama layanan ini.')}
<button type="submit">Buat tautan</button></form></section>`;
}
