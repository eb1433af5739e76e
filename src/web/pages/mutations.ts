import type { AccountRow } from '../../projections/accounts.ts';
import type { MutationRow } from '../../projections/mutations.ts';
import { mutationTypeWords, wordOf } from '../words.ts';
import { escapeHtml as e, formatRupiah } from '../html.ts';
import { pagerHtml, tableHtml, timeHtml, type TableRow } from '../page.ts';

/** The filters as typed (so the form shows them again), all optional. */
export type MutationFilterForm = Partial<
  Record<'accountId' | 'accountType' | 'type' | 'from' | 'to' | 'minAmount' | 'maxAmount', string>
>;

export type MutationsView = {
  accounts: AccountRow[];
  filters: MutationFilterForm;
  rows: MutationRow[];
  total: number;
  page: number;
  totalPages: number;
};

const accountLabel = (a: AccountRow) => `${a.provider_name} · ${a.account_number ?? a.phone_number ?? a.account_name}`;

function filtersHtml(v: MutationsView) {
  const f = v.filters;
  const accounts = v.accounts
    .map(a => `<option value="${e(a.id)}"${a.id === f.accountId ? ' selected' : ''}>${e(accountLabel(a))}</option>`)
    .join('');
  const types = ['', 'CREDIT', 'DEBIT']
    .map(
      t =>
        `<option value="${t}"${t === (f.type ?? '') ? ' selected' : ''}>${t === '' ? 'Semua' : e(wordOf(mutationTypeWords, t))}</option>`,
    )
    .join('');
  const kinds = [
    ['', 'Semua'],
    ['bank', 'Bank'],
    ['wallet', 'E-wallet'],
  ]
    .map(
      ([value, label]) =>
        `<option value="${value}"${value === (f.accountType ?? '') ? ' selected' : ''}>${label}</option>`,
    )
    .join('');
  const input = (name: keyof MutationFilterForm, label: string, type: string) =>
    `<div class="field"><label for="${name}">${e(label)}</label><input id="${name}" name="${name}" type="${type}"${type === 'number' ? ' min="0" step="1" inputmode="numeric"' : ''} value="${e(f[name] ?? '')}"></div>`;
  return `<form method="get" action="/dashboard/mutations" class="card filters" aria-label="Filter mutasi">
<div class="field"><label for="accountId">Rekening</label><select id="accountId" name="accountId"><option value="">Semua</option>${accounts}</select></div>
<div class="field"><label for="accountType">Jenis rekening</label><select id="accountType" name="accountType">${kinds}</select></div>
<div class="field"><label for="type">Jenis</label><select id="type" name="type">${types}</select></div>
${input('from', 'Dari tanggal (WIB)', 'date')}${input('to', 'Sampai tanggal (WIB)', 'date')}
${input('minAmount', 'Nominal minimal', 'number')}${input('maxAmount', 'Nominal maksimal', 'number')}
<div class="field actions"><button type="submit">Terapkan</button><a class="button quiet" href="/dashboard/mutations">Atur ulang</a></div>
</form>`;
}

function mutationRow(m: MutationRow, accounts: Map<string, AccountRow>): TableRow {
  const account = accounts.get(m.account_id);
  const paid = m.payment as { id?: string; orderId?: string } | null;
  return {
    data: { 'mutation-id': m.id },
    cells: [
      timeHtml(m.created_at),
      account ? e(accountLabel(account)) : `<code>${e(m.account_id)}</code>`,
      `<span class="badge ${m.type === 'CREDIT' ? 'ok' : 'wait'}">${e(wordOf(mutationTypeWords, m.type))}</span>`,
      e(formatRupiah(m.amount)),
      `${e(m.description)}${m.sender_name ? `<br><span class="muted">${e(m.sender_name)}</span>` : ''}`,
      m.reference ? `<code>${e(m.reference)}</code>` : '—',
      paid?.orderId ? `Pesanan ${e(paid.orderId)}` : '—',
    ],
  };
}

export function mutationsHtml(v: MutationsView): string {
  const byId = new Map(v.accounts.map(a => [a.id, a]));
  const query = Object.fromEntries(Object.entries(v.filters).filter(([, value]) => value));
  const csv = `/dashboard/mutations.csv${Object.keys(query).length ? `?${new URLSearchParams(query)}` : ''}`;
  return `${filtersHtml(v)}<section class="card" aria-labelledby="list"><div class="actions"><h2 id="list">Mutasi (${e(v.total)})</h2>
<a class="button quiet" id="export-csv" href="${e(csv)}" download>Unduh CSV</a></div>
${
  v.rows.length === 0
    ? '<p class="muted">Tidak ada mutasi yang cocok.</p>'
    : tableHtml(
        'mutations',
        'Tabel mutasi',
        [
          { label: 'Waktu' },
          { label: 'Rekening' },
          { label: 'Jenis' },
          { label: 'Nominal', num: true },
          { label: 'Keterangan' },
          { label: 'Referensi' },
          { label: 'Pembayaran' },
        ],
        v.rows.map(m => mutationRow(m, byId)),
      )
}
${pagerHtml('/dashboard/mutations', query, v.page, v.totalPages)}</section>`;
}
