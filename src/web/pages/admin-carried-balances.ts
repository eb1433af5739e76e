import type { AccountKind, GatewayReconciliation } from '../../audit/gateway-reconciliation.ts';
import type { AgeingBucket } from '../../audit/suspense-ageing.ts';
import { escapeHtml as e, formatRupiah } from '../html.ts';
import { tableHtml, timeHtml } from '../page.ts';

const kindNames: Record<AccountKind, string> = {
  holding: 'Kas rekening penampung',
  pending: 'Saldo tertunda merchant',
  settled: 'Saldo tersedia merchant',
  onHold: 'Saldo ditahan merchant',
  suspense: 'Dana tanpa pasangan',
  fees: 'Pendapatan biaya',
  uniqueCodes: 'Pendapatan kode unik',
  equity: 'Ekuitas platform',
  payouts: 'Pembayaran keluar (lama)',
  other: 'Lainnya',
};

const bucketNames: Record<AgeingBucket, string> = {
  '0-7': '0–7 hari',
  '8-30': '8–30 hari',
  'over-30': 'Lebih dari 30 hari',
};

const money = (amount: number) => e(formatRupiah(amount));
const num = true;

/**
 * The reconciliation page's carried balances (each kind of account and each of the platform's own accounts: opening,
 * debits, credits, closing; debit positive, what the platform owes negative) and the suspense credits still open at
 * the period's end, aged.
 */
export function carriedBalancesHtml(report: GatewayReconciliation): string {
  const { kinds, accounts } = report.trialBalance;
  const columns = [
    { label: 'Akun' },
    { label: 'Saldo awal', num },
    { label: 'Debit', num },
    { label: 'Kredit', num },
    { label: 'Saldo akhir', num },
  ];
  const kindRows = kinds
    .filter(k => k.accounts > 0)
    .map(k => ({
      cells: [e(kindNames[k.kind]), money(k.opening), money(k.debits), money(k.credits), money(k.closing)],
      data: { kind: k.kind },
    }));
  // a merchant's accounts are in the merchants' table and the CSV; the platform's own are few
  const platformRows = accounts
    .filter(a => !a.account.startsWith('merchant:'))
    .map(a => ({
      cells: [e(a.account), money(a.opening), money(a.debits), money(a.credits), money(a.closing)],
      data: { account: a.account },
    }));
  const ageing = report.suspense.ageing;
  const bucketRows = ageing.buckets.map(b => ({
    cells: [e(bucketNames[b.bucket]), e(b.items), money(b.amount)],
    data: { bucket: b.bucket },
  }));
  const openRows = ageing.items.map(i => ({
    cells: [timeHtml(new Date(i.receivedAt)), money(i.amount), e(i.senderName), e(`${i.ageDays} hari`)],
    data: { suspense: i.id },
  }));
  return `<section class="card" aria-labelledby="carried"><h2 id="carried">Saldo dibawa</h2>
<p class="muted">Saldo awal, debit, kredit dan saldo akhir periode menurut waktu uang berpindah; saldo akhir sama dengan saldo awal periode berikutnya. Kewajiban platform bertanda negatif.</p>
${tableHtml('carried-kinds', 'Saldo dibawa per jenis akun', [{ label: 'Jenis akun' }, ...columns.slice(1)], kindRows)}
${tableHtml('carried-platform', 'Saldo dibawa akun platform', columns, platformRows)}</section>
<section class="card" aria-labelledby="suspense-ageing"><h2 id="suspense-ageing">Umur dana tanpa pasangan</h2>
<p class="muted">Per ${e(ageing.asOfDay)} (akhir periode): ${e(ageing.total.items)} kredit terbuka, ${money(ageing.total.amount)}.</p>
${tableHtml('suspense-ageing-buckets', 'Kelompok umur dana tanpa pasangan', [{ label: 'Umur' }, { label: 'Kredit', num }, { label: 'Jumlah', num }], bucketRows)}
${openRows.length === 0 ? '<p class="muted">Tidak ada kredit terbuka.</p>' : tableHtml('suspense-open', 'Kredit terbuka di akhir periode', [{ label: 'Diterima' }, { label: 'Jumlah', num }, { label: 'Pengirim' }, { label: 'Umur', num }], openRows)}</section>`;
}
