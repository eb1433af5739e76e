import { escapeHtml as e } from '../html.ts';
import { csrfField } from '../page.ts';

/** What the sign-in and registration forms show again after a refusal (never the password). */
export type SignInForm = { name?: string; email?: string; next?: string };

const field = (id: string, label: string, input: string) =>
  `<div class="field"><label for="${id}">${e(label)}</label>${input}</div>`;

export function loginFormHtml(token: string, form: SignInForm): string {
  return `<form class="card" method="post" action="/login" novalidate>
${csrfField(token)}${form.next ? `<input type="hidden" name="next" value="${e(form.next)}">` : ''}
${field('email', 'Email', `<input id="email" name="email" type="email" autocomplete="username" required value="${e(form.email ?? '')}">`)}
${field('password', 'Password', '<input id="password" name="password" type="password" autocomplete="current-password" required>')}
<div class="actions"><button type="submit">Masuk</button><a href="/register">Belum punya akun? Daftar</a></div>
</form>`;
}

export function registerFormHtml(token: string, form: SignInForm): string {
  return `<form class="card" method="post" action="/register" novalidate>
${csrfField(token)}
${field('name', 'Nama', `<input id="name" name="name" autocomplete="name" required maxlength="100" value="${e(form.name ?? '')}">`)}
${field('email', 'Email', `<input id="email" name="email" type="email" autocomplete="email" required value="${e(form.email ?? '')}">`)}
${field('password', 'Password (minimal 8 karakter)', '<input id="password" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="128">')}
<div class="actions"><button type="submit">Daftar</button><a href="/login">Sudah punya akun? Masuk</a></div>
</form>`;
}

/** Asked when the logout link came from elsewhere (another site, an image): signing out takes this form's token. */
export function logoutConfirmHtml(token: string): string {
  return `<form class="card" method="post" action="/logout">
${csrfField(token)}
<p id="logout-question">Keluar dari akun ini di perangkat ini?</p>
<div class="actions"><button type="submit">Keluar</button><a href="/dashboard">Batal, kembali ke dasbor</a></div>
</form>`;
}
