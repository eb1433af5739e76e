import { documentHead, escapeHtml as e } from './html.ts';

/**
 * The frame of every dashboard and admin page: server-rendered HTML, Indonesian first, one nonce'd inline style and
 * no script (every action is a form), usable on a phone-sized screen and by keyboard alone.
 */

export type PageUser = { name: string; email: string; role: string };
export type Notice = { kind: 'ok' | 'error'; text: string };

export type PageFrame = {
  title: string;
  nonce: string;
  /** the signed-in user: the navigation and the logout form; absent on the sign-in pages */
  user?: PageUser | null;
  /** the session's form token, put into every form of the frame (logout) */
  csrf?: string;
  /** which navigation entry is the current page */
  current?: string;
  /** the dashboard's navigation, or the admin console's */
  area?: 'dashboard' | 'admin';
  notice?: Notice | null;
};

const css = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2933;background:#eef2f6}
a{color:#0b57d0}
:focus-visible{outline:3px solid #f9ab00;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:8px}.skip:focus{left:8px}
header{background:#12263f;color:#fff}
header .bar{position:relative;display:flex;flex-wrap:wrap;align-items:center;gap:8px 16px;max-width:1100px;margin:0 auto;padding:10px 16px}
header .brand{display:inline-block;min-height:24px;color:#fff;font-weight:700;text-decoration:none;margin-right:auto}
header .menu>summary{display:flex;align-items:center;min-height:44px;padding:8px 16px;border:1px solid #7d93ad;border-radius:8px;font-weight:600;cursor:pointer;list-style:none}
header .menu>summary::-webkit-details-marker{display:none}
header .menu[open]>summary{background:#2b4a70}
header nav ul{display:flex;flex-wrap:wrap;gap:4px;margin:0;padding:0;list-style:none}
header nav a{display:block;padding:6px 10px;border-radius:8px;color:#dbe6f4;text-decoration:none}
header nav a[aria-current="page"]{background:#2b4a70;color:#fff;font-weight:600}
header form{margin:0}
header button{background:transparent;border:1px solid #7d93ad;color:#fff}
@media (min-width:601px){
header .bar{max-width:1280px;flex-wrap:nowrap;gap:8px 12px}header .menu{flex:0 1 auto;min-width:0}
header .brand{max-width:8.5em;line-height:1.25}
header nav ul{gap:2px}header nav a{padding:6px;font-size:14px;white-space:nowrap}
header .menu>summary{display:none}
header .menu::details-content{content-visibility:visible}
header .menu .panel{display:flex;flex-wrap:wrap;justify-content:flex-end;align-items:center;gap:8px 12px}
}
@media (max-width:600px){
header .brand{flex:1 1 0%}
header .menu .panel{position:absolute;z-index:10;left:0;right:0;top:100%;padding:8px 16px 16px;background:#12263f;box-shadow:0 6px 12px rgba(0,0,0,.25)}
header nav ul{flex-direction:column}
header nav a{display:flex;align-items:center;min-height:44px;padding:8px 12px}
header .panel form{margin-top:8px}header .panel button{width:100%}
}
main{max-width:1100px;margin:0 auto;padding:16px;overflow-wrap:break-word}
main.narrow{max-width:440px}
main a:not(.button){display:inline-block;min-height:24px;max-width:100%;overflow-wrap:anywhere}
h1{font-size:24px;margin:8px 0 16px}h2{font-size:19px;margin:0 0 12px}
.card{background:#fff;border-radius:12px;box-shadow:0 1px 4px rgba(0,0,0,.08);padding:16px;margin:0 0 16px}
.notice{padding:12px 14px;border-radius:10px;margin:0 0 16px}
.notice.ok{background:#e6f4ea;color:#0d652d}.notice.error{background:#fce8e6;color:#a50e0e}
label{display:block;font-weight:600;font-size:14px;margin:0 0 4px}
input,select,textarea{width:100%;min-height:44px;padding:8px 10px;border:1px solid #9aa5b1;border-radius:8px;font:inherit;background:#fff}
.field{margin:0 0 12px}
.filters{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:0 12px;align-items:end}
button,.button{display:inline-block;min-height:44px;padding:10px 14px;border:0;border-radius:8px;background:#0b57d0;color:#fff;font:inherit;font-weight:600;text-decoration:none;cursor:pointer}
button.danger{background:#b3261e}button.quiet,.button.quiet{background:#e4e7eb;color:#1f2933}
.actions{display:flex;flex-wrap:wrap;gap:8px;align-items:center}
.table{overflow-x:auto}
table{width:100%;border-collapse:collapse;font-size:14px}
th,td{text-align:left;padding:8px;border-bottom:1px solid #e4e7eb;vertical-align:top}
th{color:#52606d;font-weight:600;white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td form{margin:0}
@media (max-width:600px){
.table{overflow:visible}
.table table,.table tbody,.table tr,.table td{display:block;width:auto}
.table thead{position:absolute;width:1px;height:1px;margin:-1px;padding:0;border:0;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.table tr{margin:0 0 12px;padding:8px 12px;border:1px solid #cbd2d9;border-radius:10px}
.table td{display:flow-root;padding:6px 0 6px 8.5em;border:0;text-align:left;white-space:normal;overflow-wrap:anywhere}
.table td::before{content:attr(data-label);float:left;width:8em;margin-left:-8.5em;color:#52606d;font-weight:600;overflow-wrap:normal}
.table td:empty{display:none}
.table td.action{padding-left:0}.table td.action::before{content:none}
.table td.action form,.table td.action button,.table td.action input{width:100%}
.table td.action form{margin:0 0 8px}
}
pre{white-space:pre-wrap;word-break:break-word;margin:4px 0 12px;font-size:12px}
code,.secret{font-family:ui-monospace,Menlo,Consolas,monospace;word-break:break-all}
.secret{display:block;padding:10px;background:#f5f7fa;border-radius:8px;font-size:15px}
.muted{color:#52606d;font-size:14px}
.badge{display:inline-block;padding:2px 8px;border-radius:10px;font-size:12px;font-weight:600;background:#e4e7eb}
.badge.ok{background:#e6f4ea;color:#0d652d}.badge.bad{background:#fce8e6;color:#a50e0e}.badge.wait{background:#fff8e6;color:#7a4f01}
dl.facts{display:grid;grid-template-columns:minmax(0,max-content) minmax(0,1fr);gap:6px 16px;margin:0}dl.facts dt{color:#52606d;max-width:14em}dl.facts dd{margin:0;word-break:break-word}
.card dl + form{margin-top:16px}
@media (max-width:480px){dl.facts{grid-template-columns:1fr;gap:0}dl.facts dt{max-width:none}dl.facts dd{margin-bottom:8px}}
.pages{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin-top:12px}
/* the chart's box scrolls from its right end, so the latest days show first on a phone */
.chart{margin:0 0 12px}.chart-body{display:flex;align-items:flex-start}.chart-axis{flex:none;display:block}
.chart-scroll{flex:1 1 auto;min-width:0;overflow-x:auto;direction:rtl}.chart-scroll svg{display:block;min-width:100%;direction:ltr}
.chart details{margin-top:8px}.chart summary{min-height:44px;padding:10px 0;cursor:pointer;font-weight:600}
[hidden]{display:none!important}
code.copy{user-select:all;padding:2px 4px;background:#f5f7fa;border-radius:4px}
button.copy{min-height:24px;padding:2px 10px;font-size:14px;margin-left:4px}
ol.checklist{padding-left:1.4em}ol.checklist li{margin:0 0 10px}
`;

/**
 * The one script of the dashboard's pages (nonce'd like the style): each copy button, hidden without a script, copies
 * its value; without a script the value's <code> is selected whole by one click, ready for the keyboard's copy.
 */
const script = `for(const b of document.querySelectorAll('button[data-copy]')){b.hidden=false;b.addEventListener('click',async()=>{try{await navigator.clipboard.writeText(b.dataset.copy);b.textContent='Tersalin'}catch{const c=document.getElementById(b.getAttribute('aria-controls'));if(c)getSelection().selectAllChildren(c)}})}`;

/** The copy button of the element `id` showing `value`, named `Salin <name>`; shown only where a script runs. */
export const copyButtonHtml = (id: string, value: string, name: string) =>
  `<button type="button" class="quiet copy" data-copy="${e(value)}" aria-controls="${e(id)}" aria-label="${e(`Salin ${name}`)}" hidden>Salin</button>`;

/** A value to copy (an account id): in a <code> one click selects whole, with a copy button where a script runs. */
export function copyableHtml(id: string, value: string, name: string): string {
  return `<code class="copy" id="${e(id)}">${e(value)}</code>${copyButtonHtml(id, value, name)}`;
}

/** The hidden field carrying the form token; every form that changes something has one. */
export const csrfField = (token: string) => `<input type="hidden" name="_csrf" value="${e(token)}">`;

/** A one-button form posting to `action` (delete, revoke, redeliver). */
export function postButton(
  action: string,
  csrf: string,
  label: string,
  opts: { danger?: boolean; name?: string } = {},
) {
  return `<form method="post" action="${e(action)}">${csrfField(csrf)}<button type="submit"${opts.danger ? ' class="danger"' : ''}${opts.name ? ` aria-label="${e(opts.name)}"` : ''}>${e(label)}</button></form>`;
}

export const noticeHtml = (notice: Notice | null | undefined) =>
  notice
    ? `<p class="notice ${notice.kind}" role="${notice.kind === 'error' ? 'alert' : 'status'}" id="notice">${e(notice.text)}</p>`
    : '';

/** A column of a list: its heading, which is also each cell's label when the table reads as cards on a phone. */
export type Column = { label: string; num?: boolean; action?: boolean };
/** A row: its cells' HTML in the columns' order, and the data attributes naming what it shows (`{ 'payment-id': id }`). */
export type TableRow = { cells: string[]; data?: Record<string, string> };

/**
 * A list as a table: on a wide screen a table in a scrolling box that a keyboard can reach (focusable, named by
 * `label`); below 600 px the stylesheet shows each row as a card of label and value (each cell's `data-label`),
 * its actions as full-width buttons, nothing beyond the screen's edge. An empty cell shows nothing on a phone.
 */
export function tableHtml(id: string, label: string, columns: Column[], rows: TableRow[]): string {
  const head = columns
    .map(
      c =>
        `<th scope="col"${c.num ? ' class="num"' : ''}>${c.action ? `<span class="muted">${e(c.label)}</span>` : e(c.label)}</th>`,
    )
    .join('');
  const row = (r: TableRow) => {
    const data = Object.entries(r.data ?? {})
      .map(([name, value]) => ` data-${name}="${e(value)}"`)
      .join('');
    const cells = r.cells.map((cell, i) => {
      const c = columns[i]!;
      const cls = c.action ? ' class="action"' : c.num ? ' class="num"' : '';
      return `<td data-label="${e(c.label)}"${cls}>${cell.trim()}</td>`;
    });
    return `<tr${data}>${cells.join('')}</tr>`;
  };
  return `<div class="table" role="region" aria-label="${e(label)}" tabindex="0"><table id="${e(id)}"><thead><tr>${head}</tr></thead>
<tbody>${rows.map(row).join('\n')}</tbody></table></div>`;
}

/** The sections of the dashboard and of the admin console, in the order their navigation shows them. */
const dashboardSections = [
  { id: 'overview', path: '/dashboard', label: 'Ringkasan' },
  { id: 'api-keys', path: '/dashboard/api-keys', label: 'API key' },
  { id: 'webhooks', path: '/dashboard/webhooks', label: 'Webhook' },
  { id: 'accounts', path: '/dashboard/accounts', label: 'Rekening' },
  { id: 'mutations', path: '/dashboard/mutations', label: 'Mutasi' },
  { id: 'payments', path: '/dashboard/payments', label: 'Pembayaran' },
  { id: 'gateway', path: '/dashboard/gateway', label: 'Gateway' },
];
const adminSections = [
  { id: 'admin', path: '/admin', label: 'Admin' },
  { id: 'access', path: '/admin/access', label: 'Akses gateway' },
  { id: 'holding-accounts', path: '/admin/holding-accounts', label: 'Rekening penampung' },
  { id: 'withdrawals', path: '/admin/withdrawals', label: 'Penarikan' },
  { id: 'suspense', path: '/admin/suspense', label: 'Dana tak terklaim' },
  { id: 'reconciliation', path: '/admin/reconciliation', label: 'Rekonsiliasi' },
  { id: 'reports', path: '/admin/revenue', label: 'Laporan' },
  { id: 'calendar', path: '/admin/calendar', label: 'Kalender' },
  { id: 'digests', path: '/admin/digests', label: 'Digest' },
  { id: 'streams', path: '/admin/streams', label: 'Stream' },
  { id: 'dashboard', path: '/dashboard', label: 'Dasbor saya' },
];

function header(f: PageFrame) {
  if (!f.user)
    return `<header><div class="bar"><a class="brand" href="/login">Layanan Mutasi &amp; Pembayaran</a></div></header>`;
  const sections =
    f.area === 'admin'
      ? adminSections
      : [...dashboardSections, ...(f.user.role === 'ADMIN' ? [{ id: 'admin', path: '/admin', label: 'Admin' }] : [])];
  const links = sections
    .map(s => `<li><a href="${s.path}"${s.id === f.current ? ' aria-current="page"' : ''}>${e(s.label)}</a></li>`)
    .join('');
  // one menu button on a phone (no script: <details>); on a wider screen the stylesheet shows its content as a bar
  return `<header><div class="bar"><a class="brand" href="/dashboard">Layanan Mutasi &amp; Pembayaran</a>
<details class="menu"><summary>Menu</summary><div class="panel"><nav aria-label="Menu utama"><ul>${links}</ul></nav>
<form method="post" action="/logout">${csrfField(f.csrf ?? '')}<button type="submit" id="logout">Keluar</button></form></div></details></div></header>`;
}

/** A whole page: the frame around `body`. */
export function pageHtml(f: PageFrame, body: string, opts: { narrow?: boolean } = {}): string {
  return `${documentHead(`${f.title} · Layanan Mutasi & Pembayaran`, f.nonce, css)}
<body>
<a class="skip" href="#content">Langsung ke isi</a>
${header(f)}
<main id="content"${opts.narrow ? ' class="narrow"' : ''}>
<h1>${e(f.title)}</h1>
${noticeHtml(f.notice)}
${body}
</main>
${body.includes('data-copy=') ? `<script nonce="${e(f.nonce)}">${script}</script>\n` : ''}</body>
</html>`;
}

const dateTime = new Intl.DateTimeFormat('id-ID', {
  timeZone: 'Asia/Jakarta',
  day: '2-digit',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** A moment as people here read it, as text: `26 Nov 2026 10.15.00 WIB`. */
export const wibText = (at: Date | string) => `${dateTime.format(typeof at === 'string' ? new Date(at) : at)} WIB`;

/** A moment as people here read it (WIB), in a <time> that keeps the exact instant. */
export function timeHtml(at: Date | string | null | undefined): string {
  if (!at) return '—';
  const d = typeof at === 'string' ? new Date(at) : at;
  return `<time datetime="${e(d.toISOString())}">${e(dateTime.format(d))} WIB</time>`;
}

/** Links to the previous and next page of a list, keeping its filters. */
export function pagerHtml(
  basePath: string,
  query: Record<string, string | number | undefined>,
  page: number,
  totalPages: number,
): string {
  if (totalPages <= 1) return '';
  const link = (p: number, label: string, rel: string) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...query, page: p }))
      if (v !== undefined && String(v) !== '') params.set(k, String(v));
    return `<a class="button quiet" rel="${rel}" href="${e(`${basePath}?${params}`)}">${e(label)}</a>`;
  };
  return `<nav class="pages" aria-label="Halaman">${page > 1 ? link(page - 1, '‹ Sebelumnya', 'prev') : ''}
<span class="muted">Halaman ${page} dari ${totalPages}</span>${page < totalPages ? link(page + 1, 'Berikutnya ›', 'next') : ''}</nav>`;
}
