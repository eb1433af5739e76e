import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { pageHtml, type PageFrame } from '../../web/page.ts';

/**
 * Sends a dashboard or admin page: its own nonce'd style and nothing else inline, images and forms to this origin
 * only, never framed, never cached (pages show secrets once and balances now).
 */
export function sendPage(reply: FastifyReply, frame: Omit<PageFrame, 'nonce'>, body: string, opts: { status?: number; narrow?: boolean } = {}) {
  const nonce = randomBytes(16).toString('base64');
  return reply
    .code(opts.status ?? 200)
    .type('text/html; charset=utf-8')
    .header(
      'content-security-policy',
      `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
    )
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'same-origin')
    .header('x-content-type-options', 'nosniff')
    .send(pageHtml({ ...frame, nonce }, body, opts));
}

/** After a form that changed something: back to a page with GET (303), so a reload does not post again. */
export function seeOther(reply: FastifyReply, path: string, done?: string) {
  return reply.redirect(done ? `${path}${path.includes('?') ? '&' : '?'}done=${encodeURIComponent(done)}` : path, 303);
}

/** Where to go after signing in: a path of this site only (never `//host` or a URL elsewhere). */
export function localPath(next: unknown, fallback = '/dashboard'): string {
  if (typeof next !== 'string' || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return fallback;
  return /^[\x21-\x7e]*$/.test(next) ? next : fallback;
}

/** A refusal as a page's notice says it: its message, and the first field at fault where it names one. */
export function refusalText(err: { message: string; errors?: { path: string; message: string }[] }): string {
  const first = err.errors?.[0];
  return first ? `${err.message} (${first.path.replace(/^body\./, '')}: ${first.message})` : err.message;
}
