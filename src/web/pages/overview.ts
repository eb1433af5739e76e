import type { SessionRow } from '../../projections/sessions.ts';
import type { UserRow } from '../../projections/users.ts';
import { escapeHtml as e } from '../html.ts';
import { postButton, tableHtml, timeHtml } from '../page.ts';

/** The dashboard's first page: who is signed in, their plan and points, and where to go next. */
/** The devices signed in: this one marked, each other one with a button that signs it out. */
function devicesHtml(sessions: SessionRow[], current: string, csrf: string) {
  const rows = sessions.map(s => ({
    data: { 'session-id': s.id },
    cells: [
      `${e(s.user_agent ?? 'Perangkat tak dikenal')}<br><span class="muted">${e(s.ip ?? '')}</span>`,
      timeHtml(s.created_at),
      timeHtml(s.last_seen_at),
      s.id === current
        ? '<span class="badge ok">Perangkat ini</span>'
        : postButton(`/dashboard/sessions/${s.id}/end`, csrf, 'Keluarkan', {
            danger: true,
            name: `Keluarkan perangkat masuk ${s.created_at.toISOString()}`,
          }),
    ],
  }));
  return `<section class="card" aria-labelledby="devices"><h2 id="devices">Perangkat yang masuk</h2>
${tableHtml('sessions', 'Tabel perangkat yang masuk', [{ label: 'Perangkat' }, { label: 'Masuk' }, { label: 'Terakhir aktif' }, { label: 'Aksi', action: true }], rows)}</section>`;
}

export function overviewHtml(
  user: UserRow,
  counts: { apiKeys: number; webhooks: number; accounts: number },
  devices: { sessions: SessionRow[]; current: string; csrf: string },
): string {
  const plan = user.plan_name
    ? `${user.plan_name}${user.subscription_status ? ` (${user.subscription_status})` : ''}`
    : 'Belum berlangganan';
  return `<section class="card" aria-labelledby="me"><h2 id="me">Akun Anda</h2>
<dl class="facts">
<dt>Nama</dt><dd id="user-name">${e(user.name)}</dd>
<dt>Email</dt><dd id="user-email">${e(user.email)}</dd>
<dt>Peran</dt><dd>${e(user.role)}</dd>
<dt>Paket</dt><dd>${e(plan)}</dd>
${user.subscription_expires_at ? `<dt>Berlaku sampai</dt><dd>${timeHtml(user.subscription_expires_at)}</dd>` : ''}
<dt>Poin</dt><dd id="points">${e(user.points)}</dd>
<dt>Terdaftar</dt><dd>${timeHtml(user.created_at)}</dd>
</dl>
<p><a href="/dashboard/password">Ganti password</a></p></section>
<section class="card" aria-labelledby="start"><h2 id="start">Mulai</h2>
<ul>
<li><a href="/dashboard/api-keys">API key</a>: ${e(counts.apiKeys)} aktif. Kunci untuk memanggil <code>/api/v1</code> dari sistem Anda.</li>
<li><a href="/dashboard/webhooks">Webhook</a>: ${e(counts.webhooks)} endpoint. Pemberitahuan pembayaran dan transfer ke server Anda, dengan log pengiriman.</li>
<li><a href="/dashboard/mutations">Mutasi</a>: transaksi dari ${e(counts.accounts)} rekening dan e-wallet yang terhubung, dengan filter dan ekspor CSV.</li>
</ul></section>
${devicesHtml(devices.sessions, devices.current, devices.csrf)}`;
}
