import type { AccountRow } from '../../projections/accounts.ts';
import type { Provider } from '../../providers/catalogue.ts';
import { escapeHtml as e, formatRupiah } from '../html.ts';
import { copyableHtml, csrfField, postButton, tableHtml, timeHtml, type Column, type TableRow } from '../page.ts';

/** What a link or login form shows again after a refusal (never a password, PIN or code). */
export type AccountForm = Partial<
  Record<'providerCode' | 'accountName' | 'accountNumber' | 'username' | 'phoneNumber' | 'intervalMinutes', string>
>;

const field = (id: string, label: string, input: string, hint = '') =>
  `<div class="field"><label for="${id}">${e(label)}</label>${input}${hint ? `<p class="muted">${e(hint)}</p>` : ''}</div>`;
const textInput = (id: string, name: string, form: AccountForm, attrs = '') =>
  `<input id="${id}" name="${name}" ${attrs} value="${e(form[name as keyof AccountForm] ?? '')}">`;
const providerSelect = (id: string, providers: readonly Provider[], chosen?: string) =>
  `<select id="${id}" name="providerCode">${providers.map(p => `<option value="${e(p.providerCode)}"${p.providerCode === chosen ? ' selected' : ''}>${e(p.name)}</option>`).join('')}</select>`;
const intervalInput = (id: string, form: AccountForm) =>
  field(
    id,
    'Sinkron setiap (menit, 5 sampai 1440)',
    `<input id="${id}" name="intervalMinutes" type="number" min="5" max="1440" step="1" inputmode="numeric" required value="${e(form.intervalMinutes ?? '60')}">`,
  );

export const accountLabel = (a: AccountRow) => a.account_number ?? a.phone_number ?? '—';

/** The balance, or that there is none yet: a new account's zero is not a balance until its first sync. */
const balanceText = (a: AccountRow) => (a.last_sync ? formatRupiah(a.balance) : 'Belum disinkron');

const accountColumns: Column[] = [
  { label: 'Nama' },
  { label: 'ID (walletAccountId)' },
  { label: 'Nomor' },
  { label: 'Saldo', num: true },
  { label: 'Status' },
  { label: 'Sinkron terakhir' },
  { label: 'Aksi', action: true },
];

function accountRow(a: AccountRow, csrf: string): TableRow {
  return {
    data: { 'account-id': a.id },
    cells: [
      `<a href="/dashboard/accounts/${e(a.id)}">${e(a.account_name)}</a><br><span class="muted">${e(a.provider_name)}</span>`,
      copyableHtml(`account-id-${a.id}`, a.id, `ID ${a.account_name}`),
      `<code>${e(accountLabel(a))}</code>`,
      e(balanceText(a)),
      a.is_active ? '<span class="badge ok">Aktif</span>' : '<span class="badge bad">Perlu masuk ulang</span>',
      timeHtml(a.last_sync),
      a.is_active
        ? postButton(`/dashboard/accounts/${a.id}/refresh`, csrf, 'Sinkron', { name: `Sinkron ${a.account_name}` })
        : '',
    ],
  };
}

export type LinkForms = {
  banks: readonly Provider[];
  directWallets: readonly Provider[];
  otpWallets: readonly Provider[];
};

/** Linking: a bank by its internet-banking login, a wallet by its phone, or a wallet by OTP (two or three steps). */
function linkFormsHtml(p: LinkForms, csrf: string, form: AccountForm, flow: string) {
  const f = (which: string) => (flow === which ? form : {});
  return `<section class="card" aria-labelledby="link-bank"><h2 id="link-bank">Hubungkan rekening bank</h2>
<form method="post" action="/dashboard/accounts">${csrfField(csrf)}<input type="hidden" name="flow" value="bank">
${field('bank-provider', 'Bank', providerSelect('bank-provider', p.banks, f('bank').providerCode))}
${field('bank-name', 'Nama rekening (untuk Anda kenali)', textInput('bank-name', 'accountName', f('bank'), 'required maxlength="100"'))}
${field('bank-number', 'Nomor rekening', textInput('bank-number', 'accountNumber', f('bank'), 'required inputmode="numeric"'))}
${field('bank-username', 'User internet banking', textInput('bank-username', 'username', f('bank'), 'required autocomplete="off"'))}
${field('bank-password', 'Password internet banking', '<input id="bank-password" name="password" type="password" required autocomplete="off">')}
${intervalInput('bank-interval', f('bank'))}<button type="submit">Hubungkan bank</button></form></section>
<section class="card" aria-labelledby="link-wallet"><h2 id="link-wallet">Hubungkan e-wallet (nomor HP)</h2>
<form method="post" action="/dashboard/accounts">${csrfField(csrf)}<input type="hidden" name="flow" value="direct">
${field('wallet-provider', 'E-wallet', providerSelect('wallet-provider', p.directWallets, f('direct').providerCode))}
${field('wallet-name', 'Nama akun (untuk Anda kenali)', textInput('wallet-name', 'accountName', f('direct'), 'required maxlength="100"'))}
${field('wallet-phone', 'Nomor HP', textInput('wallet-phone', 'phoneNumber', f('direct'), 'required type="tel" inputmode="tel"'))}
${intervalInput('wallet-interval', f('direct'))}<button type="submit">Hubungkan e-wallet</button></form></section>
<section class="card" aria-labelledby="link-otp"><h2 id="link-otp">Hubungkan e-wallet dengan OTP</h2>
<form method="post" action="/dashboard/accounts/otp/send">${csrfField(csrf)}
${field('otp-provider', 'E-wallet', providerSelect('otp-provider', p.otpWallets, f('otp').providerCode))}
${field('otp-name', 'Nama akun (untuk Anda kenali)', textInput('otp-name', 'accountName', f('otp'), 'required maxlength="100"'))}
${field('otp-phone', 'Nomor HP', textInput('otp-phone', 'phoneNumber', f('otp'), 'required type="tel" inputmode="tel"'))}
${field('otp-pin', 'PIN (6 angka; hanya Wallet A)', '<input id="otp-pin" name="pin" type="password" inputmode="numeric" maxlength="6" autocomplete="off">')}
${intervalInput('otp-interval', f('otp'))}
${field('otp-channel', 'Kirim kode lewat', '<select id="otp-channel" name="verificationMethod"><option value="MESSENGER">Aplikasi pesan</option><option value="SMS">SMS</option></select>')}
<button type="submit">Kirim kode OTP</button></form></section>`;
}

export type AccountsView = LinkForms & { accounts: AccountRow[]; csrf: string; form: AccountForm; flow: string };

export function accountsHtml(v: AccountsView): string {
  return `<section class="card" aria-labelledby="list"><h2 id="list">Rekening &amp; e-wallet (${e(v.accounts.length)})</h2>
${
  v.accounts.length === 0
    ? '<p class="muted">Belum ada yang terhubung.</p>'
    : tableHtml(
        'accounts',
        'Tabel rekening & e-wallet',
        accountColumns,
        v.accounts.map(a => accountRow(a, v.csrf)),
      )
}</section>
${linkFormsHtml(v, v.csrf, v.form, v.flow)}`;
}

/** The OTP step after a send: the code (and wallet B's PIN), bound to the provider's session. */
export function otpStepHtml(v: {
  csrf: string;
  action: string;
  sessionId: string;
  accountId?: string;
  message: string;
  needsPin: boolean;
  second: boolean;
}): string {
  return `<section class="card" aria-labelledby="otp-step"><h2 id="otp-step">${v.second ? 'Masukkan kode OTP kedua' : 'Masukkan kode OTP'}</h2>
<p class="muted" id="otp-message">${e(v.message)}</p>
<form method="post" action="/dashboard/accounts/otp/verify">${csrfField(v.csrf)}
<input type="hidden" name="action" value="${e(v.action)}"><input type="hidden" name="sessionId" value="${e(v.sessionId)}">
${v.accountId ? `<input type="hidden" name="accountId" value="${e(v.accountId)}">` : ''}
${field('otp-code', 'Kode OTP', '<input id="otp-code" name="otp" required inputmode="numeric" autocomplete="one-time-code" maxlength="8">')}
${v.needsPin ? field('otp-pin', 'PIN (6 angka)', '<input id="otp-pin" name="pin" type="password" required inputmode="numeric" maxlength="6" autocomplete="off">') : ''}
<button type="submit">Verifikasi</button></form></section>`;
}

/** One account: its facts, a sync now, its settings, a new login (OTP wallets) and deletion. */
export function accountDetailHtml(
  a: AccountRow,
  csrf: string,
  opts: { otpLogin: boolean; needsPin: boolean; isBank: boolean },
): string {
  const form: AccountForm = { accountName: a.account_name, intervalMinutes: String(a.interval_minutes) };
  return `<p><a href="/dashboard/accounts">‹ Semua rekening</a></p>
<section class="card" aria-labelledby="facts"><h2 id="facts">${e(a.account_name)}</h2><dl class="facts">
<dt>ID (walletAccountId)</dt><dd>${copyableHtml('account-id', a.id, 'ID rekening')}</dd>
<dt>Penyedia</dt><dd>${e(a.provider_name)}</dd><dt>Nomor</dt><dd><code>${e(accountLabel(a))}</code></dd>
<dt>Saldo</dt><dd id="account-balance">${e(balanceText(a))}</dd>
<dt>Status</dt><dd id="account-status">${a.is_active ? 'Aktif' : 'Perlu masuk ulang'}</dd>
<dt>Sinkron terakhir</dt><dd>${timeHtml(a.last_sync)}</dd><dt>Sinkron berikutnya</dt><dd>${timeHtml(a.next_sync_at)}</dd>
</dl><p class="actions">${a.is_active ? postButton(`/dashboard/accounts/${a.id}/refresh`, csrf, 'Sinkron sekarang') : ''}
<a href="/dashboard/mutations?accountId=${e(a.id)}">Lihat mutasi</a>${a.provider_code === 'WALLET-A' && a.is_active ? ` <a href="/dashboard/accounts/${e(a.id)}/transfer">Kirim uang</a>` : ''}</p></section>
<section class="card" aria-labelledby="settings"><h2 id="settings">Pengaturan</h2>
<form method="post" action="/dashboard/accounts/${e(a.id)}">${csrfField(csrf)}
${field('edit-name', 'Nama', textInput('edit-name', 'accountName', form, 'required maxlength="100"'))}
${intervalInput('edit-interval', form)}
${
  opts.isBank
    ? `${field('edit-username', 'User internet banking (kosongkan jika tetap)', '<input id="edit-username" name="username" autocomplete="off">')}
${field('edit-password', 'Password internet banking (kosongkan jika tetap)', '<input id="edit-password" name="password" type="password" autocomplete="off">')}`
    : ''
}
<button type="submit">Simpan</button></form></section>
${
  opts.otpLogin
    ? `<section class="card" aria-labelledby="relogin"><h2 id="relogin">Masuk ulang</h2>
<form method="post" action="/dashboard/accounts/otp/send">${csrfField(csrf)}<input type="hidden" name="accountId" value="${e(a.id)}">
<input type="hidden" name="providerCode" value="${e(a.provider_code)}"><input type="hidden" name="phoneNumber" value="${e(a.phone_number ?? '')}">
${opts.needsPin ? field('relogin-pin', 'PIN (6 angka)', '<input id="relogin-pin" name="pin" type="password" required inputmode="numeric" maxlength="6" autocomplete="off">') : ''}
<button type="submit">Kirim kode OTP ke ${e(a.phone_number ?? '')}</button></form></section>`
    : ''
}
<section class="card" aria-labelledby="danger"><h2 id="danger">Hapus</h2>
<p>Menghapus akun ini beserta semua mutasinya, permanen.</p>
${postButton(`/dashboard/accounts/${a.id}/delete`, csrf, 'Hapus akun ini', { danger: true })}</section>`;
}
