import type { PendingDue } from '../../projections/gateway-settlements.ts';
import type { PresentedSettlement } from '../../projections/settlement-presenter.ts';
import { escapeHtml as e, formatRupiah } from '../html.ts';
import { pagerHtml, tableHtml, timeHtml, type TableRow } from '../page.ts';

const workingDay = new Intl.DateTimeFormat('id-ID', {
  timeZone: 'UTC',
  weekday: 'long',
  day: 'numeric',
  month: 'long',
  year: 'numeric',
});

/** A date (YYYY-MM-DD) as people here read it, in a <time>: `Senin, 5 Januari 2026`. */
export const dayHtml = (date: string) =>
  `<time datetime="${e(date)}">${e(workingDay.format(new Date(`${date}T00:00:00Z`)))}</time>`;

const money = (value: number) => e(formatRupiah(value));

/** Beside the pending balance: how much settles on which working day, at its 00:00 WIB. */
export function pendingDueHtml(pending: readonly PendingDue[]): string {
  if (pending.length === 0) return '';
  const items = pending
    .map(
      p =>
        `<li data-due-date="${e(p.dueDate)}"><strong>${money(p.net)}</strong> cair ${dayHtml(p.dueDate)} pukul 00.00 WIB <span class="muted">(${e(p.count)} pembayaran)</span></li>`,
    )
    .join('');
  return `<ul id="pending-due">${items}</ul>`;
}

const typeLabel = { PAYMENT: 'Pembayaran', ADJUSTMENT: 'Penyesuaian' } as const;

function paymentRow(p: PresentedSettlement['payments'][number]): TableRow {
  const what = p.paymentId
    ? `${e(typeLabel[p.type])}<br><code>${e(p.paymentId)}</code>${p.orderId ? `<br><span class="muted">Pesanan ${e(p.orderId)}</span>` : ''}`
    : `${e(typeLabel[p.type])}<br><span class="muted">Dana tak terklaim</span>`;
  return {
    data: { 'payment-id': p.paymentId ?? p.suspenseId ?? '' },
    cells: [what, timeHtml(p.paidAt), dayHtml(p.dueDate), money(p.gross), money(p.fee), money(p.net)],
  };
}

function paymentsTable(id: string, s: PresentedSettlement) {
  return tableHtml(
    id,
    `Pembayaran yang dicairkan ${s.dueDate}`,
    [
      { label: 'Pembayaran' },
      { label: 'Dibayar' },
      { label: 'Jatuh tempo' },
      { label: 'Kotor', num: true },
      { label: 'Biaya', num: true },
      { label: 'Bersih', num: true },
    ],
    s.payments.map(paymentRow),
  );
}

function settlementFacts(s: PresentedSettlement) {
  return `<dl class="facts"><dt>Jatuh tempo</dt><dd class="due-date">${dayHtml(s.dueDate)}</dd>
<dt>Cair</dt><dd class="settled-at">${timeHtml(s.settledAt)}</dd>
<dt>Pembayaran</dt><dd>${e(s.paymentCount)}</dd>
<dt>Kotor · biaya · bersih</dt><dd>${money(s.gross)} · ${money(s.fee)} · <strong>${money(s.net)}</strong></dd></dl>`;
}

/** The list's filters as typed (so the form shows them again). */
export type SettlementFilterForm = Partial<Record<'from' | 'to', string>>;

export type SettlementsView = {
  filters: SettlementFilterForm;
  settlements: PresentedSettlement[];
  page: number;
  totalPages: number;
  total: number;
};

function filtersHtml(f: SettlementFilterForm) {
  const input = (name: 'from' | 'to', label: string) =>
    `<div class="field"><label for="settlements-${name}">${e(label)}</label><input id="settlements-${name}" name="${name}" type="date" value="${e(f[name] ?? '')}"></div>`;
  return `<form method="get" action="/dashboard/gateway/settlements" class="filters card" aria-label="Filter pencairan">
${input('from', 'Cair dari tanggal (WIB)')}${input('to', 'Sampai tanggal (WIB)')}
<div class="field actions"><button type="submit">Terapkan</button><a class="button quiet" href="/dashboard/gateway/settlements">Atur ulang</a></div></form>`;
}

/** The merchant's settlements, newest first, each with its first payments and a link to all of them. */
export function settlementsHtml(v: SettlementsView): string {
  const sections = v.settlements.map(s => {
    const more =
      s.paymentCount > s.payments.length
        ? `<p><a href="/dashboard/gateway/settlements/${e(s.id)}">Semua ${e(s.paymentCount)} pembayaran</a></p>`
        : '';
    return `<section class="card settlement" data-settlement-id="${e(s.id)}" aria-labelledby="settlement-${e(s.id)}">
<h2 id="settlement-${e(s.id)}"><a href="/dashboard/gateway/settlements/${e(s.id)}">Pencairan ${dayHtml(s.dueDate)}</a></h2>
${settlementFacts(s)}${paymentsTable(`settlement-payments-${s.id}`, s)}${more}</section>`;
  });
  const query = Object.fromEntries(Object.entries(v.filters).filter(([, value]) => value));
  return `<p><a href="/dashboard/gateway">‹ Gerbang pembayaran</a></p>${filtersHtml(v.filters)}
${v.total === 0 ? '<section class="card"><p class="muted">Belum ada pencairan.</p></section>' : sections.join('\n')}
${pagerHtml('/dashboard/gateway/settlements', query, v.page, v.totalPages)}`;
}

export type SettlementView = { settlement: PresentedSettlement; page: number; totalPages: number };

/** One settlement: its dates and sums, and a page of the payments it paid out. */
export function settlementHtml(v: SettlementView): string {
  const s = v.settlement;
  return `<p><a href="/dashboard/gateway/settlements">‹ Semua pencairan</a></p>
<section class="card settlement" data-settlement-id="${e(s.id)}" aria-labelledby="settlement">
<h2 id="settlement">Pencairan ${dayHtml(s.dueDate)}</h2>${settlementFacts(s)}${paymentsTable('settlement-payments', s)}
${pagerHtml(`/dashboard/gateway/settlements/${s.id}`, {}, v.page, v.totalPages)}</section>`;
}
