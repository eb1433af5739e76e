import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DomainError } from '../../errors.ts';
import { escapeHtml as e } from '../../web/html.ts';
import { refusalText, sendPage } from './page-reply.ts';

const titles: Record<number, string> = {
  400: 'Permintaan tidak dapat diproses',
  403: 'Akses ditolak',
  404: 'Tidak ditemukan',
  409: 'Bentrok dengan data yang ada',
  413: 'Data terlalu besar',
  429: 'Terlalu banyak percobaan',
  503: 'Layanan sedang tidak tersedia',
};

/** A refusal on a page route, as a page: its status, its message, and a way back. */
export function sendErrorPage(request: FastifyRequest, reply: FastifyReply, error: DomainError) {
  const viewer = request.viewer ?? null;
  const title = titles[error.status] ?? (error.status >= 500 ? 'Terjadi kesalahan' : 'Permintaan ditolak');
  const back = viewer ? '<a href="/dashboard">Kembali ke ringkasan</a>' : '<a href="/login">Masuk</a>';
  return sendPage(
    reply,
    { title, user: viewer?.user ?? null, csrf: viewer?.csrf, area: viewer?.area },
    `<div class="card"><p id="error-message">${e(refusalText(error))}</p><p>${back}</p></div>`,
    { status: error.status },
  );
}
