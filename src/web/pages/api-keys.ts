import type { ApiKeyRow } from '../../projections/api-keys.ts';
import { escapeHtml as e } from '../html.ts';
import { csrfField, postButton, tableHtml, timeHtml, type TableRow } from '../page.ts';

/** A key just made: its secret, shown this once and never again. */
export type NewKey = { name: string; key: string };

function keyRow(k: ApiKeyRow, csrf: string): TableRow {
  const state = k.revoked_at
    ? `<span class="badge bad">Dicabut</span> ${timeHtml(k.revoked_at)}`
    : '<span class="badge ok">Aktif</span>';
  const action = k.revoked_at
    ? ''
    : postButton(`/dashboard/api-keys/${k.id}/revoke`, csrf, 'Cabut', { danger: true, name: `Cabut ${k.name}` });
  return {
    data: { 'key-id': k.id },
    cells: [e(k.name), `<code>${e(k.prefix)}…</code>`, timeHtml(k.created_at), timeHtml(k.last_used_at), state, action],
  };
}

export function apiKeysHtml(keys: ApiKeyRow[], csrf: string, created: NewKey | null, name = ''): string {
  const shown = created
    ? `<section class="card" aria-labelledby="new-key"><h2 id="new-key">API key baru: ${e(created.name)}</h2>
<p>Salin sekarang. Kunci ini hanya ditampilkan sekali; kami menyimpan sidik jarinya saja.</p>
<code class="secret" id="new-key-value">${e(created.key)}</code></section>`
    : '';
  return `${shown}<section class="card" aria-labelledby="create"><h2 id="create">Buat API key</h2>
<form method="post" action="/dashboard/api-keys">${csrfField(csrf)}
<div class="field"><label for="key-name">Nama (untuk Anda kenali)</label><input id="key-name" name="name" required maxlength="100" value="${e(name)}"></div>
<button type="submit">Buat</button></form></section>
<section class="card" aria-labelledby="list"><h2 id="list">API key Anda</h2>
${
  keys.length === 0
    ? '<p class="muted">Belum ada API key.</p>'
    : tableHtml(
        'api-keys',
        'Tabel API key',
        [
          { label: 'Nama' },
          { label: 'Awalan' },
          { label: 'Dibuat' },
          { label: 'Terakhir dipakai' },
          { label: 'Status' },
          { label: 'Aksi', action: true },
        ],
        keys.map(k => keyRow(k, csrf)),
      )
}
</section>`;
}
