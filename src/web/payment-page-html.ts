import { readFileSync } from 'node:fs';
import { paymentMethodOf } from '../domain/payment-methods.ts';
import type { PaymentRow } from '../projections/payments.ts';
import { documentHead, escapeHtml as e, formatRupiah } from './html.ts';

/** The browser side of the page: countdown, status polling, copy buttons, redirect (plain JS, no build step). */
const script = readFileSync(new URL('./payment-page.js', import.meta.url), 'utf8');

/** What the payment page shows; every string in it is escaped when it goes into the HTML. */
export type PaymentPageView = {
  status: PaymentRow['status'];
  orderId: string;
  /** whom the customer pays (the gateway merchant's business, else the owner's name); null names nobody */
  shopName: string | null;
  type: string | null;
  providerName: string;
  amount: number;
  /** null until the payer has chosen how to pay (then `methods` lists the choices) */
  uniqueCode: number | null;
  totalAmount: number | null;
  accountNumber: string | null;
  /**
   * the types the payer may choose from, when the payment was created without one; a gateway payment's methods each
   * carry their own amount (the fee raised for the buyer per method), before the unique code
   */
  methods: { type: string; path: string; amount?: number }[];
  /** Same-origin path of the QR image (QR types only). */
  qrisImagePath: string | null;
  /** "Unduh QRIS": the same image as an attachment, and the name it is saved under */
  qrisDownload: { path: string; fileName: string } | null;
  statusPath: string;
  /** the payment's event stream: the page hears it end at once (GET /pay/{paymentId}/events) */
  eventsPath: string;
  /** where "Saya sudah bayar" asks for a check of the receiving account */
  checkPath: string;
  expiresAt: Date;
  /** when the customer paid (the receipt); null until completed */
  paidAt: Date | null;
  now: Date;
  /** http(s) only; null leaves the page without a way back. */
  redirectUrl: string | null;
  pollMs: number;
  /** "Bayar (sandbox)": where the sandbox pays this bill; null for a real provider's bill, or before it is billed */
  sandboxPayPath: string | null;
};

const css = `
*{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2933;background:#eef2f6}
main{max-width:440px;margin:0 auto;padding:16px}
.card{background:#fff;border-radius:14px;box-shadow:0 1px 4px rgba(0,0,0,.08);padding:20px}
.payee{margin:0 0 6px;font-size:14px;color:#52606d}.payee strong{display:block;font-size:18px;color:#1f2933;overflow-wrap:anywhere}
.method{margin:0;color:#52606d;font-size:14px;font-weight:600;letter-spacing:.02em}
h1{margin:12px 0 0;font-size:15px;font-weight:500;color:#52606d}
h2,h1.title{margin:0 0 8px;font-size:20px;font-weight:700;color:inherit}
.total{margin:2px 0 12px;font-size:32px;font-weight:700;word-break:break-all}
dl{margin:0;border-top:1px solid #e4e7eb}
dl div{display:flex;justify-content:space-between;gap:12px;padding:8px 0;border-bottom:1px solid #e4e7eb;font-size:14px}
dt{color:#52606d}dd{margin:0;text-align:right;word-break:break-all}
.state{display:none;margin-top:20px}
#payment[data-status="PENDING"] .state-pending,#payment[data-status="COMPLETED"] .state-completed,
#payment[data-status="EXPIRED"] .state-expired,#payment[data-status="FAILED"] .state-failed{display:block}
.qr{display:block;width:100%;max-width:256px;height:auto;margin:0 auto;image-rendering:pixelated}
.label{margin:0;font-size:14px;color:#52606d}
.copyable{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:8px;margin:4px 0 12px;padding:10px 12px;background:#f5f7fa;border-radius:10px}
.copyable span{min-width:0;font:600 20px/1.3 ui-monospace,Menlo,Consolas,monospace;word-break:break-all;user-select:all}
.copyable button{margin-left:auto}
button,a.button{display:inline-flex;align-items:center;justify-content:center;flex:none;min-width:72px;min-height:44px;padding:10px 16px;border:2px solid #1f6feb;
  border-radius:8px;background:#1f6feb;color:#fff;font:inherit;font-weight:600;text-align:center;text-decoration:none;cursor:pointer}
button.secondary,a.button.secondary{background:#fff;color:#1f6feb}
button.wide,a.button.wide{display:flex;width:100%;margin-top:12px}
a.button.qr-download{max-width:256px;margin:12px auto 0}
.hint{font-size:14px;color:#52606d}
.methods{display:grid;gap:8px;margin:8px 0 12px}.methods button{width:100%}
.countdown{margin:16px 0 0;padding:12px;border-radius:10px;background:#fff8e6;text-align:center}
.countdown strong{font-size:22px;font-variant-numeric:tabular-nums}
.state-completed h2{color:#137333}.state-expired h2,.state-failed h2{color:#b3261e}
h3{margin:16px 0 6px;font-size:15px}
.check-note{margin:8px 0 0;padding:12px;border-radius:10px;background:#e8f0fe;font-size:14px}.check-note p{margin:0 0 6px}.check-note p:last-child{margin:0}
.sandbox{margin-top:16px;padding:12px;border:2px dashed #b26a00;border-radius:10px;background:#fff8e6}.sandbox .hint{margin:0}
.return-note{margin:12px 0 0;padding:12px;border-radius:10px;background:#e6f4ea;text-align:center}
.return-note strong{font-size:22px;font-variant-numeric:tabular-nums}
`;

/** How the page names a method to the payer (src/domain/payment-methods.ts). */
const typeLabel = (type: string | null) => paymentMethodOf(type)?.payerLabel ?? type ?? 'Metode belum dipilih';

/** Dates as the page says them, in Jakarta time; the page's script formats a time it learns the same way. */
const timeFormat = new Intl.DateTimeFormat('id-ID', {
  timeZone: 'Asia/Jakarta',
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});
const wib = (at: Date) => `${timeFormat.format(at)} WIB`;

/**
 * A value to type into the banking app, with its copy button: the button stays hidden until the script can copy
 * (without script the value is plain text, selected whole by a tap); `copied` is what the page says once it copied.
 */
function copyable(id: string, label: string, value: string, button: string, copied: string) {
  return `<p class="label">${e(label)}</p>
      <div class="copyable"><span id="${id}">${e(value)}</span><button type="button" class="secondary" data-copy="${e(value)}" data-copied="${e(copied)}" hidden>${e(button)}</button></div>`;
}

function howToPay(v: PaymentPageView) {
  if (v.totalAmount === null) {
    if (v.methods.length === 0) return `<p class="hint">Metode pembayaran belum tersedia.</p>`;
    const label = (m: PaymentPageView['methods'][number]) =>
      m.amount === undefined ? typeLabel(m.type) : `${typeLabel(m.type)} · ${formatRupiah(m.amount)}`;
    const buttons = v.methods
      .map(m => `<button type="button" data-choose="${e(m.path)}" data-type="${e(m.type)}">${e(label(m))}</button>`)
      .join('');
    return `<p class="label">Pilih cara bayar</p><div class="methods" id="methods">${buttons}</div>
      <p class="hint">Total akhir (dengan kode unik) muncul setelah Anda memilih.</p>`;
  }
  if (v.qrisImagePath) {
    const download = v.qrisDownload
      ? `<a id="qris-download" class="button secondary wide qr-download" href="${e(v.qrisDownload.path)}" download="${e(v.qrisDownload.fileName)}">Unduh QRIS</a>`
      : '';
    return `<img id="qris" class="qr" src="${e(v.qrisImagePath)}" width="256" height="256" alt="Kode QRIS untuk membayar ${e(formatRupiah(v.totalAmount))}">
      ${download}
      <p class="hint">Pindai kode QRIS dengan aplikasi e-wallet atau mobile banking. Nominalnya sudah terisi: ${e(formatRupiah(v.totalAmount))}.
        Membuka halaman ini di ponsel yang dipakai membayar? Unduh QRIS, lalu pilih gambarnya dari galeri di aplikasi pembayaran.</p>`;
  }
  if (v.accountNumber && v.totalAmount !== null) {
    const va = v.type !== 'DIRECT'; // DIRECT: a transfer to the wallet's own number
    const label = va
      ? `Nomor virtual account ${paymentMethodOf(v.type)?.va?.bank ?? v.type ?? ''}`
      : `Nomor tujuan (${v.providerName})`;
    return `${copyable('account-number', label, v.accountNumber, va ? 'Salin nomor VA' : 'Salin nomor', va ? 'Nomor VA tersalin.' : 'Nomor tujuan tersalin.')}
      ${copyable('total-digits', 'Nominal transfer (harus tepat)', String(v.totalAmount), 'Salin nominal', 'Nominal tersalin.')}
      <p class="hint" id="copy-note" role="status"></p>
      <p class="hint">Transfer tepat ${e(formatRupiah(v.totalAmount))}${(v.uniqueCode ?? 0) > 0 ? ', termasuk kode unik,' : ''} agar pembayaran dikenali otomatis.</p>`;
  }
  return `<p class="hint">Metode pembayaran belum tersedia.</p>`;
}

/**
 * A bill paid into the sandbox provider is paid from its page by a sandbox customer: said plainly as test money, so
 * that nobody takes it for a way to pay. The page then turns paid as for any payment.
 */
function sandboxPay(v: PaymentPageView) {
  if (!v.sandboxPayPath) return '';
  return `<div class="sandbox" id="sandbox">
        <p class="hint"><strong>Mode sandbox:</strong> tagihan ini dibayar ke penyedia sandbox, bukan uang sungguhan.</p>
        <button type="button" id="sandbox-pay" class="secondary wide" data-sandbox-pay="${e(v.sandboxPayPath)}">Bayar (sandbox)</button>
        <p class="hint" id="sandbox-note" role="status" hidden></p>
      </div>`;
}

/** The receipt of a completed payment; a page that sees the payment complete fills in the time from its status. */
function receipt(v: PaymentPageView) {
  const paidAt = v.paidAt ? `<time datetime="${e(v.paidAt.toISOString())}">${e(wib(v.paidAt))}</time>` : '';
  return `<h3>Bukti pembayaran</h3>
      <dl id="receipt">
        ${v.shopName ? `<div><dt>Toko</dt><dd id="receipt-shop">${e(v.shopName)}</dd></div>` : ''}
        <div><dt>Total dibayar</dt><dd id="receipt-amount">${e(formatRupiah(v.totalAmount ?? v.amount))}</dd></div>
        <div><dt>Pesanan</dt><dd id="receipt-order">${e(v.orderId)}</dd></div>
        <div><dt>Waktu bayar</dt><dd id="receipt-paid-at">${paidAt}</dd></div>
      </dl>`;
}

/**
 * What "Saya sudah bayar" answers: what the service does now, that the page turns by itself, and what to do when it
 * does not (most payments show within seconds; a few minutes is long enough to say something is wrong).
 */
function checkNote(totalAmount: number) {
  return `<div class="check-note" id="check-note" role="status" hidden>
        <p><strong>Kami sedang memeriksa rekening penerima sekarang.</strong></p>
        <p>Halaman ini berubah sendiri begitu pembayaran Anda masuk; tidak perlu memuat ulang atau membayar lagi.</p>
        <p>Belum berubah setelah 5 menit? Pastikan nominal yang Anda kirim tepat ${e(formatRupiah(totalAmount))}, lalu
          hubungi penjual dengan bukti pembayaran Anda.</p>
      </div>`;
}

/** The hosted payment page: server-rendered, one inline script and style allowed by the response's CSP nonce. */
export function paymentPageHtml(v: PaymentPageView, nonce: string): string {
  const back = (id: string) =>
    v.redirectUrl ? `<a id="${id}" class="button wide" href="${e(v.redirectUrl)}">Kembali ke toko</a>` : '';
  return `${documentHead(`Pembayaran ${formatRupiah(v.totalAmount ?? v.amount)}`, nonce, css)}
<body>
<main>
  <div id="payment" class="card" data-status="${e(v.status)}" data-status-url="${e(v.statusPath)}" data-events-url="${e(v.eventsPath)}" data-expires-at="${e(v.expiresAt.toISOString())}"
    data-now="${e(v.now.toISOString())}" data-poll-ms="${e(v.pollMs)}">
    ${v.shopName ? `<p class="payee">Pembayaran kepada <strong id="shop">${e(v.shopName)}</strong></p>` : ''}
    <p class="method" id="method">${e(typeLabel(v.type))} · ${e(v.providerName)}</p>
    <h1>Total bayar</h1>
    <p class="total" id="total">${e(formatRupiah(v.totalAmount ?? v.amount))}</p>
    <dl>
      <div><dt>Jumlah</dt><dd id="amount">${e(formatRupiah(v.amount))}</dd></div>
      ${(v.uniqueCode ?? 0) > 0 ? `<div><dt>Kode unik</dt><dd id="unique-code">${e(formatRupiah(v.uniqueCode ?? 0))}</dd></div>` : ''}
      <div><dt>Pesanan</dt><dd id="order">${e(v.orderId)}</dd></div>
    </dl>
    <section class="state state-pending">
      ${howToPay(v)}
      ${
        v.totalAmount === null
          ? ''
          : `<p class="paid"><button type="button" id="paid-check" data-check="${e(v.checkPath)}">Saya sudah bayar</button></p>
      ${checkNote(v.totalAmount)}`
      }
      ${sandboxPay(v)}
      <p class="countdown">Sisa waktu <strong id="countdown">—</strong><br>
        <small>Bayar sebelum <time datetime="${e(v.expiresAt.toISOString())}">${e(wib(v.expiresAt))}</time></small></p>
      <noscript><p class="hint">Muat ulang halaman ini untuk melihat status terbaru.</p></noscript>
    </section>
    <section class="state state-completed" role="status">
      <h2>Pembayaran berhasil</h2>
      <p>Terima kasih, pembayaran Anda sudah kami terima.</p>
      ${receipt(v)}
      ${v.redirectUrl ? `<p class="return-note" id="return-note" aria-live="off" hidden>Kembali ke toko dalam <strong id="return-countdown">10</strong> detik</p>` : ''}
      ${back('return')}
      ${v.redirectUrl ? `<button type="button" id="stay" class="secondary wide" hidden>Tetap di sini</button>` : ''}
    </section>
    <section class="state state-expired" role="status">
      <h2>Pembayaran kedaluwarsa</h2>
      <p>Batas waktu pembayaran sudah lewat. Jangan membayar tagihan ini; minta tagihan baru kepada penjual.</p>
      ${back('return-expired')}
    </section>
    <section class="state state-failed" role="status">
      <h2>Pembayaran gagal</h2>
      <p>Pembayaran ini tidak dapat diproses. Hubungi penjual.</p>
      ${back('return-failed')}
    </section>
  </div>
</main>
<script nonce="${e(nonce)}">${script}</script>
</body>
</html>`;
}

/** The page for an id that names no payment (unknown or malformed). */
export function paymentNotFoundHtml(nonce: string): string {
  return `${documentHead('Pembayaran tidak ditemukan', nonce, css)}
<body>
<main><div class="card"><h1 class="title">Pembayaran tidak ditemukan</h1>
<p>Tautan pembayaran ini tidak dikenal. Periksa kembali tautan dari penjual.</p></div></main>
</body>
</html>`;
}
