import type { BalanceHistory } from '../../audit/gateway-balance-history.ts';
import type { PayoutReport } from '../../audit/gateway-payout-report.ts';
import type { GatewayRevenue, RevenueFigures } from '../../audit/gateway-revenue.ts';
import {
  balanceHistoryTables,
  payoutReportTables,
  revenueTables,
  type BalanceHistoryTable,
  type PayoutReportTable,
  type RevenueTable,
} from '../../audit/finance-reports-csv.ts';
import type { ReportSubjects } from '../../audit/report-names.ts';
import { escapeHtml as e, formatRupiah } from '../html.ts';
import { tableHtml, timeHtml } from '../page.ts';

/**
 * The console's finance reports beside the reconciliation: balance history, revenue by method and merchant, payouts.
 * Each is a period form (WIB days) with its tables and one CSV link per table (the page's own `.csv` route).
 */

const money = (amount: number) => e(formatRupiah(amount));
const num = true;

export const reportPages = [
  { path: '/admin/balance-history', label: 'Riwayat saldo' },
  { path: '/admin/revenue', label: 'Pendapatan' },
  { path: '/admin/payout-report', label: 'Pembayaran keluar' },
] as const;

const reportsNav = (current: string) =>
  `<nav class="actions" aria-label="Laporan keuangan">${reportPages
    .map(
      p =>
        `<a class="button quiet" href="${p.path}"${p.path === current ? ' aria-current="page"' : ''}>${e(p.label)}</a>`,
    )
    .join('')}</nav>`;

const dateFields = (form: { from?: string | undefined; to?: string | undefined }) =>
  `<div class="field"><label for="from">Dari (WIB)</label><input id="from" name="from" type="date" required value="${e(form.from ?? '')}"></div>
<div class="field"><label for="to">Sampai (WIB)</label><input id="to" name="to" type="date" required value="${e(form.to ?? '')}"></div>`;

function csvLinks<T extends string>(
  path: string,
  query: Record<string, string>,
  tables: readonly T[],
  names: Record<T, string>,
) {
  return tables
    .map(
      table =>
        `<a class="button quiet" id="csv-${e(table)}" href="${e(`${path}.csv?${new URLSearchParams({ ...query, table })}`)}" download>CSV ${e(names[table])}</a>`,
    )
    .join(' ');
}

type HistoryForm = { from?: string; to?: string; merchantId?: string; holdingAccountId?: string };
const historyTableNames: Record<BalanceHistoryTable, string> = { days: 'per hari', accounts: 'periode' };
const balanceNames = { pending: 'Tertunda', settled: 'Tersedia', onHold: 'Ditahan', cash: 'Kas' } as const;

export function balanceHistoryHtml(form: HistoryForm, subjects: ReportSubjects, report: BalanceHistory | null): string {
  const option = (id: string, label: string, chosen: string | undefined) =>
    `<option value="${e(id)}"${id === chosen ? ' selected' : ''}>${e(label)}</option>`;
  const merchants = subjects.merchants
    .map(m => option(m.id, `${m.merchantName ?? m.id} (${m.merchantEmail ?? '—'})`, form.merchantId))
    .join('');
  const accounts = subjects.accounts
    .map(a => option(a.id, `${a.providerCode ?? '?'} ${a.accountName ?? a.id}`, form.holdingAccountId))
    .join('');
  const filters = `<form method="get" action="/admin/balance-history" class="card filters">${dateFields(form)}
<div class="field"><label for="merchantId">Merchant</label><select id="merchantId" name="merchantId"><option value="">—</option>${merchants}</select></div>
<div class="field"><label for="holdingAccountId">atau rekening penampung</label><select id="holdingAccountId" name="holdingAccountId"><option value="">—</option>${accounts}</select></div>
<div class="field"><button type="submit">Tampilkan</button></div></form>`;
  if (!report) return reportsNav('/admin/balance-history') + filters;
  const s = report.subject;
  const [name, id]: [string, Record<string, string>] =
    s.kind === 'merchant'
      ? [`${s.merchantName ?? s.merchantId} (${s.merchantEmail ?? '—'})`, { merchantId: s.merchantId }]
      : [`${s.providerCode ?? '?'} ${s.accountName ?? s.holdingAccountId}`, { holdingAccountId: s.holdingAccountId }];
  const query = { from: report.period.from, to: report.period.to, ...id };
  const rows = report.days.map(d => ({
    cells: [
      e(d.day),
      e(balanceNames[d.balance]),
      money(d.opening),
      money(d.debits),
      money(d.credits),
      money(d.closing),
    ],
    data: { day: d.day, balance: d.balance },
  }));
  const table = tableHtml(
    'balance-history',
    `Riwayat saldo ${name}`,
    [
      { label: 'Hari' },
      { label: 'Saldo' },
      { label: 'Saldo awal', num },
      { label: 'Debit', num },
      { label: 'Kredit', num },
      { label: 'Saldo akhir', num },
    ],
    rows,
  );
  return `${reportsNav('/admin/balance-history')}${filters}<section class="card" aria-labelledby="history"><div class="actions"><h2 id="history">${e(name)}</h2>
${csvLinks('/admin/balance-history', query, balanceHistoryTables, historyTableNames)}</div>
<p class="muted">Tanda buku besar: debit positif; yang terutang kepada merchant negatif. Saldo akhir tiap hari adalah saldo awal hari berikutnya.</p>
${table}</section>`;
}

const revenueTableNames: Record<RevenueTable, string> = {
  'by-method': 'per metode',
  'by-merchant': 'per merchant',
  totals: 'total',
};
const figureColumns = [
  { label: 'Pembayaran', num },
  { label: 'Alokasi', num },
  { label: 'Bruto', num },
  { label: 'Biaya', num },
  { label: 'Kode unik', num },
  { label: 'Pendapatan', num },
  { label: 'Neto merchant', num },
];
const figureCells = (f: RevenueFigures) => [
  e(f.payments),
  e(f.allocations),
  money(f.gross),
  money(f.fees),
  money(f.uniqueCodes),
  money(f.revenue),
  money(f.net),
];

export function revenueHtml(form: { from?: string; to?: string }, report: GatewayRevenue | null): string {
  const filters = `<form method="get" action="/admin/revenue" class="card filters">${dateFields(form)}
<div class="field"><button type="submit">Tampilkan</button></div></form>`;
  if (!report) return reportsNav('/admin/revenue') + filters;
  const query = { from: report.period.from, to: report.period.to };
  const byMethod = tableHtml(
    'revenue-by-method',
    'Pendapatan per metode',
    [{ label: 'Metode' }, ...figureColumns],
    report.byMethod.map(m => ({
      cells: [e(m.method ?? 'Tanpa pembayaran'), ...figureCells(m)],
      data: { method: m.method ?? '' },
    })),
  );
  const byMerchant = tableHtml(
    'revenue-by-merchant',
    'Pendapatan per merchant',
    [{ label: 'Merchant' }, ...figureColumns],
    report.byMerchant.map(m => ({
      cells: [
        `${e(m.merchantName ?? m.merchantId)}<br><span class="muted">${e(m.merchantEmail ?? '')}</span>`,
        ...figureCells(m),
      ],
      data: { 'merchant-id': m.merchantId },
    })),
  );
  const t = report.total;
  return `${reportsNav('/admin/revenue')}${filters}<section class="card" aria-labelledby="revenue"><div class="actions"><h2 id="revenue">Pendapatan</h2>
${csvLinks('/admin/revenue', query, revenueTables, revenueTableNames)}</div><dl class="facts">
<dt>Biaya</dt><dd id="revenue-fees">${money(t.fees)}</dd>
<dt>Kode unik (terpisah dari biaya)</dt><dd id="revenue-unique-codes">${money(t.uniqueCodes)}</dd>
<dt>Jumlah pendapatan</dt><dd id="revenue-total">${money(t.revenue)}</dd></dl>
${byMethod}${byMerchant}</section>`;
}

const payoutTableNames: Record<PayoutReportTable, string> = {
  payouts: 'pembayaran',
  attempts: 'percobaan',
  totals: 'total',
};
const outcomeNames = { PAID: 'dibayar', FAILED: 'gagal', UNCONFIRMED: 'belum pasti', IN_FLIGHT: 'berjalan' } as const;

export function payoutReportHtml(form: { from?: string; to?: string }, report: PayoutReport | null): string {
  const filters = `<form method="get" action="/admin/payout-report" class="card filters">${dateFields(form)}
<div class="field"><button type="submit">Tampilkan</button></div></form>`;
  if (!report) return reportsNav('/admin/payout-report') + filters;
  const query = { from: report.period.from, to: report.period.to };
  const holder = (p: PayoutReport['payouts'][number]) => {
    const answered = p.holderAnswered ? e(p.holderAnswered) : '<span class="muted">tidak dicek</span>';
    // a mismatch is a warning, never green
    const badge =
      p.holderMatches === false
        ? ` <span class="badge bad holder-mismatch">berbeda${p.holderOverride ? `, disetujui: ${e(p.holderOverride.reason)}` : ''}</span>`
        : '';
    return `${e(p.holderAsked)} → ${answered}${badge}`;
  };
  const rows = report.payouts.map(p => ({
    cells: [
      timeHtml(p.paidAt),
      `${e(p.merchantName ?? p.merchantId)}<br><span class="muted">${e(p.merchantEmail ?? '')}</span>`,
      money(p.amount),
      e(p.channel),
      e(p.sourceProviderCode ? `${p.sourceProviderCode} ${p.sourceAccountName ?? ''}` : (p.sourceAccountId ?? '—')),
      e(`${p.bankCode} ${p.accountNumber}`),
      holder(p),
      e(p.reference ?? ''),
      e(p.attempts.map(a => outcomeNames[a.outcome]).join(', ') || '—'),
    ],
    data: { 'withdrawal-id': p.withdrawalId, channel: p.channel },
  }));
  const table = tableHtml(
    'payout-report',
    'Daftar pembayaran keluar',
    [
      { label: 'Keluar' },
      { label: 'Merchant' },
      { label: 'Jumlah', num },
      { label: 'Jalur' },
      { label: 'Dari rekening' },
      { label: 'Ke rekening' },
      { label: 'Pemilik diminta → jawaban bank' },
      { label: 'Referensi' },
      { label: 'Percobaan WALLET-A' },
    ],
    rows,
  );
  return `${reportsNav('/admin/payout-report')}${filters}<section class="card" aria-labelledby="payouts"><div class="actions"><h2 id="payouts">Pembayaran keluar</h2>
${csvLinks('/admin/payout-report', query, payoutReportTables, payoutTableNames)}</div><dl class="facts">
<dt>Jumlah</dt><dd id="payouts-total">${e(report.total.payouts)} pembayaran, ${money(report.total.amount)}</dd></dl>
${table}</section>`;
}
