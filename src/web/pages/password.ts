import { escapeHtml as e } from '../html.ts';
import { csrfField } from '../page.ts';

const field = (id: string, label: string, input: string) =>
  `<div class="field"><label for="${id}">${e(label)}</label>${input}</div>`;

/** The signed-in user's password change: the current password, the new one twice. Nothing typed is shown again. */
export function passwordFormHtml(csrf: string): string {
  return `<form class="card" method="post" action="/dashboard/password" novalidate>
${csrfField(csrf)}
<p class="muted">Setelah password diganti, semua perangkat lain yang masuk ke akun ini dikeluarkan.</p>
${field('current-password', 'Password saat ini', '<input id="current-password" name="currentPassword" type="password" autocomplete="current-password" required>')}
${field('new-password', 'Password baru (minimal 8 karakter, bukan password yang umum dipakai)', '<input id="new-password" name="newPassword" type="password" autocomplete="new-password" required minlength="8" maxlength="128">')}
${field('repeat-password', 'Ulangi password baru', '<input id="repeat-password" name="repeatPassword" type="password" autocomplete="new-password" required minlength="8" maxlength="128">')}
<div class="actions"><button type="submit">Ganti password</button><a href="/dashboard">Batal</a></div>
</form>`;
}
