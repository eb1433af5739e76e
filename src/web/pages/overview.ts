import type { SessionRow } from '../../projections/sessions.ts';
import type { UserRow } from '../../projections/users.ts';
import { planWords, roleWords, subscriptionWords, wordOf } from '../words.ts';
import { escapeHtml as e } from '../html.ts';
import { postButton, tableHtml, timeHtml } from '../page.ts';

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

/** What the getting-started checklist reads from the user's read models. */
export type StartFacts = {
  apiKeys: number;
  accounts: number;
  /** payments made, and whether one of them is paid */
  payments: number;
  paid: boolean;
  webhooks: number;
};

/** "Mulai": the four steps of a merchant's first hour, each ticked once the read models show it done. */
function startHtml(f: StartFacts) {
  const steps = [
    {
      id: 'api-key',
      done: f.apiKeys > 0,
      href: '/dashboard/api-keys',
      title: 'Buat API key',
      text: `${f.apiKeys} aktif. Kunci untuk memanggil /api/v1 dari sistem Anda.`,
    },
    {
      id: 'account',
      done: f.accounts > 0,
      href: '/dashboard/accounts',
      title: 'Hubungkan rekening atau e-wallet',
      text: `${f.accounts} terhubung. ID-nya dipakai sebagai walletAccountId saat membuat pembayaran.`,
    },
    {
      id: 'payment',
      done: f.paid,
      href: '/dashboard/payments/new',
      title: 'Terima pembayaran pertama',
      text: f.paid
        ? 'Sudah ada pembayaran yang lunas.'
        : `${f.payments} dibuat, belum ada yang lunas. Buat tautan pembayaran dan bagikan halamannya.`,
    },
    {
      id: 'webhook',
      done: f.webhooks > 0,
      href: '/dashboard/webhooks',
      title: 'Pasang endpoint webhook',
      text: `${f.webhooks} endpoint. Pemberitahuan ke server Anda; kirim event uji dari log pengirimannya.`,
    },
  ];
  const done = steps.filter(s => s.done).length;
  const items = steps
    .map(
      s => `<li id="start-${s.id}" data-done="${s.done}"><span class="badge ${s.done ? 'ok' : 'wait'}">${s.done ? '✓ Selesai' : 'Belum'}</span>
<a href="${s.href}">${e(s.title)}</a><br><span class="muted">${e(s.text)}</span></li>`,
    )
    .join('\n');
  return `<section class="card" aria-labelledby="start"><h2 id="start">Mulai</h2>
<p id="start-progress">${done} dari ${steps.length} langkah selesai.</p>
<ol class="checklist">${items}</ol>
<p><a href="/dashboard/mutations">Mutasi</a>: transaksi dari rekening dan e-wallet yang terhubung, dengan filter dan ekspor CSV.</p></section>`;
}

/** The dashboard's first page: who is signed in, their plan and points, and the first steps with what is done. */
export function overviewHtml(
  user: UserRow,
  start: StartFacts,
  devices: { sessions: SessionRow[]; current: string; csrf: string },
): string {
  const plan = user.plan_name
    ? `${user.plan_slug ? wordOf(planWords, user.plan_slug) : user.plan_name}${user.subscription_status ? ` (${wordOf(subscriptionWords, user.subscription_status)})` : ''}`
    : 'Belum berlangganan';
  return `<section class="card" aria-labelledby="me"><h2 id="me">Akun Anda</h2>
<dl class="facts">
<dt>Nama</dt><dd id="user-name">${e(user.name)}</dd>
<dt>Email</dt><dd id="user-email">${e(user.email)}</dd>
<dt>Peran</dt><dd id="user-role">${e(wordOf(roleWords, user.role))}</dd>
<dt>Paket</dt><dd id="user-plan">${e(plan)}</dd>
${user.subscription_expires_at ? `<dt>Berlaku sampai</dt><dd>${timeHtml(user.subscription_expires_at)}</dd>` : ''}
<dt>Poin</dt><dd id="points">${e(user.points)}</dd>
<dt>Terdaftar</dt><dd>${timeHtml(user.created_at)}</dd>
</dl>
<p><a href="/dashboard/password">Ganti password</a></p></section>
${startHtml(start)}
${devicesHtml(devices.sessions, devices.current, devices.csrf)}`;
}
