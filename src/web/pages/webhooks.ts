import type { WebhookEndpointRow } from '../../projections/webhook-endpoints.ts';
import type { DeliveryView } from '../../webhooks/delivery-log.ts';
import { escapeHtml as e } from '../html.ts';
import { csrfField, pagerHtml, postButton, tableHtml, timeHtml, type TableRow } from '../page.ts';

/** An endpoint just added: its signing secret, shown this once. */
export type NewEndpoint = { url: string; secret: string };

function endpointRow(w: WebhookEndpointRow, csrf: string): TableRow {
  const state = w.disabled_at
    ? `<span class="badge bad">Nonaktif</span> <span class="muted">penerima menjawab ${e(w.disabled_status_code ?? '')}</span>`
    : '<span class="badge ok">Aktif</span>';
  return {
    data: { 'endpoint-id': w.id },
    cells: [
      `<a href="/dashboard/webhooks/${e(w.id)}">${e(w.url)}</a>`,
      timeHtml(w.created_at),
      state,
      postButton(`/dashboard/webhooks/${w.id}/remove`, csrf, 'Hapus', { danger: true, name: `Hapus ${w.url}` }),
    ],
  };
}

/**
 * What this instance takes, said where the URL is typed: http or https always; a private or local address only when
 * the operator allows it (WEBHOOK_ALLOW_PRIVATE), otherwise a host reachable from the internet.
 */
const urlHint = (allowPrivate: boolean) =>
  allowPrivate
    ? 'http atau https. Layanan ini juga menerima alamat lokal dan jaringan privat (mis. http://127.0.0.1:8080/webhook), untuk mencoba di komputer Anda.'
    : 'http atau https (https dianjurkan) ke alamat publik yang dapat dijangkau dari internet; alamat lokal dan jaringan privat ditolak.';

export function webhooksHtml(
  endpoints: WebhookEndpointRow[],
  csrf: string,
  added: NewEndpoint | null,
  opts: { url?: string; allowPrivate: boolean },
): string {
  const shown = added
    ? `<section class="card" aria-labelledby="new-endpoint"><h2 id="new-endpoint">Endpoint baru: ${e(added.url)}</h2>
<p>Rahasia penanda tangan (Standard Webhooks). Salin sekarang; rahasia ini hanya ditampilkan sekali.</p>
<code class="secret" id="new-endpoint-secret">${e(added.secret)}</code></section>`
    : '';
  return `${shown}<section class="card" aria-labelledby="add"><h2 id="add">Tambah endpoint</h2>
<form method="post" action="/dashboard/webhooks">${csrfField(csrf)}
<div class="field"><label for="webhook-url">URL endpoint</label><input id="webhook-url" name="url" type="url" required maxlength="2048" aria-describedby="webhook-url-hint" value="${e(opts.url ?? '')}">
<p class="muted" id="webhook-url-hint">${e(urlHint(opts.allowPrivate))}</p></div>
<button type="submit">Tambah</button></form></section>
<section class="card" aria-labelledby="list"><h2 id="list">Endpoint Anda</h2>
${
  endpoints.length === 0
    ? '<p class="muted">Belum ada endpoint.</p>'
    : tableHtml(
        'webhooks',
        'Tabel endpoint webhook',
        [{ label: 'URL' }, { label: 'Dibuat' }, { label: 'Status' }, { label: 'Aksi', action: true }],
        endpoints.map(w => endpointRow(w, csrf)),
      )
}
</section>`;
}

const deliveryBadge: Record<string, string> = { succeeded: 'ok', failed: 'bad', cancelled: 'bad', pending: 'wait' };
const deliveryLabel: Record<string, string> = {
  succeeded: 'Berhasil',
  failed: 'Gagal',
  cancelled: 'Dibatalkan',
  pending: 'Menunggu',
};

/** What an attempt gave; one in flight is still waiting, one interrupted was cut off by a crash and sent again. */
function attemptOutcome(a: DeliveryView['attempts'][number]) {
  if (a.state === 'in_flight') return '<span class="badge wait">Sedang dikirim</span>';
  if (a.state === 'interrupted') return '<span class="badge bad" data-state="interrupted">Terputus</span>';
  return `${a.statusCode !== null ? `HTTP ${e(a.statusCode)}` : e(a.error ?? 'tanpa jawaban')} (${e(a.durationMs ?? 0)} ms)`;
}

function attemptsHtml(d: DeliveryView) {
  if (d.attempts.length === 0) return '<span class="muted">Belum dicoba</span>';
  return `<ol class="muted">${d.attempts
    .map(a => `<li>${timeHtml(a.attemptedAt)}: ${attemptOutcome(a)}${a.manual ? ', manual' : ''}</li>`)
    .join('')}</ol>`;
}

function deliveryRow(endpointId: string, d: DeliveryView, csrf: string, canRedeliver: boolean): TableRow {
  return {
    data: { 'delivery-id': d.id },
    cells: [
      `<code>${e(d.type)}</code><br><span class="muted">${e(d.eventId)}</span>`,
      `<span class="badge ${deliveryBadge[d.status] ?? ''}">${e(deliveryLabel[d.status] ?? d.status)}</span>${d.statusReason ? `<br><span class="muted">${e(d.statusReason)}</span>` : ''}
${d.nextAttemptAt ? `<br><span class="muted">berikutnya ${timeHtml(d.nextAttemptAt)}</span>` : ''}`,
      timeHtml(d.createdAt),
      attemptsHtml(d),
      canRedeliver
        ? postButton(`/dashboard/webhooks/${endpointId}/deliveries/${d.id}/redeliver`, csrf, 'Kirim ulang', {
            name: `Kirim ulang ${d.type} ${d.id}`,
          })
        : '',
    ],
  };
}

export type DeliveryLogView = {
  endpoint: WebhookEndpointRow;
  deliveries: DeliveryView[];
  status: string;
  page: number;
  totalPages: number;
  csrf: string;
};

export function deliveryLogHtml(v: DeliveryLogView): string {
  const base = `/dashboard/webhooks/${v.endpoint.id}`;
  const options = ['', 'pending', 'succeeded', 'failed', 'cancelled']
    .map(s => `<option value="${s}"${s === v.status ? ' selected' : ''}>${s ? deliveryLabel[s] : 'Semua'}</option>`)
    .join('');
  return `<p><a href="/dashboard/webhooks">‹ Semua endpoint</a></p>
<section class="card"><p><strong>${e(v.endpoint.url)}</strong></p>
${
  v.endpoint.disabled_at
    ? ''
    : `<form method="post" action="${e(`${base}/test`)}">${csrfField(v.csrf)}<p class="muted">Kirim event <code>webhook.test</code>, ditandatangani seperti event sungguhan (Standard Webhooks); hasilnya tampil di log di bawah.</p>
<button type="submit" id="send-test-event">Kirim event uji</button></form>`
}
<form method="get" action="${e(base)}" class="filters"><div class="field"><label for="status">Status</label><select id="status" name="status">${options}</select></div>
<div class="field"><button type="submit">Tampilkan</button></div></form></section>
<section class="card" aria-labelledby="log"><h2 id="log">Log pengiriman</h2>
${
  v.deliveries.length === 0
    ? '<p class="muted">Belum ada pengiriman.</p>'
    : tableHtml(
        'deliveries',
        'Tabel log pengiriman',
        [
          { label: 'Peristiwa' },
          { label: 'Status' },
          { label: 'Dibuat' },
          { label: 'Percobaan' },
          { label: 'Aksi', action: true },
        ],
        v.deliveries.map(d => deliveryRow(v.endpoint.id, d, v.csrf, !v.endpoint.disabled_at)),
      )
}
${pagerHtml(base, { status: v.status }, v.page, v.totalPages)}</section>`;
}
