import type { ApiKeyRow } from '../../projections/api-keys.ts';
import { escapeHtml as e } from '../html.ts';
import { csrfField, postButton, timeHtml } from '../page.ts';

/** A key just made: its secret, shown this once and never again. */
export type NewKey = { name: string; key: string };

function keyRow(k: ApiKeyRow, csrf: string) {
  const state = k.revoked_at ? `<span class="badge bad">Dicabut</span> ${timeHtml(k.revoked_at)}` : '<span class="badge ok">Aktif</span>';
  const action = k.revoked_at ? '' : postButton(`/dashboard/api-keys/${k.id}/revoke`, csrf, 'Cabut', { danger: true, name: `Cabut ${k.name}` });
  return `<tr data-key-id="${e(k.id)}"><td>${e(k.name)}</td><td><code>${e(k.prefix)}…</code></td><td>${timeHtml(k.created_at)}</td>
<td>${timeHtml(k.last_used_at)}</td><td>${state}</td><td>${action}</td></tr>`;
}

export function apiKeysHtml(keys: ApiKeyRow[], csrf: string, created: NewKey | null, name = ''): string {
  const shown = created
    ? `<section class="card" aria-labelledby="new-key"><h2 id="new-key">API key baru: ${e(created.name)}</h2>
<p>Salin sekarang. Kunci ini hanya ditampilkan sekali; kami menyimpan sidik jarinya saja.</p>
<code class="secret" id="new-key-value">${e(created.key)}</code></section>`
    : '';
  const rows = keys.map(k => keyRow(k, csrf)).join('');
  return `${shown}<section class="card" aria-labelledby="create"><h2 id="create">Buat API key</h2>
<form method="post" action="/dashboard/api-keys">${csrfField(csrf)}
<div class="field"><label for="key-name">Nama (untuk Anda kenali)</label><input id="key-name" name="name" required maxlength="100" value="${e(name)}"></div>
<button type="submit">Buat</button></form></section>
<section class="card" aria-labelledby="list"><h2 id="list">API key Anda</h2>
${keys.length === 0 ? '<p class="muted">Belum ada API key.</p>' : `<div class="table"><table id="api-keys"><thead><tr><th scope="col">Nama</th><th scope="col">Awalan</th><th scope="col">Dibuat</th><th scope="col">Terakhir dipakai</th><th scope="col">Status</th><th scope="col"><span class="muted">Aksi</span></th></tr></thead>
<tbody>${rows}</tbody></table></div>`}
</section>`;
}
