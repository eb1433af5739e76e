import type { HoldingAccountRow } from '../../projections/gateway-access.ts';
import type { LedgerAdjustmentRow } from '../../projections/ledger-adjustments.ts';
import { escapeHtml as e, formatRupiah } from '../html.ts';
import { csrfField, tableHtml, timeHtml } from '../page.ts';

const kindWords = { OPENING: 'Saldo awal (saat ditandai)', ADJUSTMENT: 'Penyesuaian admin' } as const;

/**
 * The holding accounts' openings and correcting entries against the platform's equity: the form for a dated entry with
 * its reason, and every entry with who booked it.
 */
export function ledgerAdjustmentsHtml(v: {
  holding: HoldingAccountRow[];
  entries: LedgerAdjustmentRow[];
  csrf: string;
}) {
  const names = new Map(v.holding.map(h => [h.account_id, h.account_name ?? h.account_id]));
  const form =
    v.holding.length === 0
      ? '<p class="muted">Tandai rekening penampung lebih dulu.</p>'
      : `<form method="post" action="/admin/holding-accounts/ledger-adjustments" class="actions">${csrfField(v.csrf)}
<label for="adjustment-account" class="muted">Rekening</label><select id="adjustment-account" name="holdingAccountId" required>${v.holding.map(h => `<option value="${e(h.account_id)}">${e(`${h.account_name ?? h.account_id} · ${h.provider_code}`)}</option>`).join('')}</select>
<label for="adjustment-amount" class="muted">Jumlah (rupiah; minus mengurangi kas)</label><input id="adjustment-amount" name="amount" required type="number" step="1" inputmode="numeric">
<label for="adjustment-at" class="muted">Berlaku pada (WIB)</label><input id="adjustment-at" name="effectiveAt" required type="datetime-local" step="1">
<label for="adjustment-reason" class="muted">Alasan</label><input id="adjustment-reason" name="reason" required maxlength="1000">
<button type="submit">Catat penyesuaian</button></form>`;
  const entries =
    v.entries.length === 0
      ? '<p class="muted">Belum ada saldo awal atau penyesuaian.</p>'
      : tableHtml(
          'ledger-adjustments',
          'Saldo awal dan penyesuaian rekening penampung',
          [
            { label: 'Berlaku' },
            { label: 'Rekening' },
            { label: 'Jenis' },
            { label: 'Jumlah', num: true },
            { label: 'Alasan' },
            { label: 'Dicatat' },
          ],
          v.entries.map(a => ({
            data: { 'entry-id': a.id },
            cells: [
              timeHtml(new Date(a.effectiveAt)),
              e(names.get(a.holdingAccountId) ?? a.holdingAccountId),
              e(kindWords[a.kind]),
              e(formatRupiah(a.amount)),
              a.reason === null
                ? `<span class="muted">Saldo penyedia ${e(formatRupiah(a.providerBalance ?? 0))}</span>`
                : e(a.reason),
              `${timeHtml(new Date(a.bookedAt))}<br><span class="muted">oleh ${e(a.bookedBy)}</span>`,
            ],
          })),
        );
  return `<section class="card" aria-labelledby="adjustments-title"><h2 id="adjustments-title">Saldo awal dan penyesuaian</h2>
<p class="muted">Saat ditandai, saldo rekening di penyedia dibukukan sebagai saldo awal (lawan: ekuitas platform). Catat di sini koreksi bertanggal, misalnya biaya bank, dengan alasannya.</p>
${form}
${entries}</section>`;
}
