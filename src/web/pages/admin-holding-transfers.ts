import type { HoldingTransferRow } from '../../projections/holding-transfers.ts';
import { escapeHtml as e, formatRupiah } from '../html.ts';
import { csrfField, tableHtml, timeHtml } from '../page.ts';
import type { SourceAccount } from './admin-withdrawals.ts';

/** An account as a choice: its name, provider and the cash the ledger holds in it. */
const accountLabel = (a: SourceAccount) =>
  `${a.name} · ${a.providerCode}${a.payout ? ' · rekening pembayaran' : ''} · kas ${formatRupiah(a.cash)}`;

/**
 * A choice of the account money leaves from, each with its ledger cash. `required`: nothing is chosen until the admin
 * chooses; otherwise the payout account is.
 */
export function sourceSelect(
  id: string,
  accounts: SourceAccount[],
  label: string,
  required: boolean,
  name = 'holdingAccountId',
) {
  const options = accounts
    .map(
      a =>
        `<option value="${e(a.accountId)}"${!required && a.payout ? ' selected' : ''}>${e(accountLabel(a))}</option>`,
    )
    .join('');
  const none = required ? '<option value="" selected>Pilih rekening</option>' : '';
  return `<label for="${e(id)}" class="muted">${e(label)}</label><select id="${e(id)}" name="${e(name)}"${required ? ' required' : ''}>${none}${options}</select>`;
}

const seenHtml = (mutationId: string | null) =>
  mutationId === null
    ? '<span class="badge wait">belum terlihat</span>'
    : `<span class="badge ok" title="${e(mutationId)}">terlihat</span>`;

/**
 * The platform's accounts with their ledger cash, the form recording money moved by hand from one holding account to
 * another, and the transfers recorded, each side's mutation seen or not yet.
 */
export function holdingTransfersHtml(v: { sources: SourceAccount[]; transfers: HoldingTransferRow[]; csrf: string }) {
  const names = new Map(v.sources.map(a => [a.accountId, a.name]));
  const holding = v.sources.filter(a => a.holding);
  const cash = tableHtml(
    'holding-cash',
    'Kas rekening platform di buku besar',
    [{ label: 'Rekening' }, { label: 'Penyedia' }, { label: 'Kas di buku besar', num: true }],
    v.sources.map(a => ({
      data: { 'account-id': a.accountId },
      cells: [e(a.name), e(a.providerCode), e(formatRupiah(a.cash))],
    })),
  );
  const form =
    holding.length < 2
      ? '<p class="muted">Pemindahan dana butuh dua rekening penampung.</p>'
      : `<form method="post" action="/admin/withdrawals/holding-transfers" class="actions">${csrfField(v.csrf)}
${sourceSelect('transfer-from', holding, 'Dari', true, 'fromAccountId')}${sourceSelect('transfer-to', holding, 'Ke', true, 'toAccountId')}
<label for="transfer-amount" class="muted">Jumlah (rupiah)</label><input id="transfer-amount" name="amount" required type="number" min="1" step="1" inputmode="numeric">
<label for="transfer-reference" class="muted">Referensi transfer</label><input id="transfer-reference" name="reference" required maxlength="200">
<label for="transfer-note" class="muted">Catatan (boleh kosong)</label><input id="transfer-note" name="note" maxlength="1000">
<button type="submit">Catat pemindahan</button></form>`;
  const transfers =
    v.transfers.length === 0
      ? '<p class="muted">Belum ada pemindahan dana.</p>'
      : tableHtml(
          'holding-transfers',
          'Pemindahan dana antar rekening penampung',
          [
            { label: 'Dicatat' },
            { label: 'Dari → ke' },
            { label: 'Jumlah', num: true },
            { label: 'Mutasi keluar' },
            { label: 'Mutasi masuk' },
          ],
          v.transfers.map(t => ({
            data: { 'transfer-id': t.id },
            cells: [
              `${timeHtml(new Date(t.recordedAt))}<br><span class="muted">Ref. ${e(t.reference)}</span>`,
              `${e(names.get(t.fromAccountId) ?? t.fromAccountId)} → ${e(names.get(t.toAccountId) ?? t.toAccountId)}`,
              e(formatRupiah(t.amount)),
              seenHtml(t.debitMutationId),
              seenHtml(t.creditMutationId),
            ],
          })),
        );
  return `<section class="card" aria-labelledby="holding-cash-title"><h2 id="holding-cash-title">Kas rekening platform</h2>
${cash}
<h3>Pindahkan dana antar rekening penampung</h3>
<p class="muted">Catat di sini transfer yang Anda lakukan sendiri di aplikasi penyedia; buku besar memindahkan kasnya, mutasi kedua sisi dicocokkan saat tersinkron.</p>
${form}
${transfers}</section>`;
}
