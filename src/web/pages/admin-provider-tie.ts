import type { GatewayReconciliation } from '../../audit/gateway-reconciliation.ts';
import { escapeHtml as e, formatRupiah } from '../html.ts';
import { tableHtml, timeHtml } from '../page.ts';

const itemWords = {
  PAYOUT_IN_FLIGHT: 'Pembayaran keluar dalam proses',
  PAYOUT_NOT_SEEN: 'Pembayaran keluar belum terlihat di penyedia',
  CREDIT_NOT_BOOKED: 'Kredit belum dibukukan',
  HAND_TRANSFER_SIDE_NOT_SEEN: 'Pemindahan dana belum terlihat di penyedia',
  HAND_TRANSFER_NOT_RECORDED: 'Pemindahan dana belum dicatat',
  PAYOUT_NOT_RECORDED: 'Pembayaran keluar belum dicatat',
} as const;

const money = (amount: number | null) => (amount === null ? '—' : formatRupiah(amount));

/** Each holding account's cash in the ledger against its provider's balance at the period's end, with what explains it. */
export function providerTieHtml(report: GatewayReconciliation): string {
  const { holdingAccounts } = report;
  const badge = (tied: boolean | null) =>
    tied === null
      ? '<span class="badge">Belum tersinkron</span>'
      : tied
        ? '<span class="badge ok">Cocok</span>'
        : '<span class="badge bad">Selisih</span>';
  const rows = holdingAccounts.accounts.map(h => ({
    data: { 'account-id': h.accountId },
    cells: [
      e(h.accountId),
      e(formatRupiah(h.ledgerCash)),
      `${e(money(h.providerBalance))}${h.providerBalanceAt ? `<br><span class="muted">per ${timeHtml(new Date(h.providerBalanceAt))}</span>` : ''}`,
      e(money(h.difference)),
      h.items.length === 0
        ? '<span class="muted">—</span>'
        : h.items.map(i => `${e(itemWords[i.kind])}: ${e(formatRupiah(i.amount))}`).join('<br>'),
      e(money(h.unexplained)),
      badge(h.tied),
    ],
  }));
  const table =
    rows.length === 0
      ? '<p class="muted">Belum ada rekening penampung.</p>'
      : tableHtml(
          'provider-tie',
          'Rekening penampung terhadap saldo penyedia',
          [
            { label: 'Rekening' },
            { label: 'Kas buku besar', num: true },
            { label: 'Saldo penyedia', num: true },
            { label: 'Selisih', num: true },
            { label: 'Penjelasan' },
            { label: 'Tak terjelaskan', num: true },
            { label: 'Status' },
          ],
          rows,
        );
  return `<section class="card" aria-labelledby="provider-tie-title"><h2 id="provider-tie-title">Rekening penampung vs penyedia</h2>
<p id="provider-tie-verdict">${holdingAccounts.tied ? '<span class="badge ok">Cocok</span>' : '<span class="badge bad">Selisih</span>'} pada akhir periode</p>
${table}</section>`;
}
