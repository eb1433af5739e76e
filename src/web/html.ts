/** Escapes text for an HTML text node or a double- or single-quoted attribute value. */
export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);
}

/** Whole rupiah the Indonesian way: `Rp 50.007` (dots group thousands). */
export function formatRupiah(amount: number): string {
  const digits = String(Math.abs(Math.trunc(amount))).replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${amount < 0 ? '-' : ''}Rp ${digits}`;
}

/** Only http(s) URLs go into a link or a navigation; anything else (javascript:, data:) is dropped. */
export function httpUrlOrNull(value: string): string | null {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * The start of every page the service serves to people, up to its body: Indonesian, phone-sized, kept out of search
 * engines, with its one inline style allowed by the response's CSP nonce. `title` is text (escaped here).
 */
export function documentHead(title: string, nonce: string, css: string): string {
  return `<!doctype html>
<html lang="id">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)}</title>
<style nonce="${escapeHtml(nonce)}">${css}</style>
</head>`;
}
