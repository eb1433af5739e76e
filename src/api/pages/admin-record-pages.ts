import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { listDigests } from '../../audit/digests.ts';
import { auditPage } from '../../audit/stream-pages.ts';
import { setHolidayCalendarYear } from '../../commands/holiday-calendar.ts';
import { holidayCalendarYear, wibDate } from '../../domain/working-days.ts';
import { DomainError, refuse } from '../../errors.ts';
import { calendarHtml, digestsHtml, streamHtml } from '../../web/pages/admin-records.ts';
import type { AppDeps } from '../deps.ts';
import { calendarInForce } from '../gateway-calendar.ts';
import { streamRevision } from '../query-params.ts';
import { noticeOf, orShowRefusal, seeOther, sendPage } from './page-reply.ts';
import { queryFilters } from './list-filters.ts';
import { frameOf } from './page-surface.ts';

const year = z.coerce
  .number({ error: 'Tahun harus angka' })
  .int('Tahun harus angka')
  .min(2000, 'Tahun 2000 sampai 2999')
  .max(2999, 'Tahun 2000 sampai 2999');
const streamId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9:_.-]{0,199}$/);
const pageSize = 100;
const streamQuery = z.object({ fromRevision: streamRevision });

/** The form's lines, `date | kind | name`, as the calendar's days; a line that is not one says which. */
function daysOf(text: string) {
  return text
    .split(/\r?\n/)
    .map(line => line.trim())
    .filter(Boolean)
    .map((line, index) => {
      const [date, kind, ...name] = line.split('|').map(part => part.trim());
      if (!date || !kind || name.length === 0)
        throw refuse('VALIDATION_ERROR', {
          words: `Baris ${index + 1}: tulis tanggal | libur-nasional atau cuti-bersama | nama`,
        });
      return { date, kind, name: name.join(' | ') };
    });
}

/** A field of the calendar form as typed ('' when not text), to parse and to show again after a refusal. */
const field = (request: FastifyRequest, name: string) => {
  const value = (request.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};

/** The calendar in force and the years it lacks; after a refusal, the form as typed. */
async function calendarPage(deps: AppDeps, request: FastifyRequest, reply: FastifyReply, error?: DomainError) {
  const inForce = await calendarInForce(deps.pool, deps.clock.now());
  const years = inForce.years.map(y => ({ ...y, setAt: y.setAt ? wibDate(y.setAt) : null }));
  const notice = noticeOf(request, { saved: 'Kalender disimpan; penyelesaian berikutnya memakainya.' }, error);
  const draft = error
    ? { year: field(request, 'year'), source: field(request, 'source'), days: field(request, 'days') }
    : { year: '', source: '', days: '' };
  return sendPage(
    reply,
    { ...frameOf(request, 'Kalender hari kerja', 'calendar'), notice },
    calendarHtml(years, inForce.missingYears, request.viewer!.csrf, draft),
    { status: error?.status ?? 200 },
  );
}

/** One stream's events from a revision, a page at a time; an id that names no stream is 404. */
async function streamPage(deps: AppDeps, request: FastifyRequest, reply: FastifyReply) {
  const q = (request.query ?? {}) as { id?: unknown };
  const frame = frameOf(request, 'Riwayat stream', 'streams');
  if (typeof q.id !== 'string' || q.id === '') return sendPage(reply, frame, streamHtml('', null, null));
  const { value, refusal } = queryFilters(request, streamQuery);
  if (refusal)
    return sendPage(reply, { ...frame, notice: noticeOf(request, {}, refusal) }, streamHtml(q.id, null, null), {
      status: refusal.status,
    });
  const { fromRevision } = value;
  const page = streamId.safeParse(q.id).success ? await auditPage(deps.store, q.id, fromRevision, pageSize) : null;
  if (!page) {
    return sendPage(
      reply,
      { ...frame, notice: { kind: 'error', text: 'Tidak ada stream dengan ID itu.' } },
      streamHtml(q.id, null, null),
      { status: 404 },
    );
  }
  return sendPage(reply, frame, streamHtml(q.id, page.events, page.nextRevision));
}

/** The admin console's records: the settlement calendar (each year set whole), the signed daily digests, and a stream's events. */
export function adminRecordPages(deps: AppDeps) {
  return async function (app: FastifyInstance) {
    const save = (request: FastifyRequest, reply: FastifyReply, rawYear: unknown) =>
      orShowRefusal(
        async () => {
          const input = holidayCalendarYear.parse({
            source: field(request, 'source'),
            days: daysOf(field(request, 'days')),
          });
          await setHolidayCalendarYear(deps, request.viewer!.user.id, { year: year.parse(rawYear), ...input });
          return seeOther(reply, '/admin/calendar', 'saved');
        },
        error => calendarPage(deps, request, reply, error),
      );

    app.get('/calendar', (request, reply) => calendarPage(deps, request, reply));
    app.post('/calendar', (request, reply) => save(request, reply, field(request, 'year')));
    app.post<{ Params: { year: string } }>('/calendar/:year', (request, reply) =>
      save(request, reply, request.params.year),
    );

    app.get('/digests', async (request, reply) =>
      sendPage(
        reply,
        frameOf(request, 'Digest harian', 'digests'),
        digestsHtml(deps.digestKey, await listDigests(deps.pool)),
      ),
    );

    app.get('/streams', (request, reply) => streamPage(deps, request, reply));
  };
}
