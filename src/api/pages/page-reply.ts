import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { DomainError, refuse } from '../../errors.ts';
import { pageHtml, type Notice, type PageFrame } from '../../web/page.ts';
import { refusalWords } from '../../web/refusal-words.ts';

/**
 * Sends a dashboard or admin page: its own nonce'd style and copy script and nothing else inline, images and forms to this origin
 * only, never framed, never cached (pages show secrets once and balances now).
 */
export function sendPage(
  reply: FastifyReply,
  frame: Omit<PageFrame, 'nonce'>,
  body: string,
  opts: { status?: number; narrow?: boolean } = {},
) {
  const nonce = randomBytes(16).toString('base64');
  return reply
    .code(opts.status ?? 200)
    .type('text/html; charset=utf-8')
    .header(
      'content-security-policy',
      `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
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
  if (typeof next !== 'string' || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\'))
    return fallback;
  return /^[\x21-\x7e]*$/.test(next) ? next : fallback;
}

/** A refusal as a page's notice says it: in the page's words, and the first field at fault where it names one. */
export function refusalText(err: DomainError): string {
  const first = err.errors?.[0];
  const said = refusalWords(err);
  return first ? `${said} (${first.path.replace(/^body\./, '')}: ${first.message})` : said;
}

/** A refusal a form's page shows: ours (4xx), or a schema's (its first message); anything else is not one. */
export function refusalOf(err: unknown): DomainError | null {
  if (err instanceof z.ZodError)
    return refuse('VALIDATION_ERROR', { words: err.issues[0]?.message ?? 'Isian tidak valid' });
  return err instanceof DomainError && err.status < 500 ? err : null;
}

/**
 * Runs a form's work and answers what it answers; a refusal (ours, a schema's, the provider's) goes to `show` instead,
 * which shows the form's page again with it. Anything else is the error handler's.
 */
export async function orShowRefusal<T>(
  work: () => Promise<T>,
  show: (refusal: DomainError) => Promise<T> | T,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const refusal = refusalOf(err);
    if (!refusal) throw err;
    return show(refusal);
  }
}

/**
 * What a page says on top: the refusal it shows again, else what the form before it did (`?done=` names one of
 * `done`, which says it in words), else nothing.
 */
export function noticeOf(
  request: FastifyRequest,
  done: Record<string, string>,
  error?: DomainError | null,
): Notice | null {
  if (error) return { kind: 'error', text: refusalText(error) };
  const key = (request.query as { done?: unknown } | undefined)?.done;
  return typeof key === 'string' && Object.hasOwn(done, key) ? { kind: 'ok', text: done[key]! } : null;
}

/** An id in a page's path that is not a UUID names nothing of the viewer's: `notFound`, before any lookup. */
export function pathId(value: string, notFound: () => DomainError): string {
  if (!z.uuid().safeParse(value).success) throw notFound();
  return value;
}
